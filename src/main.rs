//! The `chompute` binary: parse the command line, run the library, map errors to exit codes.

use chompute::cli::Cli;
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand) {
                let _ = e.print();
                return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand { ExitCode::from(2) } else { ExitCode::SUCCESS };
            }
            // One line, not clap's usage block.
            let text = e.to_string();
            let line = text.lines().next().unwrap_or("invalid arguments").trim_start_matches("error: ");
            eprintln!("chompute: {line}");
            return ExitCode::from(2);
        }
    };
    chompute::render::atomic::install_interrupt_handler();
    match chompute::cmd::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if chompute::cmd::is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("chompute: {}", one_line(&e));
            ExitCode::from(chompute::error::exit_code(&e))
        }
    }
}

/// The error and its context on one line.
fn one_line(e: &anyhow::Error) -> String {
    format!("{e:#}").replace('\n', " ")
}
