//! Progress on stderr, shown only when stderr is a terminal, in one style for every command:
//! `00:00:03 [=====>     ] 5/14 claims, <message>, eta 00:00:08`. Pipes and CI logs stay clean.
//! The library reports its long work to an [`Observer`](chompute::progress::Observer);
//! [`Bars`] is the binary's, drawing each phase as a bar.
//!
//! Tests: none of its own (bars are drawn only on a terminal); tests/faults/pipes.rs runs every
//! command with a pipe for stderr.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// Whether progress and summary lines are shown: stderr is a terminal.
pub fn on_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// A progress bar over `total` units (rows, steps, claims) named `what`. Hidden unless stderr
/// is a terminal. [`ProgressBar::set_message`] adds a note after the count (a rate, the work
/// in hand).
pub fn bar(total: u64, what: &str) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
    if on_terminal() {
        pb.set_draw_target(ProgressDrawTarget::stderr());
        let template =
            format!("{{elapsed_precise}} [{{bar:40}}] {{pos}}/{{len}} {what}{{msg}}, eta {{eta}}");
        if let Ok(style) = ProgressStyle::with_template(&template) {
            pb.set_style(style.progress_chars("=> "));
        }
    }
    pb
}

/// A spinner for work whose size is not known in advance, with the elapsed time and a
/// message saying what is being done (`00:00:03 ⠙ computing Grundy numbers`). Hidden unless
/// stderr is a terminal; it ticks by itself.
pub fn spinner(message: &str) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    if on_terminal() {
        pb.set_draw_target(ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{elapsed_precise} {spinner} {msg}") {
            pb.set_style(style);
        }
        pb.enable_steady_tick(Duration::from_millis(120));
    }
    pb.set_message(message.to_string());
    pb
}

/// Leave one line on stderr when it is a terminal (a finished file's summary); nothing in a
/// pipe.
pub fn summary(line: &str) {
    if on_terminal() {
        crate::errln!("{line}");
    }
}

/// The binary's observer: each phase the library reports is a bar ([`bar`]), hidden unless
/// stderr is a terminal.
#[derive(Default)]
pub struct Bars {
    current: std::sync::Mutex<Option<ProgressBar>>,
}

impl Bars {
    fn with_bar(&self, f: impl FnOnce(&mut Option<ProgressBar>)) {
        if let Ok(mut b) = self.current.lock() {
            f(&mut b);
        }
    }
}

impl chompute::progress::Observer for Bars {
    fn begin(&self, phase: &str, total: Option<u64>) {
        self.with_bar(|b| {
            if let Some(old) = b.take() {
                old.finish_and_clear();
            }
            *b = Some(match total {
                Some(t) => bar(t, phase),
                None => spinner(phase),
            });
        });
    }

    fn progress(&self, done: u64) {
        self.with_bar(|b| {
            if let Some(pb) = b {
                pb.set_position(done);
            }
        });
    }

    fn shown(&self) -> bool {
        on_terminal()
    }

    fn end(&self) {
        self.with_bar(|b| {
            if let Some(pb) = b.take() {
                pb.finish_and_clear();
            }
        });
    }
}
