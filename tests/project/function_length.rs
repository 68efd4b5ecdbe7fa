//! No function in `src/` is longer than 150 lines: a long function is split by meaning (a
//! registry of named claims, a plan and its steps), so each piece can be read and tested
//! alone. The length runs from the `fn` keyword to the closing brace (doc comments and
//! attributes aside); methods, trait methods, nested functions and test functions count, and
//! so do closures, as part of the function that holds them.

use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The most lines a function of `src/` may have.
const MAX_LINES: usize = 150;

/// Long functions whose reshaping is under way (`cmd/ca.rs::run`'s run loop, frames, mesh and
/// verification move into the library's automaton run): reported, not failed. An entry that
/// is no longer long fails the test, so the list empties as the reshaping lands.
const PENDING: [(&str, &str); 0] = [];

/// Every `.rs` file under `dir`, sorted.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    files_with_extension(dir, "rs")
}

/// Every file under `dir` whose name ends in `.EXT`, sorted.
pub fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// (name, first line, lines) of every function in a file.
#[derive(Default)]
struct Functions(Vec<(String, usize, usize)>);

impl Functions {
    fn add(&mut self, name: &syn::Ident, fn_token: &syn::token::Fn, body: &syn::Block) {
        let first = fn_token.span.start().line;
        let last = body.brace_token.span.close().end().line;
        self.0.push((name.to_string(), first, last - first + 1));
    }
}

impl<'ast> Visit<'ast> for Functions {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.add(&f.sig.ident, &f.sig.fn_token, &f.block);
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.add(&f.sig.ident, &f.sig.fn_token, &f.block);
        syn::visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(body) = &f.default {
            self.add(&f.sig.ident, &f.sig.fn_token, body);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

/// (file, name, first line, lines) of every function of `src/`.
fn functions_of_src() -> Vec<(String, String, usize, usize)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    for path in rust_files(&root.join("src")) {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut fns = Functions::default();
        fns.visit_file(&file);
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        all.extend(
            fns.0
                .into_iter()
                .map(|(n, l, len)| (rel.clone(), n, l, len)),
        );
    }
    all
}

#[test]
fn no_function_in_src_is_longer_than_150_lines() {
    let all = functions_of_src();
    // The visitor sees the functions: a file's count is not zero, and lengths are measured.
    assert!(all.len() > 500, "only {} functions found", all.len());
    assert!(all.iter().any(|f| f.1 == "main" && f.0 == "src/main.rs"));
    let (pending, long): (Vec<_>, Vec<_>) = all
        .iter()
        .filter(|f| f.3 > MAX_LINES)
        .partition(|f| PENDING.contains(&(f.0.as_str(), f.1.as_str())));
    for (file, name, line, len) in &pending {
        eprintln!("pending: {file}:{line} fn {name} is {len} lines (being reshaped)");
    }
    for (file, name) in PENDING {
        assert!(
            pending.iter().any(|f| f.0 == file && f.1 == name),
            "{file}: fn {name} is no longer over {MAX_LINES} lines: remove it from PENDING"
        );
    }
    let named: Vec<String> = long
        .iter()
        .map(|(file, name, line, len)| format!("{file}:{line} fn {name}: {len} lines"))
        .collect();
    assert!(
        named.is_empty(),
        "functions over {MAX_LINES} lines; split them by meaning:\n{}",
        named.join("\n")
    );
}

#[test]
fn lengths_count_from_fn_to_the_closing_brace() {
    let text = "/// doc\n#[inline]\npub fn f() {\n    let c = || {\n        1\n    };\n}\n\nimpl S {\n    fn g(&self) {}\n}\n";
    let mut fns = Functions::default();
    fns.visit_file(&syn::parse_file(text).unwrap());
    assert_eq!(fns.0, [("f".to_string(), 3, 5), ("g".to_string(), 10, 1)]);
}

/// Every module of the library, the binary and the Python extension says in its doc where its
/// tests are: a `//! Tests:` paragraph whose files exist.
#[test]
fn every_module_doc_names_where_its_tests_are() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut missing = Vec::new();
    let mut dangling = Vec::new();
    for dir in ["src", "python/src"] {
        for file in files_with_extension(&root.join(dir), "rs") {
            let text = std::fs::read_to_string(&file).unwrap();
            let doc: Vec<&str> = text.lines().take_while(|l| l.starts_with("//!")).collect();
            let Some(at) = doc.iter().position(|l| l.starts_with("//! Tests:")) else {
                missing.push(file.strip_prefix(root).unwrap().display().to_string());
                continue;
            };
            let para: String = doc[at..]
                .iter()
                .take_while(|l| l.len() > 3)
                .map(|l| &l[4..])
                .collect::<Vec<_>>()
                .join(" ");
            for word in para.split([' ', ',', ';', '(', ')', '`']) {
                let word = word.trim_end_matches(['.', ':']);
                let named = word.starts_with("tests/")
                    || word.starts_with("python/tests/")
                    || word.starts_with("src/")
                    || word.starts_with("scripts/")
                    || word.starts_with("benches/");
                if named && !root.join(word).exists() {
                    dangling.push(format!("{}: {word}", file.display()));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "module docs without a Tests: line: {missing:?}"
    );
    assert!(
        dangling.is_empty(),
        "Tests: lines naming no file: {dangling:?}"
    );
}
