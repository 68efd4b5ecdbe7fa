//! The chocolate engine's library: every kernel against its CPU twin, the automaton and its
//! meshes, the octahedron, the theorems' claims, and cancellation of every long loop.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;
#[path = "../meshes/mod.rs"]
mod meshes;

mod automaton;
mod cancel;
mod chomp_hook;
mod foundation;
mod octahedron;
mod theorems;
