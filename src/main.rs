//! The `chompute` binary: parse the command line, run the library, map errors to exit codes.
//!
//! Tests: this file's unit tests.

// Lines reach stdout and stderr through `outln!` and `errln!` (cmd/out.rs), never `print!` or
// `eprint!`, which panic when the reader has gone.
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod cli;
mod cmd;

use clap::Parser;
use cli::Cli;
use std::process::ExitCode;

/// Start the pool of worker threads now, so that a machine or an address-space limit
/// (`ulimit -v`) that cannot give their stacks is one line before any work, not a panic in the
/// middle of it: one thread a core, else a single worker.
fn start_worker_threads() -> Result<(), String> {
    let all = rayon::ThreadPoolBuilder::new().build_global();
    match all {
        Ok(()) => Ok(()),
        Err(_) => rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build_global()
            .map_err(|e| {
                format!(
                    "cannot start a worker thread ({e}); the memory or the address-space \
                     limit (ulimit -v) is too small"
                )
            }),
    }
}

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
                // Help and version are output like any other: a failed write (a full disk,
                // `> /dev/full`) is an error, a closed pipe (`| head -1`) is not.
                if let Err(why) = print_help(&e) {
                    crate::errln!("chompute: cannot write the help: {why}");
                    return ExitCode::from(2);
                }
                return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    ExitCode::from(2)
                } else {
                    ExitCode::SUCCESS
                };
            }
            // One line, not clap's usage block.
            let line = clap_one_line(&e.to_string());
            crate::errln!("chompute: {line}");
            return ExitCode::from(2);
        }
    };
    quiet_vulkan_loader();
    chompute::memory::one_arena_under_address_limit();
    if let Err(line) = start_worker_threads() {
        crate::errln!("chompute: {line}");
        return ExitCode::from(2);
    }
    // `serve` catches Ctrl-C and SIGTERM itself to finish the requests in flight and exit 0;
    // every other command removes its temporary files and exits 130 at once.
    if !matches!(cli.command, cli::Command::Serve(_)) {
        install_interrupt_handler();
    }
    let result = cmd::run(cli);
    // An interrupt being handled removes the temporary files, says what was kept and exits
    // with 130 itself; errors it caused in the work (a file removed under a writer) are not
    // reported.
    while chompute::output::stopping() {
        std::thread::park();
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`chompute count 30001 | head -0`) is not an error.
        Err(e) if cli::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            crate::errln!("chompute: {}", cli::one_line(&e));
            ExitCode::from(cli::exit_code(&e))
        }
    }
}

/// Write clap's help or version text (on stdout; for a missing subcommand on stderr) and
/// flush it, so that a write error is seen; a closed pipe is not an error.
fn print_help(e: &clap::Error) -> std::io::Result<()> {
    use std::io::{IsTerminal, Write};
    let terminal = if e.use_stderr() {
        std::io::stderr().is_terminal()
    } else {
        std::io::stdout().is_terminal()
    };
    if terminal {
        // clap's own printing, in colour.
        return e.print();
    }
    let text = e.render().to_string();
    let written = if e.use_stderr() {
        let mut err = std::io::stderr().lock();
        err.write_all(text.as_bytes()).and_then(|()| err.flush())
    } else {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|()| out.flush())
    };
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// On Ctrl-C, SIGTERM or SIGHUP: remove every temporary output (the library's registry of
/// files being written), say in one line what was kept, and exit with status 130.
fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        // Stderr stays locked until the process ends, so that no line of the run (a device
        // starting up, say) can follow this one.
        let mut err = std::io::stderr().lock();
        let kept = chompute::output::stop_outputs();
        use std::io::Write;
        let _ = writeln!(err, "chompute: interrupted; {kept}");
        std::process::exit(130)
    });
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
/// continuation lines (the names of missing arguments), stopping at "Usage:"; clap's tips are
/// kept, a similar name as "(did you mean 'count'?)".
fn clap_one_line(text: &str) -> String {
    let mut lines = text.lines();
    let mut out = lines
        .next()
        .unwrap_or("invalid arguments")
        .trim_start_matches("error: ")
        .to_string();
    let mut blank = false;
    for l in lines {
        let t = l.trim();
        if l.starts_with("Usage:") || l.starts_with("For more") {
            break;
        }
        if t.is_empty() {
            blank = true;
        } else if let Some(tip) = t.strip_prefix("tip: ") {
            out.push(' ');
            out.push_str(&tip_text(tip));
        } else if !blank {
            out.push(' ');
            out.push_str(t);
        }
    }
    out
}

/// A clap tip in parentheses: "a similar subcommand exists: 'count'" becomes
/// "(did you mean 'count'?)", several names "(did you mean 'a' or 'b'?)".
fn tip_text(tip: &str) -> String {
    match tip.rsplit_once(": ") {
        Some((what, names)) if what.contains("similar") => {
            let names: Vec<&str> = names.split(", ").collect();
            format!("(did you mean {}?)", names.join(" or "))
        }
        _ => format!("({tip})"),
    }
}

#[cfg(test)]
mod tests {
    use super::clap_one_line;

    #[test]
    fn one_line_keeps_the_did_you_mean_hint() {
        let text = "error: unrecognized subcommand 'cout'\n\n  tip: a similar subcommand exists: 'count'\n\nUsage: chompute [OPTIONS] <COMMAND>\n\nFor more information, try '--help'.\n";
        assert_eq!(
            clap_one_line(text),
            "unrecognized subcommand 'cout' (did you mean 'count'?)"
        );
        let text = "error: unexpected argument '--jsn' found\n\n  tip: some similar arguments exist: '--json', '--csv'\n\nUsage: x\n";
        assert_eq!(
            clap_one_line(text),
            "unexpected argument '--jsn' found (did you mean '--json' or '--csv'?)"
        );
        let text = "error: the following required arguments were not provided:\n  --max-m <M>\n\nUsage: x\n";
        assert_eq!(
            clap_one_line(text),
            "the following required arguments were not provided: --max-m <M>"
        );
    }
}
