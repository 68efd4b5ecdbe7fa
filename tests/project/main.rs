//! The project's own rules: README's console examples, function lengths, and what the
//! Python package links.

mod faces;
mod function_length;
mod readme;
