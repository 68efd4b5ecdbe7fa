//! The project's own rules: the console examples of README and the guide, the documentation's
//! shape and links, function lengths, what the Python package links, and the references to
//! docs/mathematics.md.

mod faces;
mod function_length;
mod imports;
mod mathematics;
mod pictures;
mod readme;
