//! The hook kernel's lanes in lockstep, weighed on the CPU twin. A GPU runs the kernel's
//! invocations in warps of 32 lanes that step together, one position per invocation, the
//! positions of a level in order; a warp takes as long as its slowest lane. So a warp with one
//! P-position (which reads every option) waits for it while its N-positions (which stop at their
//! first P option) idle. For each square this prints the options read and what the warps pay for
//! them: the sum over warps of 32 × the most any lane read.
//!
//! It also weighs two passes with a cap of K options. The first pass reads at most K options of
//! every position; the second pass takes only the positions still undecided, packed into full
//! warps, and reads all of their options again from the first.
//!
//! Counts, not times: every option counts as one read, interior or hook.
//!
//! `cargo run --release --example chomp_simt -- 10 12 14`

use chompute::chomp::diagram::ChompBox;
use chompute::chomp::index::BitLayout;
use chompute::chomp::two_player::pull::solve_pull_levels;

/// Lanes of a warp (NVIDIA's).
const WARP: usize = 32;

/// The caps weighed for two passes.
const CAPS: [u32; 4] = [8, 16, 32, 64];

/// What the warps pay: lane-reads of one pass and of two passes with each cap.
#[derive(Default)]
struct Paid {
    reads: u64,
    positions: u64,
    one_pass: u64,
    two_pass: [u64; CAPS.len()],
    /// Positions undecided after the first pass, with each cap.
    left: [u64; CAPS.len()],
}

/// 32 × the most a lane of each warp of `reads` (in order, the last warp partly empty) reads.
fn warps(reads: impl Iterator<Item = u32>) -> u64 {
    let (mut paid, mut most, mut lanes) = (0u64, 0u32, 0usize);
    for r in reads {
        most = most.max(r);
        lanes += 1;
        if lanes == WARP {
            paid += WARP as u64 * most as u64;
            (most, lanes) = (0, 0);
        }
    }
    paid + if lanes > 0 {
        WARP as u64 * most as u64
    } else {
        0
    }
}

impl Paid {
    fn level(&mut self, reads: &[u32]) {
        self.reads += reads.iter().map(|&r| r as u64).sum::<u64>();
        self.positions += reads.len() as u64;
        self.one_pass += warps(reads.iter().copied());
        for (k, &cap) in CAPS.iter().enumerate() {
            let first = warps(reads.iter().map(|&r| r.min(cap)));
            // Begun again from the first option (nothing of a position is kept between passes).
            let rest = reads.iter().copied().filter(|&r| r > cap);
            self.left[k] += reads.iter().filter(|&&r| r > cap).count() as u64;
            self.two_pass[k] += first + warps(rest);
        }
    }
}

fn main() {
    for arg in std::env::args().skip(1) {
        let Some(n) = arg.parse::<usize>().ok().filter(|n| (1..=16).contains(n)) else {
            eprintln!("chomp_simt: not a side from 1 to 16: {arg}");
            std::process::exit(2);
        };
        let layout = BitLayout::for_box(ChompBox::square(n)).expect("a square's layout");
        let mut paid = Paid::default();
        let (table, stats) =
            solve_pull_levels(&layout, |reads| paid.level(reads)).expect("the pull scan");
        assert_eq!(paid.reads, stats.options, "{n}x{n}: the levels' reads");
        // The levels hold index 0 too (the bare poisoned square, decided without a read).
        assert_eq!(
            paid.positions,
            stats.positions + 1,
            "{n}x{n}: the levels' positions"
        );
        let per = |x: u64| x as f64 / paid.positions as f64;
        let lanes = |x: u64| 100.0 * paid.reads as f64 / x as f64;
        println!(
            "{n}x{n}: {} positions, {} P; {:.2} options read a position",
            paid.positions,
            table.p_count(),
            per(paid.reads)
        );
        println!(
            "  one pass: warps pay {:.2} lane-reads a position ({:.1}% of lanes busy)",
            per(paid.one_pass),
            lanes(paid.one_pass)
        );
        for (k, cap) in CAPS.iter().enumerate() {
            println!(
                "  two passes, cap {cap}: {:.2} ({:.1}% busy), {:.3}% of positions left to the second",
                per(paid.two_pass[k]),
                lanes(paid.two_pass[k]),
                100.0 * paid.left[k] as f64 / paid.positions as f64
            );
        }
    }
}
