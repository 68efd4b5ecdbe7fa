//! Targets that are not plain new files: directories, FIFOs, devices, standard output,
//! symbolic links, unwritable places, and one target written by several runs at once.

use super::harness::*;
use std::path::Path;
use std::time::Duration;

/// Every writer, with `{O}` where its output path goes.
const WRITERS: &[&[&str]] = &[
    &["render", "11", "-o", "{O}"],
    &[
        "render", "11", "--window", "2,2,5,5", "--cell", "3", "-o", "{O}",
    ],
    &["octahedron", "2", "--m", "2", "-o", "{O}"],
    &["octahedron", "2", "--stl", "{O}"],
    &[
        "chomp",
        "image",
        "--rule",
        "0,2,1",
        "--first-row",
        "5",
        "-o",
        "{O}",
    ],
    &["nimpass-grid", "20", "-o", "{O}"],
    &["ca", "5", "--stack", "{O}"],
];

fn with_output(args: &[&str], out: &str) -> Vec<String> {
    args.iter().map(|a| a.replace("{O}", out)).collect()
}

fn run_args(args: &[String]) -> Run {
    let mut c = command(&["--backend", "cpu"]);
    c.args(args);
    run_for(c, Duration::from_secs(60))
}

/// The extension each writer's output needs.
fn ext(args: &[&str]) -> &'static str {
    if args.contains(&"--stl") {
        "stl"
    } else if args.contains(&"--stack") {
        "ply"
    } else {
        "png"
    }
}

#[test]
fn a_directory_target_is_refused_before_anything_is_written() {
    let dir = scratch("dir-target");
    for args in WRITERS {
        let target = dir.join(format!("out.{}", ext(args)));
        std::fs::create_dir(&target).unwrap();
        let run = run_args(&with_output(args, s(&target)));
        run.assert_error("is a directory");
        assert_eq!(all_paths(&dir), vec![target.clone()], "{}", run.what);
        std::fs::remove_dir(&target).unwrap();
    }
    // assemble's output too.
    let t = small_tiles(&dir);
    let target = dir.join("a.png");
    std::fs::create_dir(&target).unwrap();
    let before = all_paths(&dir);
    run(&["assemble", s(&t), "-o", s(&target)]).assert_error("is a directory");
    assert_eq!(all_paths(&dir), before);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unwritable_targets_are_one_line_errors_and_leave_nothing() {
    let dir = scratch("unwritable");
    std::fs::write(dir.join("file"), b"a file, not a directory").unwrap();
    for args in WRITERS {
        let e = ext(args);
        for target in [format!("no/such/dir/x.{e}"), format!("file/x.{e}")] {
            let target = dir.join(target);
            let run = run_args(&with_output(args, s(&target)));
            run.assert_error(s(&target));
            assert_eq!(all_paths(&dir), vec![dir.join("file")], "{}", run.what);
        }
    }
    // A read-only file system (root can write anywhere else).
    match tmpfs(&dir.join("ro"), "ro,size=1m") {
        Ok(mount) => {
            for args in WRITERS {
                let target = mount.0.join(format!("x.{}", ext(args)));
                let run = run_args(&with_output(args, s(&target)));
                run.assert_error("Read-only file system");
                assert!(all_paths(&mount.0).is_empty(), "{}", run.what);
            }
        }
        Err(why) => skipped("unwritable_targets (read-only part)", &why),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A PNG's bytes without its tEXt chunks: the Description names the output path, so two
/// renders of one picture to different targets differ only there.
fn without_text(png: &[u8]) -> Vec<u8> {
    let mut out = png[..8].to_vec();
    let mut pos = 8;
    while pos + 8 <= png.len() {
        let len = u32::from_be_bytes(png[pos..pos + 4].try_into().unwrap()) as usize;
        let end = (pos + 12 + len).min(png.len());
        if &png[pos + 4..pos + 8] != b"tEXt" {
            out.extend_from_slice(&png[pos..end]);
        }
        pos = end;
    }
    out
}

/// The bytes of `render 100` (tEXt chunks aside), written to a plain file.
fn reference_png(dir: &Path) -> Vec<u8> {
    let file = dir.join("reference.png");
    run(&["--backend", "cpu", "render", "100", "-o", s(&file)]).assert_success();
    let bytes = std::fs::read(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    without_text(&bytes)
}

#[test]
fn fifos_devices_and_stdout_are_written_straight() {
    let dir = scratch("straight");
    let png = reference_png(&dir);

    // A FIFO: its reader gets the whole picture, and it stays a FIFO.
    let fifo = dir.join("pipe.png");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(&fifo).unwrap())
    };
    run(&["--backend", "cpu", "render", "100", "-o", s(&fifo)]).assert_success();
    use std::os::unix::fs::FileTypeExt;
    // Checked before waiting for the reader, which never returns if the FIFO was replaced.
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    assert_eq!(
        without_text(&reader.join().unwrap()),
        png,
        "what came out of the FIFO"
    );
    std::fs::remove_file(&fifo).unwrap();

    // A mesh into a FIFO named like a mesh file.
    let fifo = dir.join("mesh.stl");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(&fifo).unwrap())
    };
    run(&["octahedron", "2", "--stl", s(&fifo)]).assert_success();
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    let stl = reader.join().unwrap();
    assert_eq!(stl.len(), 84 + 50 * 8 * 36, "S_2 as STL through a FIFO");
    std::fs::remove_file(&fifo).unwrap();

    // /dev/null stays a character device.
    run(&["--backend", "cpu", "render", "100", "-o", "/dev/null"]).assert_success();
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());

    // A device that is always full: one line and status 2, for a file and for stdout.
    if Path::new("/dev/full").exists() {
        run(&["--backend", "cpu", "render", "100", "-o", "/dev/full"])
            .assert_error("No space left on device");
        for args in [&["count", "5"][..], &["--backend", "cpu", "grid", "300"]] {
            let full = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap();
            let o = command(args).stdout(full).output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{args:?} > /dev/full: {err}");
            assert_eq!(err.lines().count(), 1, "{args:?} > /dev/full: {err}");
            assert!(err.contains("cannot write to standard output"), "{err}");
        }
    }

    // `-` and /dev/stdout: the PNG on standard output, nothing else there; the report that
    // --json asks for goes to stderr while stdout carries the picture.
    for target in ["-", "/dev/stdout"] {
        let r = run(&["--backend", "cpu", "render", "100", "-o", target]);
        r.assert_success();
        assert_eq!(without_text(&r.stdout), png, "render -o {target}");
        let r = run(&["--backend", "cpu", "render", "100", "-o", target, "--json"]);
        r.assert_success();
        assert_eq!(without_text(&r.stdout), png, "render -o {target} --json");
        let report: serde_json::Value = serde_json::from_str(r.stderr.trim()).unwrap();
        assert_eq!(report["width"], "100");
    }
    assert!(std::fs::symlink_metadata("/dev/stdout")
        .unwrap()
        .file_type()
        .is_symlink());
    let r = run(&["nimpass-grid", "20", "-o", "-"]);
    r.assert_success();
    assert!(r.stdout.starts_with(b"\x89PNG"), "nimpass-grid -o -");
    assert!(
        r.stderr.contains("wrote -"),
        "the report goes to stderr: {}",
        r.stderr
    );
    assert_eq!(all_paths(&dir), Vec::<std::path::PathBuf>::new());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_symlink_stays_a_link_and_the_file_it_names_is_replaced_whole() {
    let dir = scratch("symlink");
    let png = reference_png(&dir);
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("real.png"), b"older").unwrap();
    let link = dir.join("link.png");
    std::os::unix::fs::symlink("elsewhere/real.png", &link).unwrap();
    run(&["--backend", "cpu", "render", "100", "-o", s(&link)]).assert_success();
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        without_text(&std::fs::read(elsewhere.join("real.png")).unwrap()),
        png
    );
    // A link to a link, and a dangling link: the file appears where the links end.
    let link2 = dir.join("link2.png");
    std::os::unix::fs::symlink("link.png", &link2).unwrap();
    std::fs::write(elsewhere.join("real.png"), b"older").unwrap();
    run(&["--backend", "cpu", "render", "100", "-o", s(&link2)]).assert_success();
    assert_eq!(
        without_text(&std::fs::read(elsewhere.join("real.png")).unwrap()),
        png
    );
    let dangling = dir.join("dangling.png");
    std::os::unix::fs::symlink("elsewhere/new.png", &dangling).unwrap();
    run(&["--backend", "cpu", "render", "100", "-o", s(&dangling)]).assert_success();
    assert_eq!(
        without_text(&std::fs::read(elsewhere.join("new.png")).unwrap()),
        png
    );
    assert!(std::fs::symlink_metadata(&dangling)
        .unwrap()
        .file_type()
        .is_symlink());
    // A link to a directory is a directory.
    let to_dir = dir.join("to-dir.png");
    std::os::unix::fs::symlink("elsewhere", &to_dir).unwrap();
    run(&["--backend", "cpu", "render", "100", "-o", s(&to_dir)]).assert_error("is a directory");
    assert_no_temporaries(&dir, "symlinks");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn concurrent_runs_into_one_target_leave_one_whole_file() {
    let dir = scratch("concurrent");
    let png = dir.join("same.png");
    let stl = dir.join("same.stl");
    let mut runs = Vec::new();
    for _ in 0..3 {
        let mut c = command(&["--backend", "cpu", "render", "3000"]);
        c.args(["-o", s(&png)]);
        runs.push(start(c));
        runs.push(start(command(&["octahedron", "5", "--stl", s(&stl)])));
    }
    for r in runs {
        r.wait(Duration::from_secs(120)).assert_success();
    }
    assert_complete(&png, "concurrent renders");
    assert_complete(&stl, "concurrent meshes");
    assert_eq!(all_paths(&dir), vec![png, stl]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_full_disk_leaves_no_temporary_file_and_the_older_file_intact() {
    let dir = scratch("full-disk");
    let mount = match tmpfs(&dir.join("small"), "size=2m") {
        Ok(m) => m,
        Err(why) => {
            skipped("a_full_disk_leaves_no_temporary_file", &why);
            return;
        }
    };
    let m = mount.0.clone();
    let cpu = |args: &[&str]| {
        let mut c = command(&["--backend", "cpu"]);
        c.args(args);
        run_for(c, Duration::from_secs(60))
    };
    // A fresh target and an older file of the same name: both fail with one line, and the
    // disk is as it was (the 2 MiB are free again).
    let stl = m.join("x.stl");
    cpu(&["octahedron", "5", "--stl", s(&stl)]).assert_error("No space left on device");
    assert!(all_paths(&m).is_empty(), "{:?}", all_paths(&m));
    std::fs::write(&stl, b"older").unwrap();
    cpu(&["octahedron", "5", "--stl", s(&stl)]).assert_error("No space left on device");
    assert_eq!(all_paths(&m), vec![stl.clone()]);
    assert_eq!(std::fs::read(&stl).unwrap(), b"older");
    std::fs::remove_file(&stl).unwrap();

    let png = m.join("x.png");
    cpu(&["render", "65535", "--compression", "fast", "-o", s(&png)])
        .assert_error("No space left on device");
    assert!(all_paths(&m).is_empty(), "{:?}", all_paths(&m));

    let r = cpu(&["render", "32767", "--dzi", s(&m.join("DZ"))]);
    r.assert_error("No space left on device");
    assert!(
        !r.stderr.contains(".tmp"),
        "names the target, not a temporary: {}",
        r.stderr
    );
    assert!(all_paths(&m).is_empty(), "{:?}", all_paths(&m));

    // Frames and tiles: those finished stay (whole), the one being written goes.
    for args in [
        vec!["ca", "3000", "--frames", "{M}/FR"],
        vec![
            "render",
            "65535",
            "--compression",
            "fast",
            "--tiles",
            "{M}/T",
        ],
    ] {
        let args: Vec<String> = args.iter().map(|a| a.replace("{M}", s(&m))).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = cpu(&args);
        r.assert_error("No space left on device");
        assert_no_temporaries(&m, &r.what);
        for f in files(&m) {
            assert_complete(&f, &r.what);
        }
        for p in std::fs::read_dir(&m).unwrap() {
            std::fs::remove_dir_all(p.unwrap().path()).unwrap();
        }
    }
    drop(mount);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A picture is never written over a file of the tile directory it is drawn beside or
/// assembled from (named inside it, by another path, or through a link or a hard link): that
/// would damage the render, or the render would overwrite the picture. The directory stays
/// whole, and names it does not use are fine.
#[test]
fn a_picture_never_replaces_a_file_of_its_tile_directory() {
    let dir = scratch("apart");
    let t = small_tiles(&dir);
    let before = listing(&t);
    assert_eq!(
        before.len(),
        9,
        "four tiles, their records and the manifest"
    );
    let link = dir.join("link.png");
    std::os::unix::fs::symlink("T/tile-1-0.png", &link).unwrap();
    let hard = dir.join("hard.png");
    std::fs::hard_link(t.join("tile-0-1.png"), &hard).unwrap();
    let roundabout = dir.join("T").join("..").join("T").join("tile-1-1.png");
    let refused = [
        (s(&t.join("tile-0-0.png")).to_string(), "tile-0-0.png"),
        (s(&roundabout).to_string(), "tile-1-1.png"),
        (s(&link).to_string(), "tile-1-0.png"),
        (s(&hard).to_string(), "tile-0-1.png"),
    ];
    let tiles = ["--tiles", s(&t), "--tile-size", "32"];
    for (out, name) in &refused {
        let assemble = run(&["assemble", s(&t), "-o", out]);
        assemble.assert_error(&format!("would be {name} of the tile directory"));
        let mut args = vec!["--backend", "cpu", "render", "64", "-o", out];
        args.extend(tiles);
        run(&args).assert_error(&format!("would be {name} of the tile directory"));
    }
    // Beside the tiles under a name of its own, and a tile name this render does not use.
    for name in ["whole.png", "tile-2-0.png", "tile-00-0.png"] {
        let out = t.join(name);
        run(&["assemble", s(&t), "-o", s(&out)]).assert_success();
        std::fs::remove_file(&out).unwrap();
        let mut args = vec!["--backend", "cpu", "render", "64", "-o", s(&out)];
        args.extend(tiles);
        run(&args).assert_success();
        std::fs::remove_file(&out).unwrap();
    }
    let after = listing(&t);
    assert!(before == after, "the tile directory changed");
    assert_no_temporaries(&dir, "apart");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every file of `dir`, by name, with its bytes.
fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// `chomp bites --table T -o P` refuses a picture P that is the table T (by its name, a link
/// or a hard link): the table, perhaps days of solving, is kept.
#[test]
fn a_bites_picture_never_replaces_the_table_it_reads() {
    let dir = scratch("bites-apart");
    let table = dir.join("table.png");
    run(&["chomp", "solve", "--box", "5x6", "-o", s(&table)]).assert_success();
    let bytes = std::fs::read(&table).unwrap();
    let link = dir.join("link.png");
    std::os::unix::fs::symlink("table.png", &link).unwrap();
    let hard = dir.join("hard.png");
    std::fs::hard_link(&table, &hard).unwrap();
    for out in [&table, &link, &hard] {
        run(&["chomp", "bites", "--table", s(&table), "-o", s(out)])
            .assert_error("it is made from; write it elsewhere");
    }
    assert!(std::fs::read(&table).unwrap() == bytes, "the table changed");
    let picture = dir.join("bites.png");
    run(&["chomp", "bites", "--table", s(&table), "-o", s(&picture)]).assert_success();
    assert_complete(&picture, "bites");
    assert_no_temporaries(&dir, "bites-apart");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A render or an assembly with several outputs checks every target before it writes any: a
/// `--dzi` or `--tiles` directory that cannot be one refuses the command with the picture
/// not yet written.
#[test]
fn every_target_is_checked_before_the_first_is_written() {
    let dir = scratch("all-targets");
    let t = small_tiles(&dir);
    let plain = dir.join("plain");
    std::fs::write(&plain, "x").unwrap();
    let pyramid = dir.join("pyr");
    std::fs::create_dir_all(pyramid.join("pyr.dzi")).unwrap();
    let under_plain = plain.join("x");
    let missing = dir.join("no").join("such");
    let picture = dir.join("picture.png");
    let p = s(&picture);
    let cases: [(Vec<&str>, &str); 7] = [
        (vec!["--dzi", s(&plain)], "exists and is not a directory"),
        (vec!["--dzi", s(&missing)], "its directory does not exist"),
        (vec!["--dzi", s(&under_plain)], "Not a directory"),
        (vec!["--dzi", s(&pyramid)], "is a directory"),
        (vec!["--dzi", "/"], "does not name a directory"),
        (vec!["--tiles", s(&plain)], "exists and is not a directory"),
        (vec!["--tiles", s(&under_plain)], "Not a directory"),
    ];
    for (extra, expect) in &cases {
        let mut args = vec!["--backend", "cpu", "render", "64", "-o", p];
        args.extend(extra);
        run(&args).assert_error(expect);
        assert!(!picture.exists(), "render {extra:?} wrote the picture");
        if extra[0] == "--dzi" {
            let mut args = vec!["assemble", s(&t), "-o", p];
            args.extend(extra);
            run(&args).assert_error(expect);
            assert!(!picture.exists(), "assemble {extra:?} wrote the picture");
        }
    }
    // A tile directory is made with its parents.
    let mut args = vec!["--backend", "cpu", "render", "64", "-o", p];
    args.extend(["--tiles", s(&missing)]);
    run(&args).assert_success();
    assert!(picture.exists() && missing.join("tiles.json").exists());
    assert_no_temporaries(&dir, "all-targets");
    std::fs::remove_dir_all(&dir).unwrap();
}
