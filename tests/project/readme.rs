//! Every ```console example of README.md and of the pages under docs/ (the guide, the formats),
//! run through the built binary and compared with what the page shows, so the documentation
//! cannot drift from what chompute prints; and the documentation's own shape: a short README,
//! a guide with a page per command family, and relative links that lead somewhere.
//!
//! - A line `$ chompute …` is a command; the lines after it, up to the next `$ ` or the end of
//!   the block, are what it prints (stdout, then stderr). Commands run with bash (so pipes such
//!   as `| head -3` work) in a fresh temporary directory holding `docs/img/`, with the built
//!   `chompute` first on PATH and `CHOMPUTE_BACKEND=cpu`, so the output does not depend on the
//!   machine's GPU. Each must exit with status 0 (`pipefail`), or with the status a trailing
//!   comment names (`$ chompute cout 5   # exit status 2`).
//! - Numbers that change from run to run are masked on both sides before comparing, by one
//!   rule: a timing is a number followed by ` s` (`0.031 s`), a number in JSON under a key
//!   that names seconds (`"seconds":0.0004`), or a decimal in the `seconds` column of a table
//!   (right-aligned: it ends where the header's `seconds` ends) or of a CSV header, in either
//!   notation (`1.5e-6` too); a rate is any other number in e-notation (`2.07e10`). Spaces
//!   before a masked number are collapsed, so column widths do not matter there.
//! - A block that cannot run in a test is marked on the line before it with
//!   `<!-- readme-test: skip: REASON -->`; the reason is required and the skipped blocks are
//!   listed on stderr. No page has one at present: the examples are sized to run in seconds.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One `$ command` and the lines README shows under it.
struct Example {
    line: usize,
    command: String,
    expected: Vec<String>,
    /// The exit status README names (`# exit status N`), else 0.
    status: i32,
}

/// The console examples of README, and the skipped blocks as (line, reason).
fn examples(readme: &str) -> (Vec<Example>, Vec<(usize, String)>) {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let lines: Vec<&str> = readme.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "```console" {
            i += 1;
            continue;
        }
        let marker = lines[..i]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .and_then(|l| l.trim().strip_prefix("<!-- readme-test: skip"));
        let start = i + 1;
        let end = (start..lines.len())
            .find(|&k| lines[k].trim() == "```")
            .unwrap_or_else(|| panic!("README line {}: unclosed console block", i + 1));
        if let Some(rest) = marker {
            let reason = rest
                .trim_start_matches(':')
                .trim_end_matches("-->")
                .trim()
                .to_string();
            assert!(
                !reason.is_empty(),
                "README line {i}: a skip marker needs a reason"
            );
            skipped.push((i + 1, reason));
        } else {
            for (k, line) in lines.iter().enumerate().take(end).skip(start) {
                if let Some(cmd) = line.strip_prefix("$ ") {
                    assert!(
                        cmd.starts_with("chompute "),
                        "README line {}: console examples run chompute: {cmd}",
                        k + 1
                    );
                    let status = cmd
                        .rsplit_once("# exit status ")
                        .map(|(_, n)| {
                            n.trim().parse().unwrap_or_else(|_| {
                                panic!("README line {}: bad exit status '{n}'", k + 1)
                            })
                        })
                        .unwrap_or(0);
                    out.push(Example {
                        line: k + 1,
                        command: cmd.to_string(),
                        expected: Vec::new(),
                        status,
                    });
                } else {
                    let e = out.last_mut().unwrap_or_else(|| {
                        panic!("README line {}: output before any `$ ` command", k + 1)
                    });
                    e.expected.push(line.to_string());
                }
            }
        }
        i = end + 1;
    }
    (out, skipped)
}

/// The number starting at byte `i` of `s` (digits, an optional fraction, an optional
/// exponent), if one starts there and is not part of a word; returns its end and whether it
/// has an exponent.
fn number_at(s: &[u8], i: usize) -> Option<(usize, bool)> {
    if !s[i].is_ascii_digit() || (i > 0 && (s[i - 1].is_ascii_alphanumeric() || s[i - 1] == b'.')) {
        return None;
    }
    let digits = |mut k: usize| {
        while k < s.len() && s[k].is_ascii_digit() {
            k += 1;
        }
        k
    };
    let mut end = digits(i);
    if end + 1 < s.len() && s[end] == b'.' && s[end + 1].is_ascii_digit() {
        end = digits(end + 1);
    }
    let mut exp = false;
    if end < s.len() && s[end] == b'e' {
        let k = if end + 1 < s.len() && (s[end + 1] == b'+' || s[end + 1] == b'-') {
            end + 2
        } else {
            end + 1
        };
        if k < s.len() && s[k].is_ascii_digit() {
            end = digits(k);
            exp = true;
        }
    }
    if end < s.len() && (s[end].is_ascii_alphabetic() && !exp) {
        return None; // 3x10, 2nd: part of a word
    }
    Some((end, exp))
}

/// Whether the number at byte `i` is a JSON value under a key naming seconds.
fn json_seconds(s: &str, i: usize) -> bool {
    let before = &s[..i];
    let Some(key_end) = before.strip_suffix("\":") else {
        return false;
    };
    let key = &key_end[key_end.rfind('"').map_or(0, |k| k + 1)..];
    key.contains("second")
}

/// A line with its run-dependent numbers masked (see the module comment); `seconds_end`, the
/// character column where a table header's `seconds` ends, masks a decimal ending there.
fn mask(line: &str, seconds_end: Option<usize>) -> String {
    let bytes = line.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < bytes.len() {
        if let Some((end, exp)) = number_at(bytes, i) {
            let rest = &line[end..];
            let after_s = rest
                .strip_prefix(" s")
                .is_some_and(|r| !r.starts_with(|c: char| c.is_alphanumeric()));
            let is_decimal = line[i..end].contains('.');
            let column = is_decimal && seconds_end == Some(line[..end].chars().count());
            // A time is a time in whichever notation it is printed (`0.000044` or `1.5e-6`).
            let masked = if after_s || json_seconds(line, i) || column {
                Some("<time>")
            } else if exp {
                Some("<rate>")
            } else {
                None
            };
            if let Some(m) = masked {
                while out.ends_with("  ") {
                    out.pop();
                }
                out.push_str(m);
            } else {
                out.push_str(&line[i..end]);
            }
            i = end;
        } else {
            let c = line[i..].chars().next().expect("in bounds");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out.trim_end().to_string()
}

/// Every line masked, with the `seconds` column rule applied under a header that has one.
fn mask_all(lines: &[String]) -> Vec<String> {
    let mut seconds_end = None;
    let mut csv_seconds = None;
    let mut out: Vec<String> = lines
        .iter()
        .map(|l| {
            let m = match csv_seconds {
                Some(k) => mask(&mask_csv_field(l, k), seconds_end),
                None => mask(l, seconds_end),
            };
            if let Some(k) = seconds_column_end(l) {
                seconds_end = Some(k);
            }
            if l.contains(',') {
                csv_seconds = l.split(',').position(|f| f == "seconds").or(csv_seconds);
            }
            m
        })
        .collect();
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

/// Where the word `seconds` ends (in characters) when `line` is a table header naming it.
fn seconds_column_end(line: &str) -> Option<usize> {
    let mut at = 0;
    for word in line.split(' ') {
        at += word.chars().count();
        if word == "seconds" {
            return Some(at);
        }
        at += 1;
    }
    None
}

/// A CSV row with its field `k` (a `seconds` column; fields before it are unquoted) masked
/// when it is a decimal.
fn mask_csv_field(line: &str, k: usize) -> String {
    let fields: Vec<&str> = line.splitn(k + 2, ',').collect();
    match fields.get(k) {
        Some(f)
            if !fields[..k].iter().any(|f| f.contains('"'))
                && f.contains('.')
                && f.chars().all(|c| c.is_ascii_digit() || c == '.') =>
        {
            let mut out = fields.clone();
            out[k] = "<time>";
            out.join(",")
        }
        _ => line.to_string(),
    }
}

fn scratch(name: &str) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("chompute-readme-{name}-"))
        .tempdir()
        .expect("scratch directory");
    std::fs::create_dir_all(dir.path().join("docs/img")).expect("scratch directory");
    dir
}

/// Run one example in `dir`: its stdout then stderr, as lines, and its exit status.
fn run(example: &Example, dir: &Path) -> (Vec<String>, Option<i32>) {
    let bin = Path::new(env!("CARGO_BIN_EXE_chompute"));
    let path = match std::env::var_os("PATH") {
        Some(p) => {
            let mut dirs = vec![bin.parent().expect("binary directory").to_path_buf()];
            dirs.extend(std::env::split_paths(&p));
            std::env::join_paths(dirs).expect("PATH")
        }
        None => bin
            .parent()
            .expect("binary directory")
            .as_os_str()
            .to_owned(),
    };
    let xdg = dir.join(".xdg");
    let _ = std::fs::create_dir_all(&xdg);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&xdg, std::fs::Permissions::from_mode(0o700));
    }
    let o = Command::new("bash")
        .args(["-o", "pipefail", "-c", &example.command])
        .current_dir(dir)
        .env("PATH", path)
        .env("CHOMPUTE_BACKEND", "cpu")
        .env("XDG_RUNTIME_DIR", &xdg)
        .output()
        .expect("run bash");
    let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&o.stderr));
    (text.lines().map(str::to_string).collect(), o.status.code())
}

#[test]
fn every_console_example_prints_what_readme_shows() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let (examples, skipped) = examples(&readme);
    // One short example for each command family (the guide has the rest).
    assert!(
        examples.len() >= 8,
        "only {} console examples found",
        examples.len()
    );
    for (line, reason) in &skipped {
        eprintln!("README line {line}: console block skipped: {reason}");
    }
    let dir = scratch("examples");
    let mut failures = Vec::new();
    for e in &examples {
        let (actual, status) = run(e, dir.path());
        let (want, got) = (mask_all(&e.expected), mask_all(&actual));
        let ok = status == Some(e.status);
        if !ok || want != got {
            failures.push(format!(
                "README line {}: $ {}\n{}--- README shows:\n{}\n--- chompute prints:\n{}\n",
                e.line,
                e.command,
                if ok {
                    String::new()
                } else {
                    format!("(exit status {status:?}, not {})\n", e.status)
                },
                e.expected.join("\n"),
                actual.join("\n")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} README examples differ:\n\n{}",
        failures.len(),
        examples.len(),
        failures.join("\n")
    );
}

#[test]
fn every_console_example_of_the_docs_prints_what_they_show() {
    let dir = scratch("doc-examples");
    let mut failures = Vec::new();
    let mut count = 0;
    let docs = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/docs"));
    for page in crate::function_length::files_with_extension(&docs, "md") {
        let text = std::fs::read_to_string(&page).expect("a docs page");
        let (examples, skipped) = examples(&text);
        for (line, reason) in &skipped {
            eprintln!(
                "{} line {line}: console block skipped: {reason}",
                page.display()
            );
        }
        for e in &examples {
            count += 1;
            let (actual, status) = run(e, dir.path());
            let (want, got) = (mask_all(&e.expected), mask_all(&actual));
            if status != Some(e.status) || want != got {
                failures.push(format!(
                    "{} line {}: $ {} (exit status {status:?})\n--- it shows:\n{}\n--- chompute prints:\n{}\n",
                    page.display(),
                    e.line,
                    e.command,
                    e.expected.join("\n"),
                    actual.join("\n")
                ));
            }
        }
    }
    // Every example the one-page README had now lives in the guide.
    assert!(count >= 50, "only {count} console examples in docs/");
    assert!(
        failures.is_empty(),
        "{} of {count} docs examples differ:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn masking_hides_only_run_dependent_numbers() {
    assert_eq!(
        mask("  cpu     5122401    0.033336 s", None),
        "  cpu     5122401 <time> s"
    );
    assert_eq!(
        mask(
            "16383 steps in 70.652 s on the CPU: 2.075e10 cell updates/s",
            None
        ),
        "16383 steps in <time> s on the CPU: <rate> cell updates/s"
    );
    assert_eq!(
        mask(r#"{"count":"5","seconds":0.000369,"m":"4"}"#, None),
        r#"{"count":"5","seconds":<time>,"m":"4"}"#
    );
    // A quick run prints its seconds in e-notation; it is still a time, not a rate.
    assert_eq!(
        mask(r#"{"method":"digits","seconds":1.512e-6}"#, None),
        mask(r#"{"method":"digits","seconds":0.000044046}"#, None)
    );
    assert_eq!(mask("took 2.5e-7 s", None), "took <time> s");
    // Exact numbers stay: sizes, counts, boxes, fractions of the octahedron, rules.
    for exact in [
        "box 3x10: 286 positions",
        "H_{3,5.5}: 176×176 pixels",
        "rule 0,1,2 (normalised from 10,20,30)",
        "5 steps, 55 rules",
    ] {
        assert_eq!(mask(exact, None), exact);
    }
    let table = [
        "claim   checked result   seconds".to_string(),
        "sum-odd      49   pass     0.003".to_string(),
    ];
    assert_eq!(mask_all(&table)[1], "sum-odd      49   pass <time>");
    // The claim report: the seconds column comes before the range and statement.
    let claims = [
        "claim    kind      result   checked    seconds  range: statement".to_string(),
        "Lemma 6  theorem   pass         169      0.012  0 <= x,y < 13: G_P(x,y) = 0 iff ..."
            .to_string(),
    ];
    let csv = [
        "name,kind,result,checked,seconds,range".to_string(),
        "Lemma 6,theorem,pass,169,0.000003,\"0 <= x,y < 13\"".to_string(),
    ];
    assert_eq!(
        mask_all(&csv)[1],
        "Lemma 6,theorem,pass,169,<time>,\"0 <= x,y < 13\""
    );
    assert_eq!(
        mask_all(&claims)[1],
        "Lemma 6  theorem   pass         169 <time>  0 <= x,y < 13: G_P(x,y) = 0 iff ..."
    );
}

#[test]
fn skip_markers_need_a_reason() {
    let text = "<!-- readme-test: skip: takes a minute -->\n```console\n$ chompute ca 16383\nout\n```\n```console\n$ chompute count 4\n16\n$ chompute cout   # exit status 2\nerr\n```\n";
    let (ex, skipped) = examples(text);
    assert_eq!(skipped, vec![(2, "takes a minute".to_string())]);
    assert_eq!(ex.len(), 2);
    assert_eq!(ex[0].command, "chompute count 4");
    assert_eq!(
        (ex[0].expected.clone(), ex[0].status),
        (vec!["16".to_string()], 0)
    );
    assert_eq!(
        (ex[1].expected.clone(), ex[1].status),
        (vec!["err".to_string()], 2)
    );
}

/// A file of the repository, as text.
fn repo_file(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The quoted value of `key = "…"` in a TOML file's text.
fn toml_value(text: &str, key: &str) -> Option<String> {
    text.lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix(key)?
                .trim()
                .strip_prefix('=')
                .map(str::trim)
        })
        .map(|v| v.trim_matches('"').to_string())
}

/// README.md and every page under docs/, as (path relative to the repository, text).
fn documentation() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![
        ("README.md".to_string(), repo_file("README.md")),
        ("ARCHITECTURE.md".to_string(), repo_file("ARCHITECTURE.md")),
    ];
    for page in crate::function_length::files_with_extension(&root.join("docs"), "md") {
        let name = page
            .strip_prefix(root)
            .expect("inside the repository")
            .to_string_lossy()
            .into_owned();
        pages.push((name.clone(), repo_file(&name)));
    }
    pages
}

/// The lines of a page outside its fenced code blocks, with their line numbers (from 1).
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// The headings of a markdown page (outside code blocks), as written after the `#`s.
fn headings(text: &str) -> Vec<String> {
    prose(text)
        .into_iter()
        .filter(|(_, l)| l.starts_with('#'))
        .map(|(_, l)| l.trim_start_matches('#').trim().to_string())
        .collect()
}

/// The anchors GitHub gives a page's headings: lower case, letters, digits, `-` and `_` kept,
/// spaces made `-`, everything else dropped; a repeated anchor gets `-1`, `-2`, ….
fn anchors(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for h in headings(text) {
        let slug: String = h
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let mut name = slug.clone();
        let mut k = 0;
        while out.contains(&name) {
            k += 1;
            name = format!("{slug}-{k}");
        }
        out.push(name);
    }
    out
}

/// The markdown links and images of a page outside code blocks: (line, target).
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in prose(text) {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((n, after[..end].trim().to_string()));
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn a_newcomer_can_follow_the_first_run_word_for_word() {
    let readme = repo_file("README.md");
    // Without sudo (containers, CI) the install lines work as root; sudo is mentioned.
    for (page, text) in documentation() {
        for (i, line) in text.lines().enumerate() {
            assert!(
                !line.trim_start().starts_with("sudo "),
                "{page} line {}: {line}",
                i + 1
            );
            // The lock file is used: `cargo install` takes --locked.
            if line.trim_start().starts_with("cargo install") {
                assert!(line.contains("--locked"), "{page} line {}: {line}", i + 1);
            }
        }
    }
    assert!(readme.contains("as root, or with sudo"));
    // The first run uses the binary it installed, and shows the test command once, as
    // .ci/run runs it.
    assert!(
        readme.contains("\nchompute serve\n"),
        "README runs the installed serve"
    );
    assert!(
        !readme.contains("cargo run"),
        "README runs the installed binary"
    );
    let test_command = "cargo test --release --no-fail-fast";
    assert_eq!(readme.matches("cargo test").count(), 1, "one test command");
    assert!(readme.contains(&format!("\n{test_command}\n")));
    let ci = repo_file(".ci/run");
    assert!(
        ci.lines().any(|l| l.trim() == test_command),
        ".ci/run runs it"
    );
    // The MSRV is the same everywhere it is stated.
    let msrv = toml_value(&repo_file("Cargo.toml"), "rust-version").expect("an MSRV");
    let python = repo_file("python/Cargo.toml");
    assert_eq!(toml_value(&python, "rust-version"), Some(msrv.clone()));
    assert!(readme.contains(&format!("Rust toolchain ({msrv} or newer")));
    assert!(repo_file("python/README.md").contains(&format!("({msrv} or newer)")));
    let guide = repo_file("docs/guide/python.md");
    assert!(guide.contains(&format!("({msrv} or newer")));
    // matplotlib, which the session imports, is an extra the guide names.
    assert!(guide.contains("import chompute, matplotlib"));
    assert!(guide.contains("'./python[plot]'"));
    let pyproject = repo_file("python/pyproject.toml");
    assert!(
        pyproject.contains("plot = [\"matplotlib\"]"),
        "the plot extra"
    );
    // A wheel built once, and which build directory is the package's; no glob that matches
    // the wheel `pip install ./python` leaves in python/target/wheels too.
    assert!(guide.contains("maturin build --release -m python/Cargo.toml"));
    assert!(guide.contains("python/target"));
    for (page, text) in documentation() {
        assert!(
            !text.contains("target/wheels/chompute-*.whl"),
            "{page}: a wheel glob that can match two wheels"
        );
    }
    // The install line CI runs: the block after the marker, after a fresh virtual environment.
    let marker = "<!-- ci: python-install -->";
    let at = guide
        .find(marker)
        .expect("the guide marks its install block");
    assert_eq!(guide.matches(marker).count(), 1, "one install block");
    let block = guide[at + marker.len()..].trim_start();
    let block = block
        .strip_prefix("```sh\n")
        .expect("a sh block after the marker");
    let block = &block[..block.find("```").expect("a closed block")];
    assert!(block.lines().any(|l| l.starts_with("pip install ./python")));
    let venv = guide
        .find("python3 -m venv")
        .expect("a virtual environment first");
    assert!(
        venv < at,
        "the virtual environment comes before the install line"
    );
    assert!(ci.contains(marker) && ci.contains("docs/guide/python.md"));
    assert!(
        !ci.lines()
            .any(|l| l.contains("pip\" install") && l.contains("./python")),
        ".ci/run installs the package by the guide's lines, not its own"
    );
    // Every section .ci/run cites (`FILE.md, "Heading"`) exists.
    let mut cited = 0;
    for (at, sep) in ci.match_indices(".md, \"") {
        let file = ci[..at]
            .rsplit(|c: char| c.is_whitespace() || c == '(')
            .next()
            .unwrap();
        let rest = &ci[at + sep.len()..];
        let name = &rest[..rest.find('"').unwrap()];
        let file = format!("{file}.md");
        assert!(
            headings(&repo_file(&file)).iter().any(|h| h == name),
            ".ci/run cites {file} section {name:?}"
        );
        cited += 1;
    }
    assert!(cited >= 1, ".ci/run cites README");
}

#[test]
fn completions_and_man_are_in_the_guide_and_work_as_shown() {
    let guide = repo_file("docs/guide/checks-and-output.md");
    for command in [&["completions", "bash"][..], &["man"], &["man", "render"]] {
        let shown = format!("chompute {}", command.join(" "));
        assert!(
            guide.contains(&format!("{shown} >")),
            "the guide shows {shown:?}"
        );
        let o = Command::new(env!("CARGO_BIN_EXE_chompute"))
            .args(command)
            .output()
            .unwrap();
        assert!(o.status.success() && !o.stdout.is_empty(), "{shown}");
    }
    // The folder the completions go into is made first: it need not exist.
    let folder = "~/.local/share/bash-completion/completions";
    let made = guide
        .find(&format!("\nmkdir -p {folder} "))
        .expect("the guide makes the completions folder");
    let written = guide
        .find(&format!("chompute completions bash > {folder}/chompute"))
        .expect("the guide writes the completions there");
    assert!(made < written, "mkdir -p comes first");
    assert!(
        repo_file("README.md").contains("docs/guide/checks-and-output.md"),
        "README links the page"
    );
}

#[test]
fn the_readme_is_short_and_the_guide_has_a_page_per_family() {
    let readme = repo_file("README.md");
    let lines = readme.lines().count();
    assert!(lines <= 200, "README.md has {lines} lines, more than 200");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let guide = root.join("docs/guide");
    let index = repo_file("docs/guide/README.md");
    // The pages README.md and the index link to, as paths inside docs/guide.
    let mut linked = Vec::new();
    for (from, text) in [(root.to_path_buf(), &readme), (guide.clone(), &index)] {
        for (_, target) in links(text) {
            let file = target.split('#').next().unwrap();
            if let Ok(p) = from.join(file).canonicalize() {
                linked.push(p);
            }
        }
    }
    let pages: Vec<PathBuf> = crate::function_length::files_with_extension(&guide, "md")
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    assert!(
        pages.len() >= 8,
        "docs/guide has {} pages besides its index",
        pages.len()
    );
    for page in &pages {
        assert!(
            linked.contains(&page.canonicalize().unwrap()),
            "{} is linked from neither README.md nor docs/guide/README.md",
            page.display()
        );
    }
    for doc in ["ARCHITECTURE.md", "docs/formats.md", "docs/mathematics.md"] {
        assert!(root.join(doc).is_file(), "{doc}");
        assert!(readme.contains(&format!("]({doc})")), "README links {doc}");
    }
}

#[test]
fn every_relative_link_in_the_documentation_leads_to_a_file_that_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    let mut broken = Vec::new();
    for (page, text) in documentation() {
        let dir = root.join(&page).parent().unwrap().to_path_buf();
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, anchor) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let path = if file.is_empty() {
                root.join(&page)
            } else {
                dir.join(file)
            };
            if !path.exists() {
                broken.push(format!("{page} line {line}: {target}: no such file"));
                continue;
            }
            if let (Some(a), true) = (anchor, path.extension().is_some_and(|e| e == "md")) {
                let text = std::fs::read_to_string(&path).unwrap();
                if !anchors(&text).iter().any(|h| h == a) {
                    broken.push(format!("{page} line {line}: {target}: no such heading"));
                }
            }
        }
    }
    assert!(checked >= 50, "only {checked} relative links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_documentation_speaks_only_of_the_project() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    let mut stack = vec![root.join("docs")];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    for file in files {
        // Pictures too: a PNG's Description says what made it.
        let bytes = std::fs::read(&file).unwrap();
        for word in [&b"SPEC"[..], b"../shared"] {
            assert!(
                !bytes.windows(word.len()).any(|w| w == word),
                "{} mentions {}",
                file.display(),
                String::from_utf8_lossy(word)
            );
        }
    }
}

#[test]
fn link_and_anchor_helpers_read_pages_as_github_does() {
    let page = "# Title\n\n## Output files\n```sh\n# not a heading [x](nowhere.md)\n```\n\
                ## `render --tiles`: tiles\n## Output files\nsee [a](b.md#c) and ![i](../img/x.png)\n";
    assert_eq!(
        anchors(page),
        [
            "title",
            "output-files",
            "render---tiles-tiles",
            "output-files-1"
        ]
    );
    assert_eq!(
        links(page),
        [(9, "b.md#c".to_string()), (9, "../img/x.png".to_string())]
    );
    assert_eq!(
        anchors("## §1b Counting any window\n"),
        ["1b-counting-any-window"]
    );
}

#[test]
fn the_line_render_tiles_prints_in_a_pipe_is_the_one_the_guide_documents() {
    let dir = scratch("tiles-line");
    let o = Command::new(env!("CARGO_BIN_EXE_chompute"))
        .args([
            "--backend",
            "cpu",
            "render",
            // Not a power of two: C(2^k) is all P, and render would warn of one colour.
            "96",
            "--tile-size",
            "32",
            "--tiles",
        ])
        .arg(dir.path().join("T"))
        .output()
        .unwrap();
    assert!(o.status.success());
    let line = String::from_utf8_lossy(&o.stderr).trim_end().to_string();
    // The numbers of this run in place of the README's letters.
    let documented =
        "chompute: shard I/N: wrote W tiles, skipped S already complete (T tiles in all)";
    assert!(
        repo_file("docs/guide/clusters.md").contains(documented),
        "the clusters guide documents the line"
    );
    let shape: String = line
        .split(|c: char| c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("#");
    let want: String = documented
        .replace(['I', 'N', 'W', 'S'], "#")
        .replace("(T ", "(# ")
        .split('#')
        .collect::<Vec<_>>()
        .join("#");
    assert_eq!(shape, want, "stderr in a pipe: {line:?}");
}
