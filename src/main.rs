//! The `chompute` binary: parse the command line, run the library, map errors to exit codes.

mod cli;
mod cmd;

use clap::Parser;
use cli::Cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    ExitCode::from(2)
                } else {
                    ExitCode::SUCCESS
                };
            }
            // One line, not clap's usage block.
            let line = clap_one_line(&e.to_string());
            eprintln!("chompute: {line}");
            return ExitCode::from(2);
        }
    };
    chompute::render::atomic::install_interrupt_handler();
    quiet_vulkan_loader();
    match cmd::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if cmd::is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("chompute: {}", cmd::one_line(&e));
            ExitCode::from(cmd::exit_code(&e))
        }
    }
}

/// Mesa prints a warning on every run when XDG_RUNTIME_DIR is unset (root shells, cron, CI);
/// give it a private 0700 directory so stderr carries only chompute's own lines.
fn quiet_vulkan_loader() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return;
    }
    let dir = std::env::temp_dir().join("chompute-runtime");
    if std::fs::create_dir_all(&dir).is_ok() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
        }
        // Single-threaded here: nothing else reads the environment yet.
        std::env::set_var("XDG_RUNTIME_DIR", &dir);
    }
}

/// clap's message without its usage block, on one line: the first line plus any indented
/// continuation lines (the names of missing arguments), stopping at the blank line or "Usage:".
fn clap_one_line(text: &str) -> String {
    let mut lines = text.lines();
    let mut out = lines
        .next()
        .unwrap_or("invalid arguments")
        .trim_start_matches("error: ")
        .to_string();
    for l in lines {
        if l.trim().is_empty() || l.starts_with("Usage:") || l.starts_with("For more") {
            break;
        }
        out.push(' ');
        out.push_str(l.trim());
    }
    out
}
