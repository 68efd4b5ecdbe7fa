//! The command line as one tool: one name per option, tables as CSV and JSON, picture formats
//! by extension, PNG metadata, b-files, completions and the manual page, progress only on a
//! terminal.

use crate::common;

use common::{assert_usage_error, chompute, json_of, scratch_dir, stderr, stdout};
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

/// The `tEXt`/`iTXt` chunks of a PNG, keyword → text, read back with the png crate.
fn png_text(path: &Path) -> HashMap<String, String> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let decoder = png::Decoder::new(std::io::BufReader::new(file));
    let mut reader = decoder.read_info().unwrap();
    // Text chunks after the image data are read with the rest of the file.
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    reader.next_frame(&mut buf).unwrap();
    let _ = reader.finish();
    let info = reader.info();
    let mut out = HashMap::new();
    for t in &info.uncompressed_latin1_text {
        out.insert(t.keyword.clone(), t.text.clone());
    }
    for t in &info.utf8_text {
        out.insert(t.keyword.clone(), t.get_text().unwrap());
    }
    out
}

fn ok(o: &std::process::Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        stderr(o)
    );
    stdout(o)
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every PNG under `dir` (recursively).
fn pngs_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(pngs_under(&p));
        } else if p.extension().is_some_and(|x| x == "png") {
            out.push(p);
        }
    }
    out
}

#[test]
fn every_png_says_what_made_it() {
    let dir = scratch_dir("png-text");
    let at = |name: &str| dir.join(name);
    let software = format!("chompute {}", env!("CARGO_PKG_VERSION"));
    // (command, files it writes, words the Description must hold)
    let render = at("r.png");
    ok(&chompute(&[
        "render",
        "101",
        "--window",
        "3,5,40,50",
        "--scale",
        "2",
        "--colors",
        "#5b2a86,#f4efe6",
        "-o",
        path_str(&render),
    ]));
    let tiles = at("tiles");
    ok(&chompute(&[
        "render",
        "300",
        "--tiles",
        path_str(&tiles),
        "--tile-size",
        "128",
    ]));
    let assembled = at("a.png");
    ok(&chompute(&[
        "assemble",
        path_str(&tiles),
        "-o",
        path_str(&assembled),
    ]));
    let zoom = at("zoom");
    ok(&chompute(&["render", "200", "--dzi", path_str(&zoom)]));
    let frames = at("frames");
    ok(&chompute(&[
        "ca",
        "20",
        "--frames",
        path_str(&frames),
        "--every",
        "10",
    ]));
    let section = at("o.png");
    ok(&chompute(&[
        "octahedron",
        "3",
        "--m",
        "5.5",
        "-o",
        path_str(&section),
        "--scale",
        "4",
    ]));
    let chomp = at("c.png");
    ok(&chompute(&[
        "chomp",
        "image",
        "--rule",
        "0,1,2",
        "--rows",
        "3",
        "--first-row",
        "10",
        "-o",
        path_str(&chomp),
    ]));
    let nim = at("n.png");
    ok(&chompute(&[
        "nimpass-grid",
        "14",
        "-o",
        path_str(&nim),
        "--scale",
        "2",
    ]));

    let checks: Vec<(Vec<std::path::PathBuf>, Vec<&str>)> = vec![
        (
            vec![render.clone()],
            vec![
                "chompute render 101",
                "C(101,101), window 3,5,40,50",
                "2 pixels per cell",
                "#5b2a86",
                "#f4efe6",
            ],
        ),
        (
            pngs_under(&tiles),
            vec!["chompute render 300", "C(300,300)"],
        ),
        (vec![assembled], vec!["chompute assemble", "C(300,300)"]),
        (pngs_under(&zoom), vec!["--dzi", "C(200,200)"]),
        (pngs_under(&frames), vec!["chompute ca 20", "automaton"]),
        (
            vec![section],
            vec!["octahedron 3", "H_{3,11/2}", "4 pixels per cell"],
        ),
        (
            vec![chomp],
            vec!["chomp image", "rule 0,1,2", "b down, c across"],
        ),
        (
            vec![nim],
            vec!["nimpass-grid 14", "C(14,14)", "2 pixels per cell"],
        ),
    ];
    for (files, words) in checks {
        assert!(!files.is_empty(), "{words:?}: no PNG written");
        for f in files {
            let text = png_text(&f);
            assert_eq!(text.get("Software"), Some(&software), "{}", f.display());
            let d = text
                .get("Description")
                .unwrap_or_else(|| panic!("{}: no Description", f.display()));
            for w in &words {
                assert!(
                    d.contains(w),
                    "{}: Description {d:?} lacks {w:?}",
                    f.display()
                );
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_extension_chooses_the_picture_format() {
    let dir = scratch_dir("formats");
    let png_path = dir.join("r.png");
    ok(&chompute(&[
        "render",
        "77",
        "--scale",
        "3",
        "-o",
        path_str(&png_path),
    ]));
    let want = image::open(&png_path).unwrap().to_luma8();
    // Lossless formats hold the same pixels; JPEG is lossy, so only its size is checked.
    for ext in ["tiff", "tif", "webp", "bmp", "gif", "jpg", "jpeg"] {
        let path = dir.join(format!("r.{ext}"));
        ok(&chompute(&[
            "render",
            "77",
            "--scale",
            "3",
            "-o",
            path_str(&path),
        ]));
        let got = image::open(&path).unwrap_or_else(|e| panic!("{ext}: {e}"));
        assert_eq!((got.width(), got.height()), (231, 231), "{ext}");
        if !ext.starts_with("jp") {
            assert_eq!(got.to_luma8(), want, "{ext}: same pixels as the PNG");
        }
    }
    // Every picture-writing command takes the other formats.
    for (args, name) in [
        (vec!["nimpass-grid", "9"], "n.tiff"),
        (vec!["octahedron", "3", "--m", "5"], "o.bmp"),
        (
            vec!["chomp", "image", "--rule", "0,1", "--first-row", "9"],
            "c.webp",
        ),
    ] {
        let path = dir.join(name);
        let mut full = args.clone();
        full.extend(["-o", path_str(&path)]);
        ok(&chompute(&full));
        assert!(image::open(&path).is_ok(), "{name}");
    }
    // An unknown extension, or none, is refused with exit 2 and no file.
    for name in ["a.xyz", "a.jpg2", "noext"] {
        let path = dir.join(name);
        assert_usage_error(&chompute(&["render", "11", "-o", path_str(&path)]), ".png");
        assert!(!path.exists());
    }
    // Too large for memory: refused before drawing, naming PNG.
    let big = dir.join("big.tiff");
    assert_usage_error(
        &chompute(&["render", "30001", "-o", path_str(&big)]),
        "write .png",
    );
    let wide = dir.join("wide.webp");
    assert_usage_error(
        &chompute(&[
            "render",
            "20000",
            "--window",
            "1,1,2,20000",
            "-o",
            path_str(&wide),
        ]),
        "16383",
    );
    let entries: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(entries.len(), 11, "no stray files: {entries:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn count_range_prints_the_sequence_g() {
    // g(1..12) as the chocolate paper lists them (docs/mathematics.md §1).
    let paper = [1u64, 4, 5, 16, 9, 20, 21, 64, 25, 36, 29, 80];
    let b = ok(&chompute(&["count", "--range", "1..12", "--bfile"]));
    let lines: Vec<String> = b.lines().map(str::to_string).collect();
    let want: Vec<String> = paper
        .iter()
        .enumerate()
        .map(|(k, g)| format!("{} {g}", k + 1))
        .collect();
    assert_eq!(lines, want);
    // CSV has a header; every value equals `count m` (and so the recurrence) one by one.
    let csv = ok(&chompute(&["count", "--range", "999990..1000010", "--csv"]));
    let mut rows = csv.lines();
    assert_eq!(rows.next(), Some("m,g"));
    for row in rows {
        let (m, g) = row.split_once(',').unwrap();
        let single = ok(&chompute(&["count", m, "--method", "histogram"]));
        assert_eq!(single.trim(), g, "g({m})");
    }
    // JSON values are strings (g passes 2^53 near the top of u64).
    let v = json_of(&chompute(&[
        "count",
        "--range",
        "18446744073709551614..18446744073709551615",
        "--json",
    ]));
    assert_eq!(v["from"], "18446744073709551614");
    assert_eq!(v["g"][1], "113427455640312821154458202477256070485");
    // The default text is a table with a header.
    let t = ok(&chompute(&["count", "--range", "7..8"]));
    assert_eq!(t.lines().count(), 3);
    assert!(t.lines().nth(2).unwrap().ends_with("64"));
    assert_usage_error(&chompute(&["count", "--range", "5..2"]), "empty");
    assert_usage_error(&chompute(&["count", "--bfile", "5"]), "--range");
    assert_usage_error(
        &chompute(&["count", "5", "--range", "1..2"]),
        "cannot be used",
    );
    // count's JSON names m and n as strings too.
    let v = json_of(&chompute(&["count", "18446744073709551615", "--json"]));
    assert_eq!(v["m"], "18446744073709551615");
    let csv = ok(&chompute(&["count", "30", "--method", "all", "--csv"]));
    assert_eq!(csv.lines().next(), Some("m,n,method,count,seconds"));
    assert!(csv
        .lines()
        .skip(1)
        .all(|l| l.split(',').nth(3) == Some("340")));
}

#[test]
fn tables_have_csv_with_a_header_and_b_files() {
    let c = ok(&chompute(&["nimpass-grid", "--counts", "5..7", "--csv"]));
    assert_eq!(
        c.lines().collect::<Vec<_>>(),
        ["m,pass_p_cells,nim_p_cells", "5,0,9", "6,8,20", "7,0,21"]
    );
    let b = ok(&chompute(&["nimpass-grid", "--counts", "5..7", "--bfile"]));
    assert_eq!(b.lines().collect::<Vec<_>>(), ["5 0", "6 8", "7 0"]);
    // A picture with --json says what was written.
    let dir = scratch_dir("grid-json");
    let path = dir.join("g.png");
    let v = json_of(&chompute(&[
        "nimpass-grid",
        "6",
        "-o",
        path_str(&path),
        "--json",
    ]));
    assert_eq!(v["picture"]["pass_p_cells"], 8);
    assert_eq!(v["picture"]["nim_p_cells"], 20);
    std::fs::remove_dir_all(&dir).unwrap();

    let b = ok(&chompute(&[
        "chomp",
        "classes",
        "--players",
        "2..5",
        "--box",
        "6x6",
        "--bfile",
    ]));
    assert_eq!(b.lines().collect::<Vec<_>>(), ["2 2", "3 4", "4 7", "5 13"]);
    let v = json_of(&chompute(&[
        "chomp",
        "classes",
        "--players",
        "3..4",
        "--box",
        "6x6",
        "--json",
    ]));
    assert_eq!(v["counts"][1]["classes"], 7);
    // The class counts agree with the classes of one player count.
    let one = json_of(&chompute(&[
        "chomp",
        "classes",
        "--players",
        "4",
        "--box",
        "6x6",
        "--json",
    ]));
    assert_eq!(one["class_count"], 7);
    let csv = ok(&chompute(&[
        "chomp",
        "classes",
        "--players",
        "3",
        "--box",
        "6x6",
        "--csv",
    ]));
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("class,rules,members,ord0,ord1,ord2,ord3")
    );
    assert_eq!(lines.count(), 4);

    let n = ok(&chompute(&[
        "nimpass", "--heaps", "3", "--max", "6", "--list", "--csv",
    ]));
    let mut lines = n.lines();
    assert_eq!(lines.next(), Some("h1,h2,h3"));
    assert_eq!(lines.next(), Some("0,0,0"));
    let n = ok(&chompute(&[
        "nimpass", "--heaps", "2", "--max", "10", "--csv",
    ]));
    assert_eq!(n.lines().next(), Some("heaps,max,p_positions"));

    let bench = ok(&chompute(&[
        "bench",
        "--quick",
        "--csv",
        "--backend",
        "cpu",
    ]));
    let mut lines = bench.lines();
    assert_eq!(
        lines.next(),
        Some("kernel,size,backend,unit,work,seconds,per_second")
    );
    assert!(lines.all(|l| l.contains(",cpu,")));
}

#[test]
fn old_option_names_still_work_but_are_hidden() {
    let dir = scratch_dir("aliases");
    let (a, b) = (dir.join("a.png"), dir.join("b.png"));
    ok(&chompute(&[
        "render",
        "11",
        "--cell",
        "3",
        "-o",
        path_str(&a),
    ]));
    ok(&chompute(&[
        "render",
        "11",
        "--scale",
        "3",
        "-o",
        path_str(&b),
    ]));
    assert_eq!(common::read_bits_png(&a), common::read_bits_png(&b));
    let (a, b) = (dir.join("oa.png"), dir.join("ob.png"));
    ok(&chompute(&[
        "octahedron",
        "2",
        "--m",
        "3",
        "-o",
        path_str(&a),
        "--px",
        "5",
    ]));
    ok(&chompute(&[
        "octahedron",
        "2",
        "--m",
        "3",
        "-o",
        path_str(&b),
        "--scale",
        "5",
    ]));
    assert_eq!(common::read_bits_png(&a), common::read_bits_png(&b));
    let (a, b) = (dir.join("a.stl"), dir.join("b.stl"));
    ok(&chompute(&["octahedron", "2", "--stl", path_str(&a)]));
    ok(&chompute(&["octahedron", "2", "--mesh", path_str(&b)]));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let (a, b) = (dir.join("a.ply"), dir.join("b.stl"));
    ok(&chompute(&["ca", "12", "--stack", path_str(&a)]));
    ok(&chompute(&["ca", "12", "--mesh", path_str(&b)]));
    assert!(std::fs::read(&a).unwrap().starts_with(b"ply"));
    assert!(std::fs::read(&b).unwrap().starts_with(b"chompute"));
    for (cmd, shown, hidden) in [
        ("render", "--scale", "--cell"),
        ("octahedron", "--scale", "--px"),
        ("octahedron", "--mesh", "--stl"),
        ("ca", "--mesh", "--stack"),
    ] {
        let help = ok(&chompute(&[cmd, "--help"]));
        assert!(help.contains(shown), "{cmd} --help shows {shown}");
        assert!(!help.contains(hidden), "{cmd} --help hides {hidden}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn help_says_each_thing_once() {
    let top = ok(&chompute(&["--help"]));
    assert!(top.contains("Backends (--backend"), "{top}");
    for sub in ["count", "render", "ca", "grid", "theorems", "cb"] {
        let help = ok(&chompute(&[sub, "--help"]));
        let lines: Vec<&str> = help.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains("--backend <BACKEND>"))
            .unwrap_or_else(|| panic!("{sub}: --backend listed"));
        // The flag and one line of description, then the next option: in clap's long form
        // the description line and a blank line, in its short form the next option at once.
        let one_line = lines[at + 1].trim_start().starts_with('-')
            || (!lines[at + 1].trim().is_empty() && lines[at + 2].trim().is_empty());
        assert!(
            one_line,
            "{sub}: --backend in one line: {:?}",
            &lines[at..at + 3]
        );
        assert!(
            !help.contains("The CPU, always"),
            "{sub}: the backend values only at the top"
        );
    }
    let grid = ok(&chompute(&["grid", "--help"]));
    assert!(grid.contains("Rows of the bar") && grid.contains("Columns of the bar"));
    let image = ok(&chompute(&["chomp", "image", "--help"]));
    assert!(
        image.contains("The rule: n ≥ 2 distinct numbers"),
        "{image}"
    );
    let t = ok(&chompute(&["theorems", "--help"]));
    assert!(
        t.contains("Usage: chompute theorems [OPTIONS] --max-m <M>"),
        "{t}"
    );
    let cb = ok(&chompute(&["cb", "--help"]));
    assert!(cb.contains("--f <EXPR> --bound <X,Z>"), "{cb}");
}

#[test]
fn mistakes_keep_clap_s_hint_on_one_line() {
    assert_usage_error(
        &chompute(&["cout", "5"]),
        "unrecognized subcommand 'cout' (did you mean 'count'?)",
    );
    assert_usage_error(
        &chompute(&["count", "5", "--jsn"]),
        "(did you mean '--json'?)",
    );
    assert_usage_error(&chompute(&["theorems"]), "--max-m");
    assert_usage_error(&chompute(&["cb", "--f", "z"]), "--bound");
}

#[test]
fn completions_and_the_manual_page() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let text = ok(&chompute(&["completions", shell]));
        // Every subcommand can be completed.
        for sub in ["render", "nimpass-grid", "theorems", "completions"] {
            assert!(text.contains(sub), "{shell}: {sub}");
        }
    }
    assert_usage_error(&chompute(&["completions", "tcsh"]), "tcsh");
    let man = ok(&chompute(&["man"]));
    assert!(
        man.contains(".TH chompute 1"),
        "{}",
        &man[..200.min(man.len())]
    );
    for sub in ["render", "count", "octahedron", "theorems"] {
        assert!(
            man.contains(&format!("chompute\\-{sub}")),
            "man lists {sub}"
        );
    }
    assert!(man.contains("Backends"));
    let page = ok(&chompute(&["man", "chomp", "ord"]));
    assert!(page.contains(".TH chompute-chomp-ord 1"));
    assert!(page.contains("\\-\\-rule"));
    assert_usage_error(&chompute(&["man", "nope"]), "nope");
}

/// Run `args` with stdout and stderr on a pseudo-terminal (util-linux `script`), returning
/// everything the terminal got; None where `script` is missing.
fn on_terminal(args: &[&str], dir: &Path) -> Option<String> {
    common::quiet_mesa();
    let bin = common::bin();
    let line = std::iter::once(bin.to_str().expect("a UTF-8 path"))
        .chain(args.iter().copied())
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let o = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .current_dir(dir)
        .env("CHOMPUTE_BACKEND", "cpu")
        .output()
        .ok()?;
    o.status.success().then(|| stdout(&o))
}

#[test]
fn progress_and_summaries_only_on_a_terminal() {
    let dir = scratch_dir("terminal");
    // In a pipe: stderr stays empty for the long-running commands.
    for args in [
        vec!["theorems", "--max-m", "40"],
        vec!["ca", "300", "--verify"],
        vec!["octahedron", "6", "--check"],
        vec!["cb", "--f", "floor(z/2)", "--bound", "20,20", "--check"],
        vec!["render", "301", "-o", "x.png"],
        vec!["chomp", "classes", "--players", "2..4", "--box", "4x4"],
    ] {
        let o = Command::new(crate::common::bin())
            .args(&args)
            .current_dir(&dir)
            .env("CHOMPUTE_BACKEND", "cpu")
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?}: silent on stderr in a pipe");
    }
    let o = Command::new(crate::common::bin())
        .args(["bench", "--quick", "--backend", "cpu"])
        .output()
        .unwrap();
    assert_eq!(stderr(&o), "", "bench is silent on stderr in a pipe");
    // On a terminal: the summary line of a written picture, and progress while it runs.
    let Some(text) = on_terminal(&["render", "2001", "--scale", "2", "-o", "t.png"], &dir) else {
        eprintln!("SKIPPED the terminal half: no util-linux `script`");
        return;
    };
    assert!(
        text.contains("wrote t.png: C(2001,2001), 16.0 Mpx 1-bit,"),
        "summary line on a terminal: {text:?}"
    );
    let text = on_terminal(&["theorems", "--max-m", "400"], &dir).unwrap();
    assert!(
        text.contains("claims checked"),
        "theorems progress: {text:?}"
    );
    let text = on_terminal(&["octahedron", "9", "--check"], &dir).unwrap();
    assert!(text.contains("cells"), "octahedron progress: {text:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
