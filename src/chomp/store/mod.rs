//! The one checked container under every table kind: [`header`] (the sealed header),
//! [`chunks`] (the trailer of chunk CRCs seeded with the header's CRC, and `CheckedBody`,
//! which returns no byte from an unchecked chunk), [`checkpoint`] (the log of step records) and
//! [`files`] (the target, the lock, the disk, the damaged-file error). A kind says only its
//! header fields, how its body is read and written, and what a verify recounts. Files of a
//! kind's version before are still read; none is written.
//!
//! Tests: this folder's unit tests; tests/faults/tables.rs (every kind, old files).

pub mod checkpoint;
pub mod chunks;
pub mod files;
pub mod header;

pub(crate) use checkpoint::read_raw_record;
pub use checkpoint::Checkpoint;
pub use chunks::CHUNK_BYTES;
pub(crate) use chunks::{chunk_seed, save_sealed, CheckedBody, ChunkCrcs, Recount};
pub(crate) use files::{
    being_solved, check_resumable_target, damaged, flock_now, lock_table, open_checkpoint_file,
    refuse_if_held,
};
pub use files::{blocks_dir, ensure_disk, holds_checkpoint, marks_path, partial_path, TableLock};
pub(crate) use header::{
    field, header_crc_holds, header_index, header_lines, number, read_header, sealed_header, Kind,
    Sealed,
};

/// The one-bit table (`chomp solve -o`): version 3 binds its chunk CRCs to its header;
/// version 2 files are still read.
pub const P_TABLE: Kind = Kind::new("p-table", "a one-bit table", 3);
/// The Grundy table (`chomp grundy -o`).
pub const GRUNDY_TABLE: Kind = Kind::new("grundy-table", "a Grundy table", 2);
/// The ordinal table (`chomp ord -o`).
pub const ORD_TABLE: Kind = Kind::new("ord-table", "an ordinal table", 2);
/// The cells table (`chomp cells -o`), its own checkpoint.
pub const CELLS_TABLE: Kind = Kind::new("cells-table", "a cells table", 2);
/// Every kind, in the order a reader names them.
pub const KINDS: [Kind; 4] = [P_TABLE, GRUNDY_TABLE, ORD_TABLE, CELLS_TABLE];
