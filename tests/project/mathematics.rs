//! `docs/mathematics.md` is where the project's mathematics is written down, and the code
//! points at it by section (`docs/mathematics.md §5b`). These tests keep the pointers honest:
//! every reference names a section the page has, the page keeps the section numbers older
//! references use, it cites the three papers by title, and no file still uses the section
//! labels the page replaced.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The page, from the repository root.
const PAGE: &str = "docs/mathematics.md";

/// The papers the page must cite, by title.
const PAPERS: [&str; 3] = [
    "Recursive Patterns in the Chocolate Game",
    "On Multiplayer Chomp Theory",
    "Chocolate Games with a Pass",
];

/// The sections older references were numbered by; the page keeps every one of them.
const KEPT_SECTIONS: [&str; 8] = ["1", "1b", "2", "3", "4", "5", "5b", "6"];

/// What is searched, from the repository root: folders, then single files.
const FOLDERS: [&str; 8] = [
    "src", "python", "tests", "scripts", "benches", "shaders", "examples", "docs",
];
const FILES: [&str; 2] = ["README.md", "build.rs"];

/// Folders never searched: build outputs, environments, caches.
const SKIPPED: [&str; 5] = [
    "target",
    ".venv",
    "__pycache__",
    ".pytest_cache",
    "node_modules",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` (none of [`SKIPPED`]), sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let skipped = path
                .file_name()
                .is_some_and(|n| SKIPPED.iter().any(|s| n == *s));
            if path.is_dir() && !skipped {
                stack.push(path);
            } else if path.is_file() {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// (path from the root, text) of every text file searched; binary files (a NUL byte, or not
/// UTF-8) are skipped.
fn texts() -> Vec<(String, String)> {
    let mut paths: Vec<PathBuf> = FOLDERS
        .iter()
        .flat_map(|d| files_under(&root().join(d)))
        .collect();
    paths.extend(FILES.iter().map(|f| root().join(f)).filter(|p| p.is_file()));
    paths
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            if bytes.contains(&0) {
                return None;
            }
            let text = String::from_utf8(bytes).ok()?;
            let name = p.strip_prefix(root()).unwrap_or(&p).display().to_string();
            Some((name, text))
        })
        .collect()
}

/// The section id at the start of `s` (after its `§`): letters and digits, e.g. `5b`.
fn section_id(s: &str) -> &str {
    let end = s
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(s.len());
    &s[..end]
}

/// The sections of the page: the id after the `§` of every heading.
fn headings(page: &str) -> BTreeSet<String> {
    page.lines()
        .filter(|l| l.starts_with('#'))
        .filter_map(|l| l.split_once('§'))
        .map(|(_, rest)| section_id(rest).to_string())
        .filter(|id| !id.is_empty())
        .collect()
}

/// The sections named by the references in `text`: the `§` id right after `mathematics.md`,
/// and the further ids of a list such as `§4, §6` or `§1–§3` there. (line, id) pairs.
fn references(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (at, _) in line.match_indices("mathematics.md") {
            let mut rest = &line[at + "mathematics.md".len()..];
            loop {
                let trimmed = rest.trim_start_matches([' ', ',', '–', '-']);
                let trimmed = trimmed.strip_prefix("and ").unwrap_or(trimmed);
                let Some(after) = trimmed.strip_prefix('§') else {
                    break;
                };
                let id = section_id(after);
                if id.is_empty() {
                    break;
                }
                out.push((n + 1, id.to_string()));
                rest = &after[id.len()..];
            }
        }
    }
    out
}

fn page() -> String {
    std::fs::read_to_string(root().join(PAGE)).expect("docs/mathematics.md")
}

#[test]
fn no_file_uses_the_replaced_section_labels() {
    // Built in two pieces so this file does not hold what it looks for.
    let needle = concat!("SPEC", " §");
    let found: Vec<String> = texts()
        .iter()
        .flat_map(|(name, text)| {
            text.lines()
                .enumerate()
                .filter(|(_, l)| l.contains(needle))
                .map(move |(n, l)| format!("{name}:{}: {}", n + 1, l.trim()))
        })
        .collect();
    assert!(
        found.is_empty(),
        "{} lines still say `{needle}N`; point them at {PAGE} §N:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn every_reference_names_a_section_the_page_has() {
    let sections = headings(&page());
    let mut count = 0;
    let mut missing = Vec::new();
    for (name, text) in texts() {
        for (line, id) in references(&text) {
            count += 1;
            if !sections.contains(&id) {
                missing.push(format!("{name}:{line}: §{id}"));
            }
        }
    }
    assert!(count >= 20, "only {count} references to {PAGE} found");
    assert!(
        missing.is_empty(),
        "references to sections {PAGE} does not have (it has {sections:?}):\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_page_keeps_the_old_section_numbers() {
    let sections = headings(&page());
    for id in KEPT_SECTIONS {
        assert!(sections.contains(id), "{PAGE} has no heading §{id}");
    }
}

#[test]
fn the_page_cites_the_three_papers_by_title() {
    // A title may be wrapped across lines.
    let page = page().split_whitespace().collect::<Vec<_>>().join(" ");
    for title in PAPERS {
        assert!(page.contains(title), "{PAGE} does not cite “{title}”");
    }
}

#[test]
fn references_are_read_as_written() {
    let text = "see docs/mathematics.md §5b; docs/mathematics.md §4, §6 and (mathematics.md §1–§3)";
    let ids: Vec<String> = references(text).into_iter().map(|(_, id)| id).collect();
    assert_eq!(ids, ["5b", "4", "6", "1", "3"]);
    assert_eq!(
        headings("# x\n## §1 The game\n### §1b Windows\ntext §9\n## Sources"),
        BTreeSet::from(["1".to_string(), "1b".to_string()])
    );
}
