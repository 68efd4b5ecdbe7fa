//! The project's own rules: the console examples of README and the guide, the documentation's
//! shape and links, function lengths, and what the Python package links.

mod faces;
mod function_length;
mod readme;
