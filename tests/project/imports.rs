//! The Chomp engine's files import downward only: among the files of src/chomp/ (their code
//! before `#[cfg(test)]`, comments left out; a `mod.rs` only declares and re-exports), the references of
//! `super::…` and `crate::chomp::…` paths form no cycle, so no two files import each other.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every .rs file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under src/: `chomp/two_player/colex_parents.rs` is
/// `["chomp", "two_player", "colex"]`, a `mod.rs` its folder's.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The file a module path names, when it is a file of its own (not a `mod.rs`): the longest
/// prefix of `path` that is one.
fn file_of(src: &Path, path: &[String]) -> Option<PathBuf> {
    (1..=path.len()).rev().find_map(|n| {
        let f = src.join(path[..n].join("/")).with_extension("rs");
        if f.is_file() {
            Some(f)
        } else if src.join(path[..n].join("/")).join("mod.rs").is_file() {
            // A folder: what it re-exports is not an edge of this file's own.
            Some(PathBuf::new())
        } else {
            None
        }
    })
}

/// The paths a file's code (before its tests) names through `super::` or `crate::chomp::`,
/// resolved to module paths.
fn references(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let code = code.split("#[cfg(test)]").next().unwrap_or("");
    // Comments (doc links included) name modules without importing them.
    let code: String = code
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let code = code.as_str();
    let mut out = Vec::new();
    for (start, _) in code.match_indices(['s', 'c']) {
        let rest = &code[start..];
        let (mut path, tail) = if let Some(t) = rest.strip_prefix("super::") {
            // `super` of a file is its folder's module.
            (module[..module.len() - 1].to_vec(), t)
        } else if let Some(t) = rest.strip_prefix("crate::chomp::") {
            (vec!["chomp".to_string()], t)
        } else {
            continue;
        };
        if start > 0 && code.as_bytes()[start - 1].is_ascii_alphanumeric() {
            continue;
        }
        for seg in tail.split("::") {
            let name: String = seg
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_lowercase()) {
                break;
            }
            path.push(name.clone());
            if name.len() != seg.len() {
                break;
            }
        }
        out.push(path);
    }
    out
}

#[test]
fn no_two_files_of_the_chomp_engine_import_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src.join("chomp"), &mut files);
    assert!(files.len() > 20, "the engine's files are found");
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for file in &files {
        if file.file_name().is_some_and(|n| n == "mod.rs") {
            continue;
        }
        let code = std::fs::read_to_string(file).unwrap();
        let module = module_of(&src, file);
        let mut to = BTreeSet::new();
        for path in references(&code, &module) {
            if let Some(target) = file_of(&src, &path) {
                if !target.as_os_str().is_empty() && &target != file {
                    to.insert(target);
                }
            }
        }
        edges.insert(file.clone(), to);
    }
    // Pairs first, named plainly; then any longer cycle.
    for (a, tos) in &edges {
        for b in tos {
            assert!(
                !edges.get(b).is_some_and(|t| t.contains(a)),
                "{} and {} import each other",
                a.display(),
                b.display()
            );
        }
    }
    fn visit(
        f: &PathBuf,
        edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        state: &mut BTreeMap<PathBuf, u8>,
        stack: &mut Vec<PathBuf>,
    ) {
        match state.get(f) {
            Some(2) => return,
            Some(1) => {
                let names: Vec<String> = stack.iter().map(|p| p.display().to_string()).collect();
                panic!("an import cycle: {} -> {}", names.join(" -> "), f.display());
            }
            _ => {}
        }
        state.insert(f.clone(), 1);
        stack.push(f.clone());
        for g in edges.get(f).into_iter().flatten() {
            visit(g, edges, state, stack);
        }
        stack.pop();
        state.insert(f.clone(), 2);
    }
    let mut state = BTreeMap::new();
    for f in edges.keys() {
        visit(f, &edges, &mut state, &mut Vec::new());
    }
    // The check sees imports at all: the forward solver's markers import it.
    let colex = src.join("chomp/two_player/colex_parents.rs");
    assert!(edges[&colex].contains(&src.join("chomp/two_player/forward.rs")));
}

/// The layer of a file of src/chomp: what it may import is at its layer or below.
fn layer(src: &Path, file: &Path) -> usize {
    let rel = file.strip_prefix(src.join("chomp")).unwrap();
    let top = rel.iter().next().unwrap().to_string_lossy().into_owned();
    match top.as_str() {
        "diagram.rs" => 0,
        "bits.rs" => 1,
        "index" => 2,
        "store" => 3,
        "engine" => 4,
        "two_player" => 5,
        "multiplayer" => 6,
        // saved.rs opens every kind; mod.rs names them all.
        _ => 7,
    }
}

#[test]
fn the_chomp_folders_import_in_their_order_mod_files_included() {
    // diagram ← bits ← index ← store (the container every table kind shares) ← engine (the
    // steps, the driver, the one run lifecycle) ← two_player ← multiplayer ← saved (every
    // kind opened): a folder never imports one above it, so the store and the engine know no
    // kind and the kinds share them.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src.join("chomp"), &mut files);
    let mut checked = 0;
    for file in &files {
        let code = std::fs::read_to_string(file).unwrap();
        let module = module_of(&src, file);
        // A mod.rs is its folder's module: its `super::` is the folder above.
        let module = match file.file_name().is_some_and(|n| n == "mod.rs") {
            true => {
                let mut m = module.clone();
                m.push("mod".into());
                m
            }
            false => module,
        };
        for path in references(&code, &module) {
            let Some(target) = file_of(&src, &path).filter(|t| !t.as_os_str().is_empty()) else {
                continue;
            };
            checked += 1;
            assert!(
                layer(&src, &target) <= layer(&src, file),
                "{} imports {}, a folder above it",
                file.display(),
                target.display()
            );
        }
    }
    assert!(checked > 50, "the references are found ({checked})");
    // The mathematics never imports the GPU side: a device enters through a trait defined
    // here and implemented in src/gpu/ (device.rs's `ChompDevice`).
    for file in &files {
        let code = std::fs::read_to_string(file).unwrap();
        let code = code.split("#[cfg(test)]").next().unwrap_or("");
        for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
            assert!(
                !line.contains("crate::gpu"),
                "{} imports the GPU side: {line}",
                file.display()
            );
        }
    }
    // Nothing of the store or the engine names a table kind.
    for file in files.iter().filter(|f| matches!(layer(&src, f), 3 | 4)) {
        let code = std::fs::read_to_string(file).unwrap();
        for kind in ["two_player", "multiplayer", "saved"] {
            assert!(
                !code.contains(&format!("chomp::{kind}")),
                "{} names {kind}",
                file.display()
            );
        }
    }
}
