//! Where the process concerns live: the library folders hold no signal handling, exit calls or
//! progress bars (the binary has those), and the Python package's lock file names none of the
//! server's or the binary's crates, so the wheel cannot link them.

use std::path::Path;

/// The library folders that must not touch the process or draw.
const LIBRARY: [&str; 5] = ["chocolate", "pass", "chomp", "render", "gpu"];

/// What only the binary may use.
const PROCESS_ONLY: [&str; 3] = ["process::exit", "ctrlc", "indicatif"];

/// Crates the Python module must not link: the server's and the binary's.
const NOT_IN_PYTHON: [&str; 6] = ["axum", "tokio", "hyper", "tower", "indicatif", "ctrlc"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The `name = "…"` of every `[[package]]` of a Cargo.lock.
fn locked_packages(lock: &str) -> Vec<&str> {
    lock.split("[[package]]")
        .filter_map(|p| {
            p.lines()
                .find_map(|l| l.strip_prefix("name = \"")?.strip_suffix('"'))
        })
        .collect()
}

#[test]
fn no_library_folder_exits_handles_signals_or_draws() {
    let mut offences = Vec::new();
    for folder in LIBRARY {
        let files = crate::function_length::rust_files(&root().join("src").join(folder));
        assert!(!files.is_empty(), "src/{folder} has no Rust files");
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for (n, line) in text.lines().enumerate() {
                for word in PROCESS_ONLY {
                    if line.contains(word) {
                        offences.push(format!("{}:{}: {word}", f.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}

#[test]
fn the_python_package_locks_no_server_or_binary_crate() {
    let lock = std::fs::read_to_string(root().join("python/Cargo.lock")).unwrap();
    let names = locked_packages(&lock);
    assert!(
        names.contains(&"chompute"),
        "python/Cargo.lock names chompute"
    );
    assert!(names.contains(&"pyo3"), "python/Cargo.lock names pyo3");
    let found: Vec<&&str> = names.iter().filter(|n| NOT_IN_PYTHON.contains(n)).collect();
    assert!(found.is_empty(), "python/Cargo.lock locks {found:?}");
}

#[test]
fn the_root_lock_does_name_them() {
    // The same reading of the root crate's lock finds the server's crates, so the test above
    // cannot pass by reading nothing.
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap();
    let names = locked_packages(&lock);
    for want in ["axum", "tokio", "indicatif", "ctrlc"] {
        assert!(names.contains(&want), "Cargo.lock names {want}");
    }
}
