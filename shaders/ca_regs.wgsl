// Several steps of the second-order automaton of docs/mathematics.md §3 per launch, held in
// registers (CPU twin: chocolate::automaton::ca_regs, the same tiles and order of operations):
//
//   b_{n+1}(i,j) = b_n(i,j) ^ b_n(i-1,j) ^ b_n(i,j-1) ^ b_n(i-1,j-1) ^ b_{n-1}(i-1,j-1)
//
// A cell depends only on cells above it and to its left. Each invocation (a lane) holds one
// word column of HELD = STEPS_MAX + OUT_ROWS rows of b_{n-1} and b_n in registers, and the
// lanes of one subgroup hold adjacent words. A step walks the lane's rows top to bottom; the
// bits a word needs from the word to its left are one shuffle away (subgroupShuffleUp): with
// t = row_i(b_n) ^ row_{i-1}(b_n) and s = t ^ row_{i-1}(b_{n-1}), the new word is
// t ^ (s >> 1) ^ (s of the lane to the left << 31). No workgroup memory, no barrier.
//
// The top held row reads zero above it and lane 0 reads zero bits to its left, so staleness
// creeps one row down and one bit right per step: after STEPS_MAX ≤ 32 steps the rows below
// the first STEPS_MAX and the lanes right of lane 0 are exact, and only they are written.
// Global memory is read once (two generations, HELD rows of every lane) and written once (two
// generations, OUT_ROWS rows of lanes 1..) per launch of up to STEPS_MAX steps.
//
// Subgroup g of workgroup wg.x holds the grid words from (wg.x·(GROUP/lanes) + g)·(lanes-1) - 1
// on, lanes = min(subgroup size, GROUP), so any subgroup size from 4 to 128 tiles the grid
// (the host sizes the dispatch for the adapter's smallest). Every lane runs every loop to the
// end, so the shuffles see the whole subgroup. For a band of rows [row0, row0+rows) the host
// binds rows [row0-halo, row0+rows) of b_{n-1} and b_n (halo = min(STEPS_MAX, row0); rows above
// row 0 read as zero) and rows [row0, row0+rows) of the two outputs, b_{n+steps-1} and
// b_{n+steps}. `rows` and `words` are the active square of b_{n+steps}; nothing outside it is
// read or written.

// No `enable subgroups;`: naga 30 (the WGSL front end wgpu 30 compiles with) refuses the
// directive as not yet implemented and takes the subgroup built-ins without it; the host
// builds this kernel only on a device opened with wgpu's SUBGROUP feature.

struct Params {
    rows: u32,
    words: u32,
    stride: u32,
    halo: u32,
    steps: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

/// Most steps one launch takes (≤ 32), output rows per lane, rows each lane holds.
const STEPS_MAX: u32 = 16u;
const OUT_ROWS: u32 = 32u;
const HELD: u32 = 48u;
/// Invocations per workgroup: a whole number of subgroups of any size up to 128.
const GROUP: u32 = 128u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> prev_in: array<u32>;
@group(0) @binding(2) var<storage, read> cur_in: array<u32>;
@group(0) @binding(3) var<storage, read_write> prev_out: array<u32>;
@group(0) @binding(4) var<storage, read_write> cur_out: array<u32>;

@compute @workgroup_size(128, 1, 1)
fn ca_regs(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(subgroup_id) sg: u32,
    @builtin(subgroup_size) sg_size: u32,
    @builtin(subgroup_invocation_id) lane: u32,
) {
    let lanes = min(sg_size, GROUP);
    // Grid word + 1 of this lane (lane 0 of a subgroup: the halo word left of its tile).
    let shifted = (wg.x * (GROUP / lanes) + sg) * (lanes - 1u) + lane;
    let in_grid = shifted >= 1u && shifted - 1u < params.words;
    let word = shifted - 1u;
    let t0 = wg.y * OUT_ROWS;

    // Held row r is band row t0 + r - STEPS_MAX, window row t0 + r - STEPS_MAX + halo.
    var p: array<u32, HELD>;
    var c: array<u32, HELD>;
    for (var r = 0u; r < HELD; r++) {
        var pv = 0u;
        var cv = 0u;
        let at = t0 + r + params.halo;
        if (in_grid && at >= STEPS_MAX && at - STEPS_MAX < params.halo + params.rows) {
            let i = (at - STEPS_MAX) * params.stride + word;
            pv = prev_in[i];
            cv = cur_in[i];
        }
        p[r] = pv;
        c[r] = cv;
    }

    for (var step = 0u; step < params.steps; step++) {
        // Row r-1 of b_n and b_{n-1} as they were before this step (zero above the top row).
        var a_up = 0u;
        var p_up = 0u;
        for (var r = 0u; r < HELD; r++) {
            let a = c[r];
            let t = a ^ a_up;
            let s = t ^ p_up;
            let left = select(0u, subgroupShuffleUp(s, 1u), lane > 0u);
            a_up = a;
            p_up = p[r];
            p[r] = a;
            c[r] = t ^ (s >> 1u) ^ (left << 31u);
        }
    }

    if (lane >= 1u && in_grid) {
        for (var r = STEPS_MAX; r < HELD; r++) {
            let row = t0 + r - STEPS_MAX;
            if (row < params.rows) {
                let i = row * params.stride + word;
                prev_out[i] = p[r];
                cur_out[i] = c[r];
            }
        }
    }
}
