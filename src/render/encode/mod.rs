//! Writing pictures: the PNG's description and palette ([`png`]), the formats chosen by a
//! path's extension ([`output`]), and here the parallel streaming PNG encoder. Files are
//! written under a temporary name and renamed when complete by [`crate::output`].
//!
//! # Parallel streaming PNG encoding
//!
//! A PNG's pixels are one zlib stream split over IDAT chunks. The stream is made here from
//! independent bands of rows: each band is filtered and deflated on its own (a sync flush
//! ends it on a byte boundary, so bands concatenate into one valid deflate stream), and the
//! Adler-32 checksums of the bands are combined. Bands are deflated in parallel while the
//! caller produces the next ones, so generation overlaps compression and memory stays a few
//! bands whatever the picture's size. The `png` crate writes the signature, header, palette,
//! chunk framing and trailer; this module only makes the IDAT payload.
//!
//! Tests: this file's unit tests; benches/kernels.rs.

pub mod output;
pub mod png;

use crate::render::encode::png::{Compression, PixelFormat, PngSpec};
use crate::{Error, Result};
use miniz_oxide::deflate::core::{
    compress_to_output, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus,
};
use rayon::prelude::*;
use std::io::Write;
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TryRecvError};

/// Raw bytes per band (rows are never split, so a band holds at least one row).
pub const BAND_BYTES: usize = 1 << 20;

impl Compression {
    /// The deflate level used for this setting. `fast` is level 1, whose greedy matcher runs
    /// at gigabytes per second on P-grids (their rows repeat); the higher levels search
    /// harder for files about a third the size.
    pub fn level(self) -> u8 {
        match self {
            Compression::Fast => 1,
            Compression::Balanced => 5,
            Compression::Best => 9,
        }
    }
}

/// The PNG row filter applied to every row: none for packed (sub-byte) pixels, where
/// filters rarely help, `Up` for byte-sized pixels (smooth shades compress far better).
fn filter_for(format: &PixelFormat) -> u8 {
    match format {
        PixelFormat::Gray1 => 0,
        PixelFormat::Indexed { bits, .. } if *bits < 8 => 0,
        _ => 2,
    }
}

/// The most memory [`stream_png`] and a band producer hold for `spec`, in bytes: bands in
/// the channel, in the batch being deflated and their outputs, recycled buffers, and the
/// producer's own working buffers — about 8 bands a thread and a few more, where a band is
/// [`BAND_BYTES`] or one row, whichever is larger. An upper bound, for the memory check.
pub fn memory_bound(spec: &PngSpec) -> u64 {
    let row = spec.format.row_bytes(spec.width) as u64;
    let band = (BAND_BYTES as u64).max(row);
    let threads = rayon::current_num_threads().max(1) as u64;
    band.saturating_mul(8 * threads + 6)
}

/// A typed error ([`crate::Error::TooLarge`]) when streaming `spec` needs more memory than
/// `room` has available; `what` names the picture.
pub fn ensure_memory(spec: &PngSpec, what: &str, room: crate::memory::Room) -> crate::Result<()> {
    room.ensure(
        memory_bound(spec),
        what,
        "a row this long needs that much in flight; draw a window of the bar, a fitted picture, tiles or a Deep Zoom pyramid instead",
    )
}

/// One band of raw rows on its way to the compressor.
struct Band {
    index: usize,
    rows: usize,
    /// `rows × row_bytes` raw bytes.
    data: Vec<u8>,
    /// The row above the band (empty for the first band), for the `Up` filter.
    above: Vec<u8>,
}

/// A deflated band.
struct Piece {
    bytes: Vec<u8>,
    adler: u32,
    len: u64,
}

/// Where a producer puts rows. Bands are handed to the compressor as they fill.
pub struct BandSink {
    tx: Option<SyncSender<Band>>,
    recycled: Receiver<Vec<u8>>,
    row_bytes: usize,
    band_rows: usize,
    height: usize,
    next_row: usize,
    index: usize,
    above: Vec<u8>,
    /// Set when a band could not be handed over: the encoder has stopped, and its own error
    /// says why.
    encoder_stopped: bool,
}

impl BandSink {
    /// Rows in each band (the last band may be shorter).
    pub fn band_rows(&self) -> usize {
        self.band_rows
    }

    /// Bytes in one raw row.
    pub fn row_bytes(&self) -> usize {
        self.row_bytes
    }

    /// Rows not yet produced.
    pub fn rows_left(&self) -> usize {
        self.height - self.next_row
    }

    /// Fill the next band: `fill(y0, rows, bytes)` writes `rows` raw rows starting at row
    /// `y0` into `bytes` (`rows × row_bytes`, zeroed or holding an old band's bytes).
    pub fn fill_band(
        &mut self,
        fill: impl FnOnce(usize, usize, &mut [u8]) -> Result<()>,
    ) -> Result<()> {
        if self.next_row >= self.height {
            return Err(Error::invalid(
                "every row of the picture is already written",
            ));
        }
        let rows = self.band_rows.min(self.height - self.next_row);
        let bytes = rows * self.row_bytes;
        let mut data = self.recycled.try_recv().unwrap_or_default();
        data.resize(bytes, 0);
        fill(self.next_row, rows, &mut data)?;
        let above = std::mem::replace(&mut self.above, data[bytes - self.row_bytes..].to_vec());
        let band = Band {
            index: self.index,
            rows,
            data,
            above,
        };
        self.index += 1;
        self.next_row += rows;
        let sent = self.tx.as_ref().is_some_and(|tx| tx.send(band).is_ok());
        if !sent {
            self.encoder_stopped = true;
            return Err(Error::invalid("the PNG encoder stopped"));
        }
        Ok(())
    }
}

/// Encode a PNG described by `spec` into `out`, which is written to `path` (named in I/O
/// errors). `produce` gets a [`BandSink`] and must fill every row, band by band, in order; it
/// runs on the calling thread while another thread deflates the bands it has already filled
/// (in parallel) and writes them.
pub fn stream_png<W: Write + Send>(
    path: impl AsRef<Path>,
    out: &mut W,
    spec: &PngSpec,
    produce: impl FnOnce(&mut BandSink) -> Result<()>,
) -> Result<()> {
    let path = path.as_ref();
    spec.validate()?;
    let row_bytes = spec.format.row_bytes(spec.width);
    let band_rows = (BAND_BYTES / row_bytes.max(1)).clamp(1, spec.height as usize);
    let threads = rayon::current_num_threads().max(1);
    let (tx, rx) = sync_channel::<Band>(threads * 2);
    let (recycle_tx, recycled) = sync_channel::<Vec<u8>>(threads * 4);
    let mut sink = BandSink {
        tx: Some(tx),
        recycled,
        row_bytes,
        band_rows,
        height: spec.height as usize,
        next_row: 0,
        index: 0,
        above: Vec::new(),
        encoder_stopped: false,
    };
    let bands = spec.height.div_ceil(band_rows as u32) as usize;
    std::thread::scope(|scope| {
        let consumer = scope.spawn(move || write_pieces(out, spec, bands, rx, recycle_tx, threads));
        let produced = produce(&mut sink).and_then(|()| {
            if sink.next_row != sink.height {
                return Err(Error::invalid(format!(
                    "the picture's producer stopped after {} of {} rows",
                    sink.next_row, sink.height
                )));
            }
            Ok(())
        });
        // Closing the channel ends the consumer (early, if the producer failed).
        sink.tx = None;
        let written = consumer
            .join()
            .map_err(|_| Error::invalid("the PNG encoder thread panicked"))?
            .map_err(|e| png_error(path, e));
        // Whichever side failed first says why: a producer that failed (a verification
        // disagreement) made the encoder stop early; an encoder that failed (a full disk)
        // made the producer stop.
        match (produced, written) {
            (Err(_), Err(w)) if sink.encoder_stopped => Err(w),
            (Err(e), _) => Err(e),
            (Ok(()), w) => w,
        }
    })
}

/// Why the consumer stopped: the `png` crate's error, or the producer's channel closing.
enum WriteError {
    Png(::png::EncodingError),
    Other(Error),
}

impl From<::png::EncodingError> for WriteError {
    fn from(e: ::png::EncodingError) -> WriteError {
        WriteError::Png(e)
    }
}

impl From<Error> for WriteError {
    fn from(e: Error) -> WriteError {
        WriteError::Other(e)
    }
}

/// A consumer's error as the library's: I/O errors name `path`.
fn png_error(path: &Path, e: WriteError) -> Error {
    match e {
        WriteError::Png(::png::EncodingError::IoError(io)) => Error::io(path, io),
        WriteError::Png(other) => Error::invalid(format!("{}: PNG: {other}", path.display())),
        WriteError::Other(e) => e,
    }
}

/// The consumer: take the bands that are ready (up to two per thread), deflate them in
/// parallel, write them in order as IDAT chunks, and finish the file.
fn write_pieces<W: Write>(
    out: &mut W,
    spec: &PngSpec,
    bands: usize,
    rx: Receiver<Band>,
    recycle: SyncSender<Vec<u8>>,
    threads: usize,
) -> Result<(), WriteError> {
    let mut writer = spec.png_encoder(out)?.write_header()?;
    let level = spec.compression.level();
    let filter = filter_for(&spec.format);
    let row_bytes = spec.format.row_bytes(spec.width);
    let mut adler: Option<u32> = None;
    let mut done = 0usize;
    let mut batch: Vec<Band> = Vec::with_capacity(threads * 2);
    while done < bands {
        batch.clear();
        match rx.recv() {
            Ok(b) => batch.push(b),
            Err(_) => {
                return Err(Error::invalid("the picture's producer stopped early").into());
            }
        }
        while batch.len() < threads * 2 {
            match rx.try_recv() {
                Ok(b) => batch.push(b),
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
            }
        }
        let pieces: Vec<Piece> = batch
            .par_iter()
            .map(|b| deflate_band(b, row_bytes, filter, level, b.index + 1 == bands))
            .collect::<Result<_>>()?;
        for (band, mut piece) in batch.drain(..).zip(pieces) {
            if band.index != done {
                return Err(Error::invalid("bands arrived out of order").into());
            }
            let _ = band.rows;
            let _ = recycle.try_send(band.data);
            adler = Some(match adler {
                None => piece.adler,
                Some(a) => adler32_combine(a, piece.adler, piece.len),
            });
            if done == 0 {
                piece.bytes.splice(0..0, zlib_header(level));
            }
            done += 1;
            if done == bands {
                piece
                    .bytes
                    .extend_from_slice(&adler.unwrap_or(1).to_be_bytes());
            }
            for chunk in piece.bytes.chunks(1 << 30) {
                writer.write_chunk(::png::chunk::IDAT, chunk)?;
            }
        }
    }
    writer.finish()?;
    Ok(())
}

/// Filter and deflate one band. The last band ends the deflate stream; the others end with a
/// sync flush (an empty stored block) so that the next band starts on a byte boundary.
fn deflate_band(band: &Band, row_bytes: usize, filter: u8, level: u8, last: bool) -> Result<Piece> {
    // Rows go to the compressor one at a time (filter byte, then the row as it is or its
    // `Up` difference), so the band is never copied whole.
    let flags = create_comp_flags_from_zip_params(level as i32, -15, 0);
    let mut compressor = Box::new(CompressorOxide::new(flags));
    let mut bytes = Vec::with_capacity(band.data.len() / 16 + 64);
    let mut adler = simd_adler32::Adler32::new();
    let mut feed = |data: &[u8], flush: TDEFLFlush| -> Result<()> {
        adler.write(data);
        let (status, consumed) = compress_to_output(&mut compressor, data, flush, |chunk| {
            bytes.extend_from_slice(chunk);
            true
        });
        let ok = match flush {
            TDEFLFlush::Finish => status == TDEFLStatus::Done,
            _ => status == TDEFLStatus::Okay,
        };
        if !ok || consumed != data.len() {
            return Err(Error::invalid(format!("deflate failed ({status:?})")));
        }
        Ok(())
    };
    let mut above: &[u8] = &band.above;
    let mut diff = Vec::new();
    for row in band.data.chunks_exact(row_bytes) {
        feed(&[filter], TDEFLFlush::None)?;
        if filter == 2 && !above.is_empty() {
            diff.clear();
            diff.extend(row.iter().zip(above).map(|(&x, &b)| x.wrapping_sub(b)));
            feed(&diff, TDEFLFlush::None)?;
        } else {
            feed(row, TDEFLFlush::None)?;
        }
        above = row;
    }
    feed(
        &[],
        if last {
            TDEFLFlush::Finish
        } else {
            TDEFLFlush::Sync
        },
    )?;
    let len = band.data.len() as u64 + band.rows as u64;
    Ok(Piece {
        bytes,
        adler: adler.finish(),
        len,
    })
}

/// Adler-32 of the concatenation A‖B from adler(A), adler(B) and |B|.
pub fn adler32_combine(a: u32, b: u32, len_b: u64) -> u32 {
    const BASE: u64 = 65521;
    let rem = len_b % BASE;
    let a1 = (a & 0xffff) as u64;
    let a2 = (a >> 16) as u64;
    let b1 = (b & 0xffff) as u64;
    let b2 = (b >> 16) as u64;
    let s1 = (a1 + b1 + BASE - 1) % BASE;
    let s2 = (rem * a1 % BASE + a2 + b2 + BASE - rem) % BASE;
    (s1 | (s2 << 16)) as u32
}

/// Encode a small picture held in memory (`raw` = every row's bytes) into PNG bytes on the
/// calling thread, as one band; for tiles, which are encoded many at a time in parallel.
pub fn png_bytes(spec: &PngSpec, raw: &[u8]) -> Result<Vec<u8>> {
    png_bytes_described(spec, raw, spec.description.as_deref())
}

/// [`png_bytes`] with `description` as the PNG's `Description` text.
pub fn png_bytes_described(
    spec: &PngSpec,
    raw: &[u8],
    description: Option<&str>,
) -> Result<Vec<u8>> {
    let row_bytes = spec.format.row_bytes(spec.width);
    if raw.len() != row_bytes * spec.height as usize {
        return Err(Error::invalid("tile bytes do not match its size"));
    }
    let in_memory = |e: ::png::EncodingError| Error::invalid(format!("PNG: {e}"));
    let mut out = Vec::with_capacity(raw.len() / 8 + 256);
    let mut writer = spec
        .png_encoder_described(&mut out, description)?
        .write_header()
        .map_err(in_memory)?;
    let band = Band {
        index: 0,
        rows: spec.height as usize,
        data: raw.to_vec(),
        above: Vec::new(),
    };
    let piece = deflate_band(
        &band,
        row_bytes,
        filter_for(&spec.format),
        spec.compression.level(),
        true,
    )?;
    let mut idat = Vec::with_capacity(piece.bytes.len() + 6);
    idat.extend_from_slice(&zlib_header(spec.compression.level()));
    idat.extend_from_slice(&piece.bytes);
    idat.extend_from_slice(&piece.adler.to_be_bytes());
    writer
        .write_chunk(::png::chunk::IDAT, &idat)
        .map_err(in_memory)?;
    writer.finish().map_err(in_memory)?;
    Ok(out)
}

/// zlib header: deflate, 32 KiB window, a level hint, check bits.
fn zlib_header(level: u8) -> [u8; 2] {
    let flg: u8 = match level {
        0..=1 => 0x01,
        2..=5 => 0x5e,
        6 => 0x9c,
        _ => 0xda,
    };
    [0x78, flg]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8]) -> (::png::OutputInfo, Vec<u8>) {
        let mut dec = ::png::Decoder::new(std::io::Cursor::new(bytes));
        dec.set_transformations(::png::Transformations::IDENTITY);
        let mut reader = dec.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        (info, buf)
    }

    #[test]
    fn adler_combine_equals_adler_of_the_whole() {
        let data: Vec<u8> = (0..200_000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        let whole = {
            let mut a = simd_adler32::Adler32::new();
            a.write(&data);
            a.finish()
        };
        for split in [0, 1, 5552, 65521, 65522, 131_042, 199_999] {
            let (x, y) = data.split_at(split);
            let (mut a, mut b) = (simd_adler32::Adler32::new(), simd_adler32::Adler32::new());
            a.write(x);
            b.write(y);
            assert_eq!(
                adler32_combine(a.finish(), b.finish(), y.len() as u64),
                whole,
                "split {split}"
            );
        }
    }

    #[test]
    fn many_bands_decode_to_the_rows_written() {
        // Rows of 8-bit gray wide enough that bands hold few rows, so the stream is many
        // independently deflated pieces; every level and both filters.
        for (format, width) in [
            (PixelFormat::Gray8, 300_007u32),
            (PixelFormat::Gray1, 2_400_001),
        ] {
            for compression in [Compression::Fast, Compression::Balanced, Compression::Best] {
                let spec = PngSpec {
                    width,
                    height: 23,
                    format: format.clone(),
                    compression,
                    description: None,
                };
                let row_bytes = spec.format.row_bytes(width);
                let row = |y: usize, k: usize| ((k * 7 + y * 13) % 251 / (1 + y % 3)) as u8;
                let mut out = Vec::new();
                stream_png("test", &mut out, &spec, |sink| {
                    while sink.rows_left() > 0 {
                        sink.fill_band(|y0, _rows, bytes| {
                            for (dy, r) in bytes.chunks_exact_mut(row_bytes).enumerate() {
                                r.iter_mut()
                                    .enumerate()
                                    .for_each(|(k, b)| *b = row(y0 + dy, k));
                            }
                            Ok(())
                        })?;
                    }
                    Ok(())
                })
                .unwrap();
                let (info, pixels) = decode(&out);
                assert_eq!((info.width, info.height), (width, 23));
                for (y, r) in pixels.chunks_exact(row_bytes).enumerate() {
                    assert!(
                        r.iter().enumerate().all(|(k, &b)| b == row(y, k)),
                        "{format:?} {compression:?} row {y}"
                    );
                }
            }
        }
    }

    /// A writer that fails once `room` bytes are written, as a full disk does.
    struct Full {
        room: usize,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if buf.len() > self.room {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::StorageFull,
                    "no space left (test)",
                ));
            }
            self.room -= buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_write_error_is_reported_not_the_producer_stopping() {
        let spec = PngSpec {
            width: 4001,
            height: 3000,
            format: PixelFormat::Gray8,
            compression: Compression::Fast,
            description: None,
        };
        let err = stream_png("test.png", &mut Full { room: 100 }, &spec, |sink| {
            let mut k = 0u8;
            while sink.rows_left() > 0 {
                sink.fill_band(|_, _, bytes| {
                    // Noise, so that the compressed bands are large.
                    for b in bytes.iter_mut() {
                        k = k.wrapping_mul(73).wrapping_add(41);
                        *b = k;
                    }
                    Ok(())
                })?;
            }
            Ok(())
        })
        .unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(&err, Error::Io { path, .. } if path == Path::new("test.png"))
                && text.contains("no space left (test)"),
            "{text}"
        );
    }

    #[test]
    fn in_memory_tiles_decode() {
        let spec = PngSpec {
            width: 37,
            height: 5,
            format: PixelFormat::Gray8,
            compression: Compression::Fast,
            description: None,
        };
        let raw: Vec<u8> = (0..37 * 5).map(|i| (i * 3) as u8).collect();
        let (_, pixels) = decode(&png_bytes(&spec, &raw).unwrap());
        assert_eq!(pixels, raw);
    }
}
