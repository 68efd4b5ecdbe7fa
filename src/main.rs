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
    quiet_vulkan_loader();
    // `serve` catches Ctrl-C and SIGTERM itself to finish the requests in flight and exit 0;
    // every other command removes its temporary files and exits 130 at once.
    if !matches!(cli.command, cli::Command::Serve(_)) {
        chompute::render::atomic::install_interrupt_handler();
    }
    let result = cmd::run(cli);
    // An interrupt being handled removes the temporary files, says what was kept and exits
    // with 130 itself; errors it caused in the work (a file removed under a writer) are not
    // reported.
    chompute::render::atomic::wait_if_stopping();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`chompute count 30001 | head -0`) is not an error.
        Err(e) if cmd::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
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
        // Single-threaded here (before the interrupt handler's thread): nothing else reads
        // the environment yet.
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
