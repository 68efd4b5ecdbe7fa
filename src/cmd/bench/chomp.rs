//! `chompute bench` figures for multiplayer Chomp: positions per second of the general engine
//! (rank-order sweep) and of the three-row engine, for a 3-player rule whose table is not
//! trivial (0,1,2 uses every ordinal).
//!
//! Tests: `bench --quick` in tests/pictures/cli_outputs.rs and the device script's full run.

use super::{BenchEnv, Measurement};
use chompute::chomp::{ordinals_three_rows, Choice, ChompBox, Ranker, Rule};

pub fn bench_chomp(env: &BenchEnv, out: &mut Vec<Measurement>) -> anyhow::Result<()> {
    let rule = Rule::from_perm(vec![0, 1, 2]);
    let choice = Choice::new(&rule);
    let side = if env.quick { 8 } else { 13 };
    let ranker = Ranker::new(ChompBox::square(side))?;
    env.measure(
        out,
        "chomp ord general",
        &format!("{side}x{side}"),
        "cpu",
        "positions",
        ranker.len() as u128,
        || Ok(chompute::chomp::multiplayer::ordinal::ordinals_in_rank_order(&ranker, &choice)?),
    )?;
    bench_two_player(env, out)?;
    let cols: u32 = if env.quick { 200 } else { 1000 };
    let positions = ChompBox { rows: 3, cols }.positions().expect("small") as u128;
    env.measure(
        out,
        "chomp ord three-row",
        &format!("3x{cols}"),
        "cpu",
        "positions",
        positions,
        || {
            let mut ones = 0u64;
            ordinals_three_rows(cols, &choice, |_, s| {
                ones += s.iter().filter(|&&o| o == 1).count() as u64
            });
            Ok(ones)
        },
    )?;
    Ok(())
}

/// The two-player table of a square box: the prefix-layer solver on the CPU, its volume-layer
/// twin (the GPU kernel's schedule) on the CPU, and the layer kernel on the GPU; the three
/// tables must agree.
fn bench_two_player(env: &BenchEnv, out: &mut Vec<Measurement>) -> anyhow::Result<()> {
    use chompute::chomp::two_player::reference::solve_by_volume_layers;
    use chompute::chomp::two_player::solve::solve;
    let side = if env.quick { 10 } else { 14 };
    let shape = ChompBox::square(side);
    let size = format!("{side}x{side}");
    let positions = shape.positions().expect("small") as u128;
    let fast = env.measure(
        out,
        "chomp solve",
        &size,
        "cpu",
        "positions",
        positions,
        || Ok(solve(shape)?.words()),
    )?;
    let twin = env.measure(
        out,
        "chomp solve volume layers",
        &size,
        "cpu",
        "positions",
        positions,
        || Ok(solve_by_volume_layers(shape)?.words()),
    )?;
    agree!(
        twin == fast,
        "chomp {size}: the volume-layer twin disagrees with the prefix layers"
    );
    if let Some(ctx) = &env.gpu {
        let gpu = chompute::gpu::chomp::ChompGpu::new(ctx.clone());
        let words = env.measure(
            out,
            "chomp solve volume layers",
            &size,
            "gpu",
            "positions",
            positions,
            || Ok(gpu.solve(shape)?.words()),
        )?;
        agree!(
            words == fast,
            "chomp {size}: the GPU layer kernel disagrees with the CPU"
        );
    }
    Ok(())
}
