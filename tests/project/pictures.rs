//! Every picture in docs/img is drawn again from the command its page documents and compared
//! with the committed one pixel for pixel (decoded to RGBA, so metadata such as the PNG
//! Description, which names the command line, does not count). A stale picture fails here.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A picture of docs/img and how its page says it is made.
struct Drawn {
    /// The file in docs/img.
    picture: &'static str,
    /// The page that documents the command (relative to the repository root).
    page: &'static str,
    /// The command exactly as the page gives it.
    command: &'static str,
    /// Added after the command where the page leaves the output file out.
    output: &'static str,
    /// The file the command writes, relative to the directory it runs in.
    writes: &'static str,
}

const DRAWN: &[Drawn] = &[
    Drawn {
        picture: "r11.png",
        page: "docs/guide/pictures.md",
        command: "chompute render 11 --scale 16 --colors '#5b2a86,#f4efe6'",
        output: " -o r11.png",
        writes: "r11.png",
    },
    Drawn {
        picture: "c40000-fit512.png",
        page: "docs/guide/pictures.md",
        command: "chompute render 40000 --fit 512 --colors '#5b2a86,#f4efe6'",
        output: " -o c40000.png",
        writes: "c40000.png",
    },
    Drawn {
        picture: "c2p64-fit1024.png",
        page: "docs/guide/pictures.md",
        command: "chompute render 18446744073709551615 --fit 1024 -o c.png",
        output: "",
        writes: "c.png",
    },
    Drawn {
        picture: "c1e19-fit512-log.png",
        page: "docs/guide/pictures.md",
        command: "chompute render 10000000000000000000 --fit 512 --shade log --colors '#5b2a86,#f4efe6'",
        output: " -o c1e19.png",
        writes: "c1e19.png",
    },
    Drawn {
        picture: "ca-generation-99.png",
        page: "docs/guide/automaton-octahedron-theorems.md",
        command: "chompute ca 99 --frames frames --every 99",
        output: "",
        writes: "frames/gen-99.png",
    },
    Drawn {
        picture: "octahedron-section-3-5.png",
        page: "docs/guide/automaton-octahedron-theorems.md",
        command: "chompute octahedron 3 --m 5 -o docs/img/octahedron-section-3-5.png --scale 32",
        output: "",
        writes: "docs/img/octahedron-section-3-5.png",
    },
    Drawn {
        picture: "octahedron-section-3-5.5.png",
        page: "docs/guide/automaton-octahedron-theorems.md",
        command: "chompute octahedron 3 --m 5.5 -o docs/img/octahedron-section-3-5.5.png --scale 32",
        output: "",
        writes: "docs/img/octahedron-section-3-5.5.png",
    },
    Drawn {
        picture: "octahedron-section-4-11.png",
        page: "docs/guide/automaton-octahedron-theorems.md",
        command: "chompute octahedron 4 --m 11 -o docs/img/octahedron-section-4-11.png --scale 16",
        output: "",
        writes: "docs/img/octahedron-section-4-11.png",
    },
    Drawn {
        picture: "nimpass-grid-21.png",
        page: "docs/guide/games-with-a-pass.md",
        command: "chompute nimpass-grid 21 -o docs/img/nimpass-grid-21.png --scale 16",
        output: "",
        writes: "docs/img/nimpass-grid-21.png",
    },
    Drawn {
        picture: "nimpass-grid-14.png",
        page: "docs/guide/games-with-a-pass.md",
        command: "chompute nimpass-grid 14 -o docs/img/nimpass-grid-14.png --scale 16 --json",
        output: "",
        writes: "docs/img/nimpass-grid-14.png",
    },
    Drawn {
        picture: "chomp-3row-0-1-2.png",
        page: "docs/guide/multiplayer-chomp.md",
        command: "chompute chomp image --rule 0,1,2 --rows 3 --first-row 60 --scale 8 -o docs/img/chomp-3row-0-1-2.png",
        output: "",
        writes: "docs/img/chomp-3row-0-1-2.png",
    },
    Drawn {
        picture: "chomp-position-7-5-3-3.png",
        page: "README.md",
        command: "chompute chomp grundy --position 7,5,3,3 --picture docs/img/chomp-position-7-5-3-3.png",
        output: "",
        writes: "docs/img/chomp-position-7-5-3-3.png",
    },
];

/// Pictures that no chompute command draws, and why.
const NOT_DRAWN: &[(&str, &str)] = &[
    (
        "python-session.png",
        "drawn by matplotlib from the Python session of docs/guide/python.md",
    ),
    (
        "serve.png",
        "a screenshot of the viewer in headless Chromium (tests/browser.sh --screenshots)",
    ),
    (
        "serve-log.png",
        "a screenshot of the viewer in headless Chromium (tests/browser.sh --screenshots)",
    ),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The pixels of a picture as RGBA, with its size.
fn pixels(path: &Path) -> (u32, u32, Vec<u8>) {
    let img = image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_rgba8();
    (img.width(), img.height(), img.into_raw())
}

#[test]
fn every_picture_in_docs_img_is_listed_once() {
    let mut listed: Vec<&str> = DRAWN.iter().map(|d| d.picture).collect();
    listed.extend(NOT_DRAWN.iter().map(|(p, _)| *p));
    let mut on_disk: Vec<String> = std::fs::read_dir(root().join("docs/img"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    on_disk.sort();
    listed.sort();
    assert_eq!(listed, on_disk, "docs/img and this file's lists");
    // Each command is the page's own, word for word.
    for d in DRAWN {
        let page = std::fs::read_to_string(root().join(d.page)).unwrap();
        assert!(
            page.contains(d.command),
            "{} does not show `{}`",
            d.page,
            d.command
        );
        assert!(
            page.contains(d.picture),
            "{} does not show {}",
            d.page,
            d.picture
        );
    }
}

#[test]
fn every_documented_picture_is_what_its_command_draws() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_chompute"));
    let dir = std::env::temp_dir().join(format!("chompute-docs-img-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("docs/img")).unwrap();
    let mut path = vec![bin.parent().unwrap().to_path_buf()];
    if let Some(p) = std::env::var_os("PATH") {
        path.extend(std::env::split_paths(&p));
    }
    let mut stale = Vec::new();
    for d in DRAWN {
        let command = format!("{}{}", d.command, d.output);
        let o = Command::new("bash")
            .args(["-c", &command])
            .current_dir(&dir)
            .env("PATH", std::env::join_paths(&path).unwrap())
            .env("CHOMPUTE_BACKEND", "cpu")
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let (w, h, fresh) = pixels(&dir.join(d.writes));
        let (cw, ch, committed) = pixels(&root().join("docs/img").join(d.picture));
        if (w, h) != (cw, ch) {
            stale.push(format!(
                "{}: {cw}x{ch} committed, {w}x{h} drawn by `{command}`",
                d.picture
            ));
            continue;
        }
        let differ = fresh
            .chunks_exact(4)
            .zip(committed.chunks_exact(4))
            .filter(|(a, b)| a != b)
            .count();
        if differ > 0 {
            stale.push(format!(
                "{}: {differ} pixels differ from `{command}`",
                d.picture
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        stale.is_empty(),
        "stale pictures (draw them again with their command, from the repository root):\n{}",
        stale.join("\n")
    );
}
