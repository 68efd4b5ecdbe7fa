//! How a command prints, decided once while the command line is parsed: `--json`, `--csv` and
//! `--bfile` become one [`Format`] value, so no command re-decides which flag wins.
//!
//! A command offers the flags that make sense for it by naming an [`Offer`] (its help lines,
//! and what a flag needs beside it), and takes them with one field:
//!
//! ```ignore
//! #[command(flatten)]
//! pub output: Output<BitesOutput>,
//! ```
//!
//! The flags exclude each other (clap says so in one line, as for any conflict).
//!
//! Tests: this file's unit tests; the flags as users give them in tests/faults/cli.rs.

use clap::{Arg, ArgAction, ArgGroup, ArgMatches};
use std::marker::PhantomData;

/// What a command prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// The report for a reader: tables and sentences (no flag).
    #[default]
    Text,
    /// One JSON object (`--json`); integers that can pass 2^53 are strings.
    Json,
    /// CSV with a header row (`--csv`).
    Csv,
    /// An OEIS b-file, `n a(n)` per line (`--bfile`).
    Bfile,
}

/// The output flags one command offers, and their help lines. `--json` is always offered.
pub trait Offer {
    /// `--json`'s help line.
    const JSON: &'static str = "Print one JSON object on stdout.";
    /// `--csv`'s help line, when the command offers CSV.
    const CSV: Option<&'static str> = None;
    /// `--bfile`'s help line, when the command offers a b-file.
    const BFILE: Option<&'static str> = None;
    /// The argument `--csv` needs beside it (`--csv` of `ca` needs `--verify`), if any.
    const CSV_NEEDS: Option<&'static str> = None;
    /// The argument `--bfile` needs beside it, if any.
    const BFILE_NEEDS: Option<&'static str> = None;
}

/// A command that prints JSON or text only.
#[derive(Debug)]
pub struct JsonOnly;
impl Offer for JsonOnly {}

/// The `--json`/`--csv`/`--bfile` flags of a command, read as one [`Format`].
pub struct Output<O> {
    format: Format,
    offer: PhantomData<O>,
}

impl<O> Output<O> {
    /// The format the command line asked for.
    pub fn get(&self) -> Format {
        self.format
    }
}

impl<O> std::fmt::Debug for Output<O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.format.fmt(f)
    }
}

/// The id of the group the flags form; another argument can conflict with all of them at
/// once (`conflicts_with = FORMAT_FLAGS`).
pub const FORMAT_FLAGS: &str = "format";

impl<O: Offer> clap::FromArgMatches for Output<O> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let given = |id: &str| matches!(m.try_get_one::<bool>(id), Ok(Some(true)));
        let format = if given("json") {
            Format::Json
        } else if given("csv") {
            Format::Csv
        } else if given("bfile") {
            Format::Bfile
        } else {
            Format::Text
        };
        Ok(Self {
            format,
            offer: PhantomData,
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl<O: Offer> clap::Args for Output<O> {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let flag = |id: &'static str, help: &'static str, needs: Option<&'static str>| {
            let arg = Arg::new(id).long(id).action(ArgAction::SetTrue).help(help);
            match needs {
                Some(other) => arg.requires(other),
                None => arg,
            }
        };
        let mut ids = vec!["json"];
        let mut cmd = cmd.arg(flag("json", O::JSON, None));
        if let Some(help) = O::CSV {
            cmd = cmd.arg(flag("csv", help, O::CSV_NEEDS));
            ids.push("csv");
        }
        if let Some(help) = O::BFILE {
            cmd = cmd.arg(flag("bfile", help, O::BFILE_NEEDS));
            ids.push("bfile");
        }
        cmd.group(ArgGroup::new(FORMAT_FLAGS).args(ids).multiple(false))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    struct All;
    impl Offer for All {
        const CSV: Option<&'static str> = Some("csv");
        const BFILE: Option<&'static str> = Some("bfile");
        const BFILE_NEEDS: Option<&'static str> = Some("range");
    }

    #[derive(Debug, Parser)]
    struct Cmd {
        #[arg(long)]
        range: Option<u32>,
        #[command(flatten)]
        output: Output<All>,
    }

    #[derive(Debug, Parser)]
    struct JsonCmd {
        #[command(flatten)]
        output: Output<JsonOnly>,
    }

    fn parse(args: &[&str]) -> Result<Format, clap::Error> {
        let argv = std::iter::once("x").chain(args.iter().copied());
        Cmd::try_parse_from(argv).map(|c| c.output.get())
    }

    #[test]
    fn each_flag_gives_its_format_and_none_gives_text() {
        assert_eq!(parse(&[]).unwrap(), Format::Text);
        assert_eq!(parse(&["--json"]).unwrap(), Format::Json);
        assert_eq!(parse(&["--csv"]).unwrap(), Format::Csv);
        assert_eq!(parse(&["--bfile", "--range", "3"]).unwrap(), Format::Bfile);
    }

    #[test]
    fn two_flags_conflict_and_needs_are_enforced() {
        let e = parse(&["--json", "--csv"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::ArgumentConflict);
        let e = parse(&["--bfile"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::MissingRequiredArgument);
    }

    #[test]
    fn a_flag_not_offered_is_unknown() {
        let e = JsonCmd::try_parse_from(["x", "--csv"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::UnknownArgument);
        let ok = JsonCmd::try_parse_from(["x", "--json"]).unwrap();
        assert_eq!(ok.output.get(), Format::Json);
    }
}
