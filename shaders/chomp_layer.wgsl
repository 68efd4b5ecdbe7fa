// One volume layer of the two-player Chomp table: one invocation per position of the layer
// (CPU twin: chomp::solve::PTable::solve_volume_layer, the same unranking and the same scan of
// first_p_option).
//
// Positions of equal volume never move to each other (a bite removes at least one cell), so
// every invocation of a dispatch reads only bits of smaller volumes, finished by the dispatches
// before it, and sets at most its own bit. Bits of several positions share a word, so reads are
// atomicLoad and the one write is atomicOr: no invocation can lose another's bit.
//
// Ranks are u32 (boxes of at most 2^32 positions); weights[j * stride + len] is the colex rank
// weight C(len + R-1-j, R-j) of row j having length len, so rank = Σ_j weights[j][a_j] and a bite
// (x, t) lowers it by Σ over the rows it cuts of weights[r][a_r] - weights[r][t]. Table words are
// u32 here and u64 on the host: bit r of the table is bit r % 32 of word r / 32 in both, since
// the host's words are little-endian.

struct Params {
    rows: u32,
    stride: u32,
    count: u32,
    groups_x: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> weights: array<u32>;
@group(0) @binding(2) var<storage, read> ranks: array<u32>;
@group(0) @binding(3) var<storage, read_write> table: array<atomic<u32>>;

// Most rows of a box the kernel takes (the host refuses more).
const MAX_ROWS: u32 = 32u;
const WORKGROUP: u32 = 64u;

fn is_p(r: u32) -> bool {
    return ((atomicLoad(&table[r >> 5u]) >> (r & 31u)) & 1u) == 1u;
}

fn w(j: u32, len: u32) -> u32 {
    return weights[j * params.stride + len];
}

@compute @workgroup_size(64)
fn chomp_layer(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * params.groups_x * WORKGROUP;
    if (i >= params.count) {
        return;
    }
    let rank = ranks[i];
    if (rank == 0u) {
        return; // the empty diagram is not a position
    }
    // Unrank: row j's length is the largest len ≤ the row above with weight ≤ what is left.
    var rows: array<u32, MAX_ROWS>;
    var left = rank;
    var hi = params.stride - 1u;
    var last = 0u;
    for (var j = 0u; j < params.rows; j++) {
        var len = hi;
        while (w(j, len) > left) {
            len -= 1u;
        }
        left -= w(j, len);
        rows[j] = len;
        hi = len;
        if (len > 0u) {
            last = j;
        }
    }
    // first_p_option: for each new length t, the bites (x, t) top row first.
    let first = rows[0];
    for (var t = 0u; t < first; t++) {
        while (rows[last] <= t) {
            last -= 1u;
        }
        var delta = 0u;
        for (var x = 0u; x <= last; x++) {
            delta += w(x, rows[x]) - w(x, t);
        }
        for (var x = 0u; x <= last; x++) {
            if (x > 0u) {
                delta -= w(x - 1u, rows[x - 1u]) - w(x - 1u, t);
            }
            if (t == 0u && x == 0u) {
                continue; // the poison
            }
            if (is_p(rank - delta)) {
                return; // an option is P: this position is N
            }
        }
    }
    atomicOr(&table[rank >> 5u], 1u << (rank & 31u));
}
