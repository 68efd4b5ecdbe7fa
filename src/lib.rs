//! chompute: a compute engine for the mathematics of chocolate games.
//!
//! - [`chocolate`]: the chocolate game C(m,n), whose P-positions are four-pile Nim: the
//!   P-test, packed P-grids of any window, exact counts, the recursion theorems, the
//!   Sierpiński octahedron and the second-order automaton.
//! - [`pass`]: games with a pass: the mex engine, G_P, the 3-D bars CB(F), Nim with a pass.
//! - [`chomp`]: Chomp on Young diagrams: multiplayer ordinals under n-player rules, rule
//!   classes, and two-player tables (P or N at one bit a position, on disk past memory;
//!   Grundy values; diagrams by number of cells).
//! - [`claim`]: claims checked by computation, and their one report (text, JSON, CSV).
//! - [`render`]: streaming PNGs, Deep Zoom pyramids, tiles, palettes, legends, meshes.
//! - [`gpu`]: the wgpu context and the kernels whose CPU twins live in the mathematics modules.
//! - [`json`]: how reports serialise counts past 2^53 (strings in JSON, numbers in Python).
//! - [`error`]: the typed [`Error`] every fallible function returns.
//! - [`serve`]: the HTTP tile server of `chompute serve` and its viewer.
//!
//! Mathematics never imports wgpu; GPU modules run kernels whose CPU twins live beside the
//! mathematics they implement. Counts and coordinates are exact integers (u64, u128).
//!
//! # Counting P-positions
//!
//! g(m) for the square bar by the recurrences g(2k) = 4g(k), g(2k+1) = g(k) + g(k+1), in
//! O(log m) for any u64, exact in u128:
//!
//! ```
//! use chompute::chocolate::{g_histogram, g_recurrence};
//! assert_eq!(g_recurrence(11)?, 29);
//! assert_eq!(g_recurrence(1_000_000_000_000)?, 40_048_914_295_125_180_416);
//! // Any rectangle, by histograms of the row and column keys.
//! assert_eq!(g_histogram(5, 7)?, 5);
//! assert_eq!(g_histogram(11, 11)?, g_recurrence(11)?);
//! # Ok::<(), chompute::Error>(())
//! ```
//!
//! # A window of the P-grid
//!
//! Rows come packed: u32 words, bit 31 the leftmost cell, so a word's big-endian bytes are a
//! 1-bit PNG row. Windows may lie anywhere in a bar as large as u64 allows.
//!
//! ```
//! use chompute::chocolate::{p_cell, p_rows_cpu, Window};
//! // C(5,7): row 1 is .#...#. and row 3 is ...#...
//! let w = Window::full(5, 7)?;
//! let mut words = vec![0u32; w.total_words()?];
//! p_rows_cpu(&w, &mut words);
//! assert_eq!(words, [0x4400_0000, 0, 0x1000_0000, 0, 0x4400_0000]);
//!
//! // Two rows of 40 cells in the middle of C(10^12, 10^12), cell by cell against the P-test.
//! let m = 1_000_000_000_000;
//! let w = Window::new(m, m, m / 2, m / 3, 2, 40)?;
//! let mut words = vec![0u32; w.total_words()?];
//! p_rows_cpu(&w, &mut words);
//! for r in 0..2 {
//!     for c in 0..40 {
//!         let bit = words[r * 2 + c / 32] >> (31 - c % 32) & 1 == 1;
//!         assert_eq!(bit, p_cell(m, m, m / 2 + r as u64, m / 3 + c as u64));
//!     }
//! }
//! # Ok::<(), chompute::Error>(())
//! ```
//!
//! # Two-heap Nim with a pass: the table G_P
//!
//! ```
//! use chompute::pass::gp::{check, GpTable};
//! let t = GpTable::compute(6)?;
//! let row3: Vec<u32> = t.row(3).collect();
//! assert_eq!(row3, [4, 3, 5, 1, 0, 2]);
//! assert_eq!(t.get(2, 4), 7);
//! // Lemmas 6, 7, 8 and distinct rows and columns, checked over the whole table.
//! assert!(check(&t).iter().all(|claim| claim.pass));
//! # Ok::<(), chompute::Error>(())
//! ```
//!
//! # Grundy numbers of the 3-D bar CB(F)
//!
//! F in the expression language; with F(x,z) = ⌊z/2⌋ (an NS function) Theorem 2 gives
//! G(CB(F,x,y,z)) = x^y^z, and with the pass Theorem 4 gives G_P(x, y^z).
//!
//! ```
//! use chompute::pass::cb::{check_pass_game, Bar, FTable};
//! use chompute::pass::expr::parse;
//! use chompute::pass::gp::GpTable;
//! let f = FTable::from_expr(&parse("floor(z/2)")?, 3, 6)?;
//! let bar = Bar::compute(f, true)?;
//! assert_eq!(bar.grundy(0, 1, 3), 2);
//! assert_eq!(bar.grundy(3, 2, 6), 3 ^ 2 ^ 6);
//! let gp = GpTable::compute(8)?;
//! assert_eq!(bar.grundy_pass(3, 2, 6), Some(gp.get(3, 2 ^ 6)));
//! // Theorems 3, 4 and Corollaries 2–4 on every position of the box.
//! assert!(check_pass_game(&bar)?.iter().all(|claim| claim.pass));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Chomp ordinals
//!
//! ```
//! use chompute::chomp::{ChompBox, Diagram, OrdTable, Rule};
//! let rule = Rule::parse("0,2,1")?;
//! let table = OrdTable::compute(ChompBox { rows: 3, cols: 3 }, &rule)?;
//! assert_eq!(table.ordinal(&Diagram::parse("3,2,1")?), Some(3));
//! // The positions of each ordinal 0..=3 in the 3×3 box.
//! assert_eq!(table.histogram(), [1, 1, 4, 14]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # An automaton generation
//!
//! Generation n of the second-order automaton of docs/mathematics.md §3 is the P-grid of
//! C(n+1,n+1).
//!
//! ```
//! use chompute::chocolate::automaton::Automaton;
//! use chompute::chocolate::{g_recurrence, p_rows_cpu, Window};
//! let mut a = Automaton::new(10)?;
//! a.run(10);
//! assert_eq!(a.generation(), 10);
//! assert_eq!(a.live_cells() as u128, g_recurrence(11)?);
//! let w = Window::full(11, 11)?;
//! let mut p = vec![0u32; w.total_words()?];
//! p_rows_cpu(&w, &mut p);
//! assert_eq!(a.current_u32(), p);
//! # Ok::<(), chompute::Error>(())
//! ```
//!
//! # Nim with a pass on more heaps
//!
//! ```
//! use chompute::pass::nimpass::NimPass;
//! let t = NimPass::compute(3, 11)?; // three heaps of sizes 0..=10
//! assert_eq!(t.count(), 105);
//! // With the pass, (1,1,1) is a P-position and (1,1,0) is not (in plain Nim it is the
//! // other way round).
//! assert!(t.is_p(&[0, 0, 0]) && t.is_p(&[1, 1, 1]) && !t.is_p(&[1, 1, 0]));
//! // Two heaps: the zeros of G_P, Lemma 6's (0,0), (2n,2n-1), (2n-1,2n).
//! let two = NimPass::compute(2, 9)?;
//! assert!(two.is_p(&[3, 4]) && two.is_p(&[8, 7]) && !two.is_p(&[3, 3]));
//! # Ok::<(), chompute::Error>(())
//! ```
//!
//! # The Sierpiński octahedron
//!
//! The P-cells of C(m,m) are the cells whose centres lie in S_N, for every m ≤ 2^N:
//!
//! ```
//! use chompute::chocolate::octahedron::{cell_in_sierpinski, correspondence_claim};
//! use chompute::chocolate::p_cell;
//! assert_eq!(cell_in_sierpinski(4, 11, 2, 6), p_cell(11, 11, 2, 6));
//! let claim = correspondence_claim(4, 16)?;
//! assert!(claim.pass);
//! assert_eq!(claim.checked, (1..=16u128).map(|m| m * m).sum());
//! # Ok::<(), chompute::Error>(())
//! ```
//!
//! # Claims and their report
//!
//! ```
//! use chompute::claim::{verdict, write_csv, Claim};
//! let claims = vec![Claim::theorem("g-odd", "g(2k+1) = g(k)+g(k+1)", "k < 10", 10, None)];
//! assert!(verdict(&claims).is_ok());
//! let mut csv = Vec::new();
//! write_csv(&mut csv, &claims)?;
//! assert!(String::from_utf8(csv)?.lines().nth(1).unwrap().starts_with("g-odd,theorem,pass,10,"));
//! let json = serde_json::to_value(&claims)?;
//! assert_eq!(json[0]["checked"], "10"); // counts are JSON strings
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Typed errors
//!
//! ```
//! use chompute::{chocolate::g_recurrence, Error};
//! let e = g_recurrence(0).unwrap_err();
//! assert!(matches!(e, Error::BadArgument { .. }));
//! assert_eq!(e.to_string(), "m must be at least 1 (got 0)");
//! ```
//!
//! # A picture
//!
//! ```
//! use chompute::chocolate::Window;
//! use chompute::gpu::Engine;
//! use chompute::render::encode::stream_png;
//! use chompute::render::{picture::source::CellSource, picture::Picture, Compression};
//! // C(11,11) at 4 pixels a cell, streamed into memory, every tile checked by the P-test.
//! let pic = Picture::cells(Window::full(11, 11)?, 4, None)?;
//! let cells = CellSource::new(Engine::Cpu, true);
//! let mut png = Vec::new();
//! stream_png("r11.png", &mut png, &pic.spec(Compression::Best)?, |sink| {
//!     while sink.rows_left() > 0 {
//!         sink.fill_band(|y0, rows, bytes| {
//!             pic.fill_rows(&cells, pic.band(y0 as u64, rows as u64), bytes)
//!         })?;
//!     }
//!     Ok(())
//! })?;
//! assert_eq!(&png[1..4], b"PNG");
//! assert_eq!((pic.width, pic.height), (44, 44));
//! # Ok::<(), chompute::Error>(())
//! ```
//!
//! Tests: each module's doc names its own.

#![warn(missing_docs)]
// Nothing writes to stdout or stderr by `print!`/`eprint!`, which panic when the reader has
// gone: the binary's `outln!`/`errln!` and the library's callers decide what to do.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod cancel;
pub mod chocolate;
pub mod chomp;
pub mod claim;
pub mod error;
pub use error::{Error, Input, Result};
pub mod gpu;
pub mod json;
pub mod memory;
pub mod output;
pub mod pass;
pub mod progress;
pub mod render;
#[cfg(feature = "serve")]
pub mod serve;
