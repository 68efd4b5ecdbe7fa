//! Progress bars on stderr, shown only when stderr is a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A progress bar over `total` units (rows, steps, positions) named `what`. Hidden unless stderr
/// is a terminal, so pipes and CI logs stay clean.
pub fn bar(total: u64, what: &str) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
    if std::io::stderr().is_terminal() {
        pb.set_draw_target(ProgressDrawTarget::stderr());
        let template = format!(
            "{{elapsed_precise}} [{{bar:40}}] {{pos}}/{{len}} {what} ({{per_sec}}, eta {{eta}})"
        );
        if let Ok(style) = ProgressStyle::with_template(&template) {
            pb.set_style(style.progress_chars("=> "));
        }
    }
    pb
}
