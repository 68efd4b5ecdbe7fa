//! The schedule of the hook index and its level split, counted (nothing solved): steps,
//! ranges, levels (the split's dispatches) and positions of a level (a dispatch's independent
//! positions) of the squares named on the command line; then the host's share of a GPU run,
//! timed: every step's ranges and their split into levels (`PullScan::split`), and the words
//! of input the split uploads.
//!
//! `cargo run --release --example chomp_split -- 16 18 20`

use chompute::chomp::index::HookIndex;
use chompute::chomp::two_player::pull::{split_stats, PullScan};

fn main() {
    println!(
        "side | steps | ranges (max/step, mean/step) | positions a range (max, mean) | \
         levels (max/step, all) | positions a level (max, mean) | levels ≥ 10^4 (their share) | \
         positions one after another: range walk, levels"
    );
    for arg in std::env::args().skip(1) {
        let Ok(n) = arg.parse::<usize>() else {
            eprintln!("chomp_split: not a side: {arg}");
            std::process::exit(2);
        };
        let hook = match HookIndex::new(n) {
            Ok(h) => h,
            Err(e) => {
                eprintln!("chomp_split: {e}");
                std::process::exit(2);
            }
        };
        let s = split_stats(&hook);
        println!(
            "{n}×{n} | {} | {}, {:.1} | {}, {:.1} | {}, {} | {}, {:.1} | {} ({:.1} %) | {}, {}",
            s.steps,
            s.max_ranges,
            s.ranges as f64 / s.steps as f64,
            s.max_range,
            s.positions as f64 / s.ranges as f64,
            s.max_levels,
            s.levels,
            s.max_level,
            s.positions as f64 / s.levels as f64,
            s.wide_levels,
            100.0 * s.wide_positions as f64 / s.positions as f64,
            s.walk_path,
            s.levels,
        );
        let start = std::time::Instant::now();
        let scan = PullScan::new(&hook);
        let (mut ranges, mut words) = (Vec::new(), 0u64);
        for step in 0..hook.steps() {
            hook.step_ranges(step, &mut ranges);
            match scan.split(&ranges) {
                Ok(split) => words += (4 * split.ranges.len() + split.starts.len()) as u64,
                Err(e) => {
                    eprintln!("chomp_split: {e}");
                    std::process::exit(2);
                }
            }
        }
        println!(
            "{n}×{n}: the host's split of every step {:.2} s, {words} words of input",
            start.elapsed().as_secs_f64()
        );
    }
}
