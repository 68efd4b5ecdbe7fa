//! Two-player tables solved in blocks, as a user runs them: `chomp solve --memory`, `--part`
//! and `--plan` (the library's own tests are in `src/chomp/two_player/blocks.rs`).

use crate::common::{assert_usage_error, chompute, scratch_dir, stdout};

fn solve(dir: &std::path::Path, name: &str, extra: &[&str], shape: &str) -> Vec<u8> {
    let out = dir.join(name);
    let mut args = vec![
        "chomp",
        "solve",
        "--box",
        shape,
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = chompute(&args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        crate::common::stderr(&o)
    );
    std::fs::read(&out).unwrap()
}

#[test]
fn a_table_solved_in_blocks_is_the_in_memory_file() {
    let dir = scratch_dir("blocks-identical");
    // Squares (the hook index) and boxes that are not square (the colex rank, in windows).
    for (shape, memory) in [
        ("14x14", "2M"),
        ("16x16", "20M"),
        ("11x15", "200K"),
        ("15x11", "200K"),
    ] {
        let whole = solve(&dir, &format!("{shape}.tbl"), &[], shape);
        let out = dir.join(format!("{shape}-{memory}.tbl"));
        let o = chompute(&[
            "chomp",
            "solve",
            "--box",
            shape,
            "-o",
            out.to_str().unwrap(),
            "--memory",
            memory,
            "--json",
        ]);
        assert!(o.status.success());
        let report: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert!(
            report["blocks"].as_u64().unwrap() >= 2,
            "{shape} at {memory}: {report}"
        );
        assert_eq!(std::fs::read(&out).unwrap(), whole, "{shape} at {memory}");
        assert!(!dir.join(format!("{shape}-{memory}.tbl.blocks")).exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn parts_of_every_wave_then_a_plain_run_give_the_one_process_file() {
    let dir = scratch_dir("blocks-parts");
    let whole = solve(&dir, "one.tbl", &[], "12x12");
    let out = dir.join("parts.tbl");
    let o = out.to_str().unwrap();
    let plan = chompute(&[
        "chomp", "solve", "--box", "12x12", "-o", o, "--memory", "200K", "--part", "1/3", "--plan",
        "--json",
    ]);
    let plan: serde_json::Value = serde_json::from_str(&stdout(&plan)).unwrap();
    let waves = plan["waves"].as_array().unwrap().len() as u64;
    assert_eq!(waves, 24);
    for w in 1..=waves {
        for part in ["1/3", "2/3", "3/3"] {
            let r = chompute(&[
                "chomp", "solve", "--box", "12x12", "-o", o, "--memory", "200K", "--part", part,
                "--json",
            ]);
            assert!(
                r.status.success(),
                "{w} {part}: {}",
                crate::common::stderr(&r)
            );
            let r: serde_json::Value = serde_json::from_str(&stdout(&r)).unwrap();
            assert_eq!(r["wave"].as_u64(), Some(w), "{part}: {r}");
            assert_eq!(r["waves"].as_u64(), Some(waves));
        }
        assert!(!out.exists(), "a part never writes the table");
    }
    let last = solve(&dir, "parts.tbl", &["--memory", "200K"], "12x12");
    assert_eq!(last, whole);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_block_requests_are_one_line() {
    let dir = scratch_dir("blocks-bad");
    let o = dir.join("t.tbl");
    let o = o.to_str().unwrap();
    assert_usage_error(
        &chompute(&[
            "chomp", "solve", "--box", "14x14", "-o", o, "--memory", "1K",
        ]),
        "below the smallest block: 96.0 KiB works",
    );
    assert_usage_error(
        &chompute(&[
            "chomp", "solve", "--box", "13x14", "-o", o, "--memory", "200K", "--part", "1/2",
        ]),
        "only a square's table splits into waves",
    );
    assert_usage_error(
        &chompute(&["chomp", "solve", "--box", "14x14", "--memory", "200K"]),
        "name a table file with -o to solve it in blocks",
    );
    assert_usage_error(
        &chompute(&["chomp", "solve", "--box", "14x14", "--part", "1/2"]),
        "--output",
    );
    assert_usage_error(
        &chompute(&["chomp", "solve", "--box", "14x14", "-o", o, "--part", "3/2"]),
        "is not a part I/N",
    );
    assert_usage_error(
        &chompute(&[
            "chomp", "solve", "--box", "14x14", "-o", o, "--memory", "6Q",
        ]),
        "not a size such as 512M",
    );
    // A GPU table file the host cannot hold is refused before any GPU is asked.
    assert_usage_error(
        &chompute(&[
            "--backend",
            "gpu",
            "chomp",
            "solve",
            "--box",
            "20x20",
            "-o",
            o,
            "--memory",
            "1G",
        ]),
        "solve it without a table file and read its winning bites on the device",
    );
    assert!(!std::path::Path::new(o).exists());
    let _ = std::fs::remove_dir_all(&dir);
}
