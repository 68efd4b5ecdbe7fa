//! Tile directories through the built binary, tried the way a preempted cluster job or a
//! careless user would: damaged, swapped and replaced tiles are rendered again and refused by
//! `assemble`; an inconsistent manifest is refused; two renders into one directory cannot mix.

use crate::common;

use common::{assert_usage_error, scratch_dir, stderr};
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// 150×230 cells at 2 pixels a cell: 300×460 pixels, 5×8 = 40 tiles of 64.
const BAR: [&str; 4] = ["150", "230", "--cell", "2"];
const TILES: u64 = 40;

fn cmd(args: &[&str]) -> Command {
    common::quiet_mesa();
    let mut c = Command::new(crate::common::bin());
    c.args(["--backend", "cpu"])
        .args(args)
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX");
    c
}

fn run(args: &[&str]) -> Output {
    cmd(args).output().expect("run chompute")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Render `bar`'s tiles into `tiles`; (tiles written, tiles skipped).
fn render_tiles(bar: &[&str], tiles: &Path) -> (u64, u64) {
    let mut args = vec!["render"];
    args.extend(bar);
    args.extend(["--tile-size", "64", "--tiles", s(tiles), "--json"]);
    let j = common::json_of(&run(&args));
    (
        j["tiles_written"].as_u64().unwrap(),
        j["tiles_skipped"].as_u64().unwrap(),
    )
}

/// One `render -o` of `bar`, the reference picture.
fn single(bar: &[&str], out: &Path) -> Vec<u8> {
    let mut args = vec!["render"];
    args.extend(bar);
    args.extend(["-o", s(out)]);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read(out).unwrap()
}

/// `assemble` fails with exit 2, one line naming `names`, and writes nothing.
fn assemble_refuses(tiles: &Path, out: &Path, names: &str) {
    let o = run(&["assemble", s(tiles), "-o", s(out)]);
    assert_usage_error(&o, names);
    assert!(!out.exists(), "assemble wrote {} anyway", out.display());
    let dir = out.parent().unwrap();
    let temps: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(temps.is_empty(), "temporary files left: {temps:?}");
}

/// A PNG's size, colour type, bit depth, palette and raw rows, undecorated: what the picture
/// is, without its text chunks (a PNG's Description names the command that made it).
fn pixels(png_bytes: &[u8]) -> (u32, u32, png::ColorType, png::BitDepth, Vec<u8>, Vec<u8>) {
    let mut dec = png::Decoder::new(std::io::Cursor::new(png_bytes));
    dec.set_transformations(png::Transformations::IDENTITY);
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    let palette = reader
        .info()
        .palette
        .as_ref()
        .map_or(Vec::new(), |p| p.to_vec());
    (
        info.width,
        info.height,
        info.color_type,
        info.bit_depth,
        palette,
        buf,
    )
}

/// `assemble` succeeds and its picture is pixel for pixel the single render's (the files
/// differ only in their Description, which names `render` or `assemble`).
fn assemble_equals(tiles: &Path, out: &Path, reference: &[u8]) {
    let o = run(&["assemble", s(tiles), "-o", s(out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        pixels(&std::fs::read(out).unwrap()) == pixels(reference),
        "the assembled picture differs from one render"
    );
    std::fs::remove_file(out).unwrap();
}

/// The same tile with every pixel inverted: a valid PNG of the right size and format.
fn inverted_png(tile: &Path) -> Vec<u8> {
    let mut dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(tile).unwrap()));
    dec.set_transformations(png::Transformations::IDENTITY);
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.bit_depth, png::BitDepth::One);
    let bytes = &mut buf[..info.buffer_size()];
    for b in bytes.iter_mut() {
        *b = !*b;
    }
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, info.width, info.height);
    enc.set_color(png::ColorType::Grayscale);
    enc.set_depth(png::BitDepth::One);
    enc.write_header().unwrap().write_image_data(bytes).unwrap();
    out
}

#[test]
fn damaged_tiles_are_rendered_again_and_refused_by_assemble() {
    let dir = scratch_dir("tiles-damage");
    let tiles = dir.join("tiles");
    let out = dir.join("joined.png");
    let reference = single(&BAR, &dir.join("single.png"));
    let other = dir.join("other");
    render_tiles(&["151", "230", "--cell", "2"], &other);
    assert_eq!(render_tiles(&BAR, &tiles), (TILES, 0));
    assemble_equals(&tiles, &out, &reference);

    let tile = |name: &str| tiles.join(name);
    // Most tiles are all N-cells, hence identical; these two are not.
    let a = std::fs::read(tile("tile-0-0.png")).unwrap();
    let b = std::fs::read(tile("tile-0-1.png")).unwrap();
    assert!(a != b && a.len() > 20, "two different tiles to swap");
    type Damage = Box<dyn Fn(&Path)>;
    let damages: Vec<(&str, Damage, &str, u64)> = vec![
        (
            "truncated",
            Box::new(|t: &Path| {
                let bytes = std::fs::read(t.join("tile-2-4.png")).unwrap();
                std::fs::write(t.join("tile-2-4.png"), &bytes[..bytes.len() / 2]).unwrap();
            }),
            "tile-2-4.png",
            1,
        ),
        (
            "garbage of the same length",
            Box::new(|t: &Path| {
                let len = std::fs::metadata(t.join("tile-0-7.png")).unwrap().len();
                std::fs::write(t.join("tile-0-7.png"), vec![0xa5; len as usize]).unwrap();
            }),
            "tile-0-7.png",
            1,
        ),
        (
            "two tiles swapped",
            Box::new(move |t: &Path| {
                std::fs::write(t.join("tile-0-0.png"), &b).unwrap();
                std::fs::write(t.join("tile-0-1.png"), &a).unwrap();
            }),
            "tile-0-0.png",
            2,
        ),
        (
            "another tile's file and record moved in",
            Box::new(|t: &Path| {
                std::fs::copy(t.join("tile-3-1.png"), t.join("tile-3-0.png")).unwrap();
                std::fs::copy(t.join("tile-3-1.json"), t.join("tile-3-0.json")).unwrap();
            }),
            "tile-3-0.png",
            1,
        ),
        (
            "a directory in a tile's place",
            Box::new(|t: &Path| {
                std::fs::remove_file(t.join("tile-4-7.png")).unwrap();
                std::fs::create_dir(t.join("tile-4-7.png")).unwrap();
                std::fs::write(t.join("tile-4-7.png/x"), b"x").unwrap();
            }),
            "tile-4-7.png",
            1,
        ),
        (
            "a valid PNG of the right size, inverted",
            Box::new(|t: &Path| {
                let inverted = inverted_png(&t.join("tile-2-2.png"));
                std::fs::write(t.join("tile-2-2.png"), inverted).unwrap();
            }),
            "tile-2-2.png",
            1,
        ),
        (
            "a tile whose record was never written",
            Box::new(|t: &Path| std::fs::remove_file(t.join("tile-0-0.json")).unwrap()),
            "tile-0-0.png",
            1,
        ),
        (
            "a tile and record of another render",
            Box::new(move |t: &Path| {
                for ext in ["png", "json"] {
                    let name = format!("tile-1-1.{ext}");
                    std::fs::copy(other.join(&name), t.join(&name)).unwrap();
                }
            }),
            "tile-1-1.png",
            1,
        ),
    ];
    for (what, damage, names, rendered) in damages {
        damage(&tiles);
        assemble_refuses(&tiles, &out, names);
        assert_eq!(
            render_tiles(&BAR, &tiles),
            (rendered, TILES - rendered),
            "{what}: the rerun renders the damaged tiles again and skips the others"
        );
        assemble_equals(&tiles, &out, &reference);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn assemble_checks_the_manifest_against_itself() {
    let dir = scratch_dir("tiles-manifest");
    let tiles = dir.join("tiles");
    let out = dir.join("joined.png");
    render_tiles(&BAR, &tiles);
    let path = tiles.join("tiles.json");
    let good: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for (field, value) in [
        ("tiles_x", 0),
        ("tiles_y", 0),
        ("tiles_x", 7),
        ("tiles_y", 6),
        ("tile_size", 0),
        ("tile_size", 60),
        ("width", 0),
        ("height", 301),
    ] {
        let mut bad = good.clone();
        bad[field] = value.into();
        if field == "tiles_x" {
            // tiles_x = tiles_y = 0: a picture of no tiles.
            bad["tiles_y"] = if value == 0 {
                0.into()
            } else {
                good["tiles_y"].clone()
            };
        }
        std::fs::write(&path, serde_json::to_string(&bad).unwrap()).unwrap();
        let o = run(&["assemble", s(&tiles), "-o", s(&out)]);
        assert_usage_error(&o, "tiles.json");
        assert!(!out.exists(), "{field} = {value}: assemble wrote a picture");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two renders started at once into one new directory, both with output piped.
fn race(a: &[&str], b: &[&str], tiles: &Path) -> (Output, Output) {
    let spawn = |bar: &[&str]| {
        let mut args = vec!["render"];
        args.extend(bar);
        args.extend(["--tile-size", "64", "--tiles", s(tiles)]);
        cmd(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (pa, pb) = (spawn(a), spawn(b));
    (
        pa.wait_with_output().unwrap(),
        pb.wait_with_output().unwrap(),
    )
}

#[test]
fn one_tile_directory_holds_one_render() {
    let dir = scratch_dir("tiles-exclusive");
    let out = dir.join("joined.png");
    let bar_b = ["151", "230", "--cell", "2"];
    let reference_a = single(&BAR, &dir.join("a.png"));
    let reference_b = single(&bar_b, &dir.join("b.png"));
    // Started at once, many times: exactly one wins, the other is refused with one line and
    // the tiles assemble into the winner's picture.
    for round in 0..8 {
        let tiles = dir.join(format!("race-{round}"));
        let (oa, ob) = race(&BAR, &bar_b, &tiles);
        let codes = (oa.status.code(), ob.status.code());
        let (winner, loser) = match codes {
            (Some(0), Some(2)) => (&reference_a, &ob),
            (Some(2), Some(0)) => (&reference_b, &oa),
            _ => panic!(
                "round {round}: exit statuses {codes:?}, want one 0 and one 2: {} | {}",
                stderr(&oa),
                stderr(&ob)
            ),
        };
        assert_usage_error(loser, "different render");
        assemble_equals(&tiles, &out, winner);
    }
    // Identical renders at once share the directory; a later identical one resumes.
    let tiles = dir.join("same");
    let (oa, ob) = race(&BAR, &BAR, &tiles);
    assert!(
        oa.status.success() && ob.status.success(),
        "{} | {}",
        stderr(&oa),
        stderr(&ob)
    );
    assemble_equals(&tiles, &out, &reference_a);
    assert_eq!(render_tiles(&BAR, &tiles), (0, TILES));
    // A different render later is refused too, and leaves the tiles as they were.
    let mut args = vec!["render"];
    args.extend(bar_b);
    args.extend(["--tile-size", "64", "--tiles", s(&tiles)]);
    assert_usage_error(&run(&args), "different render");
    assemble_equals(&tiles, &out, &reference_a);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tiles_of_a_picture_too_large_to_assemble_are_refused() {
    let dir = scratch_dir("tiles-huge");
    let tiles = dir.join("tiles");
    for args in [
        vec!["render", "18446744073709551615", "1", "--tile-size", "8"],
        vec!["render", "18446744073709551615"],
        vec!["render", "4294967296", "8"],
    ] {
        let mut args = args;
        args.extend(["--tiles", s(&tiles)]);
        assert_usage_error(&run(&args), "2^31-1 pixels a side");
        assert!(!tiles.exists(), "{args:?} created {}", tiles.display());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
