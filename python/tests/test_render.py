"""render: the PNG read back with a small decoder written here and compared with the P-test."""

import os
import struct
import zlib

import numpy as np
import pytest

import chompute
from conftest import p_test_grid


def read_png(path):
    """Decode a non-interlaced grey or indexed PNG of 1 or 8 bits: (pixels, palette)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, palette = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        assert zlib.crc32(kind + body) == struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])[0]
        if kind == b"IHDR":
            width, height, bits, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert colour in (0, 3) and interlace == 0
        elif kind == b"PLTE":
            palette = np.frombuffer(body, dtype=np.uint8).reshape(-1, 3)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = (width * bits + 7) // 8
    bpp = max(1, bits // 8)
    rows, prev = [], bytearray(stride)
    for y in range(height):
        line = raw[y * (stride + 1) : (y + 1) * (stride + 1)]
        f, cur = line[0], bytearray(line[1:])
        for i in range(stride):
            a = cur[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                cur[i] = (cur[i] + a) & 255
            elif f == 2:
                cur[i] = (cur[i] + b) & 255
            elif f == 3:
                cur[i] = (cur[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(cur))
        prev = cur
    pixels = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(height, stride)
    if bits == 1:
        pixels = np.unpackbits(pixels, axis=1)[:, :width]
    return pixels, palette


def test_one_bit_picture_is_the_p_grid(tmp_path):
    path = tmp_path / "c777.png"
    report = chompute.render(path, 777, 1235)
    assert (report["width"], report["height"]) == (1235, 777)
    pixels, palette = read_png(path)
    assert palette is None
    np.testing.assert_array_equal(pixels == 0, p_test_grid(777, 1235))  # black P-cells
    assert os.listdir(tmp_path) == ["c777.png"]


def test_window_cells_and_colours(tmp_path):
    path = tmp_path / "w.png"
    window = (10**12 - 3, 10**12 - 70, 21, 77)
    report = chompute.render(str(path), 10**12 + 39, window=window, scale=3, colors=("#5b2a86", "#f4efe6"))
    assert report["window"] == window and (report["width"], report["height"]) == (231, 63)
    pixels, palette = read_png(path)
    assert palette[1].tolist() == [0x5B, 0x2A, 0x86] and palette[0].tolist() == [0xF4, 0xEF, 0xE6]
    expect = np.repeat(np.repeat(p_test_grid(10**12 + 39, 10**12 + 39, *window), 3, axis=0), 3, axis=1)
    np.testing.assert_array_equal(pixels == 1, expect)


def test_fit_shades_blocks_by_exact_counts(tmp_path):
    path = tmp_path / "fit.png"
    m, n, fit = 1001, 777, 40
    report = chompute.render(path, m, n, fit=fit)
    b = -(-max(m, n) // fit)
    grid = p_test_grid(m, n)
    pixels, _ = read_png(path)
    assert pixels.shape == (report["height"], report["width"]) == (-(-m // b), -(-n // b))
    for y in range(pixels.shape[0]):
        for x in range(pixels.shape[1]):
            block = grid[y * b : (y + 1) * b, x * b : (x + 1) * b]
            level = (255 * int(block.sum()) * 2 + block.size) // (2 * block.size)
            assert pixels[y, x] == 255 - level, (y, x)


def test_gpu_picture_equals_cpu_picture(tmp_path, gpu):
    chompute.render(tmp_path / "g.png", 4095, 333, backend="gpu", verify=True)
    np.testing.assert_array_equal(read_png(tmp_path / "g.png")[0] == 0, p_test_grid(4095, 333))


def test_verify_catches_a_wrong_generator(tmp_path, monkeypatch):
    chompute.render(tmp_path / "ok.png", 300, verify=True)
    monkeypatch.setenv("CHOMPUTE_TEST_CORRUPT_CELLS", "1")
    with pytest.raises(chompute.CheckFailed):
        chompute.render(tmp_path / "bad.png", 300, verify=True)
    assert sorted(os.listdir(tmp_path)) == ["ok.png"]


def test_bad_input(tmp_path):
    with pytest.raises(ValueError, match="cannot be used together"):
        chompute.render(tmp_path / "x.png", 11, fit=4, scale=2)
    with pytest.raises(ValueError, match="colors wants two colours"):
        chompute.render(tmp_path / "x.png", 11, colors="#000000")
    with pytest.raises(ValueError):
        chompute.render(tmp_path / "x.png", 11, colors="#00000g,#ffffff")
    with pytest.raises(ValueError, match="compression must be"):
        chompute.render(tmp_path / "x.png", 11, compression="max")
    with pytest.raises(ValueError, match="larger than a PNG"):
        chompute.render(tmp_path / "x.png", 2**40)
    with pytest.raises(FileNotFoundError):
        chompute.render(tmp_path / "missing" / "x.png", 11)
    assert os.listdir(tmp_path) == []
