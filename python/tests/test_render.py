"""render: the PNG read back with a small decoder written here and compared with the P-test."""

import os
import struct
import zlib

import numpy as np
import pytest

import chompute
from conftest import memory_available, p_test_grid


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


def test_verify_catches_a_wrong_generator(tmp_path):
    chompute.render(tmp_path / "ok.png", 300, verify=True)
    # The same render from a generator that flips one cell of every window.
    with pytest.raises(chompute.CheckFailed, match="disagree at cell"):
        chompute._native._render_corrupted(tmp_path / "bad.png", 300)
    assert sorted(os.listdir(tmp_path)) == ["ok.png"]


def test_bad_input(tmp_path):
    with pytest.raises(ValueError, match="cannot be used together"):
        chompute.render(tmp_path / "x.png", 11, fit=4, scale=2)
    with pytest.raises(ValueError, match="colors must be two colours"):
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


def png_text(path):
    """The tEXt chunks of a PNG as a dict."""
    data, pos, text = open(path, "rb").read(), 8, {}
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if kind == b"tEXt":
            key, _, value = data[pos + 8 : pos + 8 + length].partition(b"\0")
            text[key.decode("latin-1")] = value.decode("latin-1")
        pos += 12 + length
    return text


def test_every_png_says_what_made_it(tmp_path):
    chompute.render(tmp_path / "r.png", 101, window=(3, 5, 40, 50), scale=2, colors="#5b2a86,#f4efe6")
    text = png_text(tmp_path / "r.png")
    assert text["Software"] == f"chompute {chompute.__version__}"
    for words in ["chompute", "C(101,101), window 3,5,40,50", "2 pixels per cell", "#5b2a86", "#f4efe6"]:
        assert words in text["Description"], (words, text["Description"])


def test_the_extension_picks_the_format(tmp_path):
    chompute.render(tmp_path / "x.tiff", 11, scale=2)
    assert open(tmp_path / "x.tiff", "rb").read(4) in (b"II*\0", b"MM\0*")
    chompute.render(tmp_path / "x.bmp", 11)
    assert open(tmp_path / "x.bmp", "rb").read(2) == b"BM"
    with pytest.raises(ValueError, match=r"does not write \.xyz pictures"):
        chompute.render(tmp_path / "x.xyz", 11)
    with pytest.raises(ValueError, match="has no extension"):
        chompute.render(tmp_path / "x", 11)
    # Formats made in memory are refused beyond their limits before anything is drawn.
    with pytest.raises(ValueError, match="write .png"):
        chompute.render(tmp_path / "big.webp", 20000)
    assert sorted(os.listdir(tmp_path)) == ["x.bmp", "x.tiff"]


def test_a_render_too_large_for_memory_is_refused_before_any_file(tmp_path):
    # A fitted row of 2^31-1 8-bit pixels: the encoder holds (8 a thread + 6) bands of one
    # row each, at least 14 × 2 GiB.
    need = 14 * 2**31
    room = memory_available()
    if room is None or room >= need:
        pytest.skip(f"{room} bytes available: enough for the encoder, so the check cannot be seen")
    with pytest.raises(ValueError, match="of memory but only .* is available"):
        chompute.render(tmp_path / "x.png", 2**64 - 1, fit=2**31 - 1)
    assert os.listdir(tmp_path) == [], "no temporary file, not even an empty one"


def test_python_words_the_checks_of_the_command_line(tmp_path):
    # The same checks as `chompute render`, naming keyword arguments instead of flags.
    with pytest.raises(ValueError, match="^scale and fit cannot be used together$"):
        chompute.render(tmp_path / "x.png", 11, fit=4, scale=2)
    with pytest.raises(ValueError, match="^shade log shades fitted pictures; add fit$"):
        chompute.render(tmp_path / "x.png", 11, shade="log")
    with pytest.raises(ValueError, match=r"^scale must be at least 1 \(got 0\)$"):
        chompute.render(tmp_path / "x.png", 11, scale=0)
    with pytest.raises(ValueError, match=r"^fit must be at least 1 pixel \(got 0\)$"):
        chompute.render(tmp_path / "x.png", 11, fit=0)
    with pytest.raises(ValueError, match="shade must be"):
        chompute.render(tmp_path / "x.png", 11, fit=4, shade="cubic")
    assert os.listdir(tmp_path) == []
    report = chompute.render(tmp_path / "s.png", 1001, fit=40, shade="sqrt")
    assert read_png(tmp_path / "s.png")[0].shape == (report["height"], report["width"])


def test_progress_hears_every_row(tmp_path):
    seen = []
    chompute.render(tmp_path / "p.png", 3001, progress=lambda done, total, phase: seen.append((phase, done, total)))
    assert seen[0] == ("rows", 0, 3001) and seen[-1] == ("rows", 3001, 3001)
    assert [d for _, d, _ in seen] == sorted(d for _, d, _ in seen)


INTERRUPTED_RENDER = """
import glob, os, signal, sys, threading, time
import chompute
out = sys.argv[1]

def workers():
    names = []
    for comm in glob.glob(f"/proc/{os.getpid()}/task/*/comm"):
        try:
            names.append(open(comm).read().strip())
        except OSError:
            pass
    return names.count("chompute")

threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
start = time.perf_counter()
try:
    # 2^20 rows of 2^27 cells, 1 bit a cell (16 MB a row): hours of work if not stopped
    chompute.render(os.path.join(out, "x.png"), 2**20, 2**27, compression="fast")
except KeyboardInterrupt:
    # The worker stops at its next band and removes its temporary file.
    while workers() and time.perf_counter() - start < 15:
        time.sleep(0.05)
    print("interrupted", workers(), os.listdir(out))
    sys.exit(0 if os.listdir(out) == [] and not workers() else 3)
print("finished without an interrupt")
sys.exit(1)
"""


def test_ctrl_c_stops_a_render_and_leaves_no_file(tmp_path):
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_RENDER, str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
