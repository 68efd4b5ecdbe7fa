//! Games with a pass (docs/mathematics.md §4, §6; the paper *Chocolate Games with a Pass*).
//!
//! - [`mex`]: the minimum excluded value, reusable across positions.
//! - [`gp`]: two-heap Nim with a pass, G_P(x,y) [Def 12], and Lemmas 6–8.
//! - [`expr`]: the expression language for F(x,z) and h(z).
//! - [`cb`]: Grundy numbers of the 3-D bar CB(F,x,y,z) with and without a pass, the NS
//!   property [Def 8], Theorems 2–4, Corollaries 2–4 and Table 1.
//! - [`nimpass`]: K-heap Nim with one shared pass, one bit per line (docs/mathematics.md §4).
//!
//! Tests: benches/, tests/engine/, tests/games/.

pub mod backend;
pub mod cb;
pub mod expr;
pub mod gp;
pub mod mex;
pub mod nimpass;
