//! The words the command line speaks errors in: an input of the library is named by its flag
//! ([`flag`]), an error and its causes are said on one line ([`one_line`]), and each error
//! maps to an exit status ([`exit_code`]: 1 a disagreement, 130 interrupted, 2 the rest).
//!
//! Tests: this file's unit tests; every status as users meet it in tests/faults/status.rs.

/// A write to a closed pipe (`chompute render 65535 -o - | head -c 100`) is not an error.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == BrokenPipe)
            // The png crate's error names its I/O cause only through the old `cause()`.
            || matches!(
                c.downcast_ref::<png::EncodingError>(),
                Some(png::EncodingError::IoError(io)) if io.kind() == BrokenPipe
            )
    })
}

/// The exit status for an error: 1 when a check found a disagreement, 130 when the work was
/// interrupted, 2 for everything else (bad input, I/O, no GPU).
pub fn exit_code(e: &anyhow::Error) -> u8 {
    match e.chain().find_map(|c| c.downcast_ref::<chompute::Error>()) {
        Some(chompute::Error::CheckFailed(_)) => 1,
        Some(chompute::Error::Interrupted) => 130,
        _ => 2,
    }
}

/// The flag that gives an input of the library's on this command line.
pub fn flag(input: chompute::Input) -> String {
    use chompute::Input as I;
    match input {
        I::Window => "--window",
        I::CellSize | I::PixelsPerPosition | I::SectionScale => "--scale",
        I::Fit => "--fit",
        I::Shade => "--shade",
        I::Colours => "--colors",
        I::TileSize => "--tile-size",
        I::Output => "-o",
        I::Dzi => "--dzi",
        I::Tiles => "--tiles",
        I::Shard => "--shard",
        I::PlaneRows => "--rows",
        I::FirstRow => "--first-row",
        I::SectionHeight => "--m",
        I::Method => "--method",
        I::Backend => "--backend",
        I::Expression => "--f",
        I::Pass => "--pass",
        I::Players => "--players",
        I::Claim => "--claim",
        I::Memory => "--memory",
        I::Part => "--part",
        I::ValueBytes => "--value-bytes",
        I::Engine => "--engine",
        I::HeapSize | I::MaxCells => "--max",
        I::ListedCells => "--findstat",
        I::Steps => "STEPS",
        I::GpSide => "N",
        other => return other.library_name().to_string(),
    }
    .to_string()
}

/// The error and its causes on one line, in the command line's words: an input of the library
/// is called by its flag's name ([`flag`]), and each cause is said once (a message that
/// already ends with its cause's text, `'x.png': No space left on device`, does not repeat
/// it).
pub fn one_line(e: &anyhow::Error) -> String {
    if let Some(lib) = e.downcast_ref::<chompute::Error>() {
        if lib.input().is_some() {
            return lib.worded(&flag).replace('\n', " ");
        }
    }
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.ends_with(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line.replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_disagreement_exits_with_1() {
        use chompute::Error;
        let io = || std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(exit_code(&Error::CheckFailed("x".into()).into()), 1);
        let wrapped = anyhow::Error::new(Error::CheckFailed("x".into())).context("rendering");
        assert_eq!(exit_code(&wrapped), 1);
        assert_eq!(exit_code(&Error::Interrupted.into()), 130);
        assert_eq!(exit_code(&Error::io("x.png", io()).into()), 2);
        assert_eq!(exit_code(&anyhow::Error::new(io())), 2);
        assert_eq!(exit_code(&anyhow::anyhow!("a tile is missing")), 2);
        assert_eq!(exit_code(&Error::NoAdapter("none".into()).into()), 2);
    }

    #[test]
    fn one_line_says_each_cause_once() {
        let e: anyhow::Error =
            chompute::Error::io("x.png", std::io::Error::other("No space left on device")).into();
        assert_eq!(one_line(&e), "x.png: No space left on device");
        let e = anyhow::anyhow!("inner").context("outer");
        assert_eq!(one_line(&e), "outer: inner");
    }
}
