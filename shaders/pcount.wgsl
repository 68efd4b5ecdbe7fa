// Count the P-cells of a generated tile: popcount per invocation, a workgroup tree reduction
// in shared memory, and one atomic add per workgroup into the tile's counter. A tile holds at
// most 2^31 cells, so a u32 counter is exact; the host adds tiles in u64/u128.

struct Params {
    total_words: u32,
    groups_x: u32,
    slot: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> words: array<u32>;
@group(0) @binding(2) var<storage, read_write> counts: array<atomic<u32>>;

var<workgroup> partial: array<u32, 256>;

@compute @workgroup_size(256)
fn count_p(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let idx = (wg.y * params.groups_x + wg.x) * 256u + li;
    var c = 0u;
    if (idx < params.total_words) {
        c = countOneBits(words[idx]);
    }
    partial[li] = c;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (li < s) {
            partial[li] += partial[li + s];
        }
        workgroupBarrier();
    }
    if (li == 0u && partial[0] != 0u) {
        atomicAdd(&counts[params.slot], partial[0]);
    }
}
