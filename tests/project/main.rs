//! The project's own rules: README's console examples, function lengths, what the Python
//! package links, and the references to docs/mathematics.md.

mod faces;
mod function_length;
mod mathematics;
mod readme;
