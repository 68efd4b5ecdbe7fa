//! The order in which the pull scan (`two_player::pull`, the GPU's hook kernel) reads a
//! position's options, weighed: for each order, the options read a position (every option of
//! a P-position, an N-position's up to its first P one) and, of an N-position's, how many were
//! interior bites (O(1) each) and how many hook bites (a fresh index each). To 13×13 every
//! position, solved by the scan, whose own order is checked against its count; past it a
//! sample of 200,000 positions spread evenly over the index, the table solved by the forward
//! solver.
//!
//! `cargo run --release --example chomp_option_order -- 10 12 16 18`

use chompute::chomp::diagram::ChompBox;
use chompute::chomp::index::BitLayout;
use chompute::chomp::two_player::pull::{solve_pull, PullScan};
use chompute::chomp::two_player::solve::solve_layers;

/// Positions weighed past 13×13.
const SAMPLE: u64 = 200_000;

/// An option: its cell (row i, column j), the cells the bite takes, whether the cell lies in
/// the interior of the innermost block, whether the option is P.
type Opt = (u32, u32, u32, bool, bool);

/// An order's sort key of an option.
type Key = fn(&Opt) -> (u32, u32, u32);

/// The orders weighed.
const ORDERS: [(&str, Key); 4] = [
    (
        "interior (column, row descending), then hook row by row",
        |&(i, j, _, int, _)| {
            if int {
                (0, j, u32::MAX - i)
            } else {
                (1, i, j)
            }
        },
    ),
    (
        "hook i+j <= 2, interior, other hook (the scan's)",
        |&(i, j, _, int, _)| {
            if int {
                (1, j, u32::MAX - i)
            } else if i + j <= 2 {
                (0, i + j, i)
            } else {
                (2, i, j)
            }
        },
    ),
    ("every cell by anti-diagonals", |&(i, j, _, _, _)| {
        (i + j, i, 0)
    }),
    ("most cells taken first", |&(i, j, taken, _, _)| {
        (u32::MAX - taken, i, j)
    }),
];

fn main() {
    for arg in std::env::args().skip(1) {
        let Some(n) = arg.parse::<usize>().ok().filter(|n| (1..=18).contains(n)) else {
            eprintln!("chomp_option_order: not a side from 1 to 18: {arg}");
            std::process::exit(2);
        };
        let layout = BitLayout::for_box(ChompBox::square(n)).expect("a square's layout");
        let hook = layout.hook_index().expect("a square's hook index").clone();
        let scan = PullScan::new(&hook);
        let (table, scanned, qs): (_, _, Vec<u64>) = if n <= 13 {
            let (table, stats) = solve_pull(&layout).expect("the pull scan");
            (table, Some(stats.options), (1..hook.len()).collect())
        } else {
            let table = solve_layers(layout.clone()).expect("the forward solver");
            let step = (hook.len() - 1) / SAMPLE;
            (table, None, (0..SAMPLE).map(|k| 1 + k * step).collect())
        };
        let positions = qs.len() as u64;
        let (mut all, mut n_pos) = ([0u64; ORDERS.len()], 0u64);
        let (mut interior, mut hooks) = ([0u64; ORDERS.len()], [0u64; ORDERS.len()]);
        for q in qs {
            let loc = scan.locate(q);
            let rows = scan.compose(&loc);
            let d = loc.depth as u32;
            let mut opts: Vec<Opt> = Vec::new();
            for i in 0..n {
                for j in (0..rows[i]).filter(|&j| i + j as usize > 0) {
                    let mut opt = rows;
                    let taken = opt[i..n].iter_mut().map(|v| {
                        let t = v.saturating_sub(j);
                        *v = (*v).min(j);
                        t
                    });
                    let taken = taken.sum();
                    let p = table.is_p_bit(scan.index_of(&opt));
                    opts.push((i as u32, j, taken, i as u32 > d && j > d, p));
                }
            }
            let is_p = table.is_p_bit(q);
            n_pos += u64::from(!is_p);
            for (k, (_, key)) in ORDERS.iter().enumerate() {
                opts.sort_by_key(key);
                let read = opts.iter().position(|o| o.4).map_or(opts.len(), |f| f + 1);
                all[k] += read as u64;
                if !is_p {
                    let ints = opts[..read].iter().filter(|o| o.3).count() as u64;
                    interior[k] += ints;
                    hooks[k] += read as u64 - ints;
                }
            }
        }
        if let Some(options) = scanned {
            assert_eq!(all[1], options, "{n}x{n}: the scan's order, counted twice");
        }
        let per = |x: u64, of: u64| x as f64 / of as f64;
        let of = if scanned.is_some() {
            "every one"
        } else {
            "a sample"
        };
        println!("{n}x{n}: {positions} positions ({of}), {n_pos} N");
        for (k, (name, _)) in ORDERS.iter().enumerate() {
            println!(
                "  {name}: {:.2} options a position; an N-position's: {:.2} interior, {:.2} hook",
                per(all[k], positions),
                per(interior[k], n_pos),
                per(hooks[k], n_pos)
            );
        }
    }
}
