// Two-player Chomp on a square in the hook index (CPU twin: chomp::two_player::pull, the same
// units, the same positions, the same options in the same order, the same bits; the steps are
// those of the CPU's forward solver, walked by the one driver). A step's ranges are split into
// levels (the cells of a position's free rows, the last rows of its colex block under the
// range's prefix), one dispatch a level, ascending: an option in the same range has fewer
// cells there, every other option lies in an earlier step. An invocation decides `per`
// consecutive positions of the level (1 on a hardware adapter), each found by a binary search
// of the level's range starts and unranked by the level counts: P when none of its options is
// P, reading options until the first P one; it sets its own bit with atomicOr (a word may be
// shared).
//
// Indexes and ranks are 64-bit, as vec2<u32> (x the low half, y the high). The table's bits
// lie in up to 128 buffers of 2^params.shift u32 words each (bit q is bit q % 32 of word
// q / 32, that word in buffer word >> shift at word & (2^shift - 1)): each within one storage
// binding, all of them together the device's memory.
//
// `hix`: the hook index. weights[(r * s + j) * s + len] (two words each, low first) is the
// colex weight C(len + r-1-j, r-j); at sq0 + 3m the square m's first block_first, its block_first count and
// where its `at` table starts (at[a * (m+1) + b]: the block_first of hook (a, b), a ≥ b); at bk0 + 6i
// block_first i: its first index in its square (two words), kind (0 the empty diagram, 1 colex, 2 a
// child square), r and c of a colex block_first (interiors of r rows of at most c cells), the side of
// a child square. At lc0 + (f * caps + cap) * vs + v: how many diagrams of at most f rows of at
// most cap cells hold v cells (the level counts; 0 for v ≥ vs).

struct Params {
    n: u32,
    s: u32,
    sq0: u32,
    bk0: u32,
    count: u32,
    groups_x: u32,
    shift: u32,
    stats: u32,
    twice: u32,
    level: u32,
    s0: u32,
    slen: u32,
    size: u32,
    per: u32,
    res0: u32,
    lc0: u32,
    caps: u32,
    vs: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> hix: array<u32>;
@group(0) @binding(2) var<storage, read_write> io: array<u32>;
@group(0) @binding(3) var<storage, read_write> results: array<atomic<u32>>;

@group(0) @binding(4) var<storage, read_write> t0: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> t1: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> t2: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> t3: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> t4: array<atomic<u32>>;
@group(0) @binding(9) var<storage, read_write> t5: array<atomic<u32>>;
@group(0) @binding(10) var<storage, read_write> t6: array<atomic<u32>>;
@group(0) @binding(11) var<storage, read_write> t7: array<atomic<u32>>;
@group(0) @binding(12) var<storage, read_write> t8: array<atomic<u32>>;
@group(0) @binding(13) var<storage, read_write> t9: array<atomic<u32>>;
@group(0) @binding(14) var<storage, read_write> t10: array<atomic<u32>>;
@group(0) @binding(15) var<storage, read_write> t11: array<atomic<u32>>;
@group(0) @binding(16) var<storage, read_write> t12: array<atomic<u32>>;
@group(0) @binding(17) var<storage, read_write> t13: array<atomic<u32>>;
@group(0) @binding(18) var<storage, read_write> t14: array<atomic<u32>>;
@group(0) @binding(19) var<storage, read_write> t15: array<atomic<u32>>;
@group(0) @binding(20) var<storage, read_write> t16: array<atomic<u32>>;
@group(0) @binding(21) var<storage, read_write> t17: array<atomic<u32>>;
@group(0) @binding(22) var<storage, read_write> t18: array<atomic<u32>>;
@group(0) @binding(23) var<storage, read_write> t19: array<atomic<u32>>;
@group(0) @binding(24) var<storage, read_write> t20: array<atomic<u32>>;
@group(0) @binding(25) var<storage, read_write> t21: array<atomic<u32>>;
@group(0) @binding(26) var<storage, read_write> t22: array<atomic<u32>>;
@group(0) @binding(27) var<storage, read_write> t23: array<atomic<u32>>;
@group(0) @binding(28) var<storage, read_write> t24: array<atomic<u32>>;
@group(0) @binding(29) var<storage, read_write> t25: array<atomic<u32>>;
@group(0) @binding(30) var<storage, read_write> t26: array<atomic<u32>>;
@group(0) @binding(31) var<storage, read_write> t27: array<atomic<u32>>;
@group(0) @binding(32) var<storage, read_write> t28: array<atomic<u32>>;
@group(0) @binding(33) var<storage, read_write> t29: array<atomic<u32>>;
@group(0) @binding(34) var<storage, read_write> t30: array<atomic<u32>>;
@group(0) @binding(35) var<storage, read_write> t31: array<atomic<u32>>;
@group(0) @binding(36) var<storage, read_write> t32: array<atomic<u32>>;
@group(0) @binding(37) var<storage, read_write> t33: array<atomic<u32>>;
@group(0) @binding(38) var<storage, read_write> t34: array<atomic<u32>>;
@group(0) @binding(39) var<storage, read_write> t35: array<atomic<u32>>;
@group(0) @binding(40) var<storage, read_write> t36: array<atomic<u32>>;
@group(0) @binding(41) var<storage, read_write> t37: array<atomic<u32>>;
@group(0) @binding(42) var<storage, read_write> t38: array<atomic<u32>>;
@group(0) @binding(43) var<storage, read_write> t39: array<atomic<u32>>;
@group(0) @binding(44) var<storage, read_write> t40: array<atomic<u32>>;
@group(0) @binding(45) var<storage, read_write> t41: array<atomic<u32>>;
@group(0) @binding(46) var<storage, read_write> t42: array<atomic<u32>>;
@group(0) @binding(47) var<storage, read_write> t43: array<atomic<u32>>;
@group(0) @binding(48) var<storage, read_write> t44: array<atomic<u32>>;
@group(0) @binding(49) var<storage, read_write> t45: array<atomic<u32>>;
@group(0) @binding(50) var<storage, read_write> t46: array<atomic<u32>>;
@group(0) @binding(51) var<storage, read_write> t47: array<atomic<u32>>;
@group(0) @binding(52) var<storage, read_write> t48: array<atomic<u32>>;
@group(0) @binding(53) var<storage, read_write> t49: array<atomic<u32>>;
@group(0) @binding(54) var<storage, read_write> t50: array<atomic<u32>>;
@group(0) @binding(55) var<storage, read_write> t51: array<atomic<u32>>;
@group(0) @binding(56) var<storage, read_write> t52: array<atomic<u32>>;
@group(0) @binding(57) var<storage, read_write> t53: array<atomic<u32>>;
@group(0) @binding(58) var<storage, read_write> t54: array<atomic<u32>>;
@group(0) @binding(59) var<storage, read_write> t55: array<atomic<u32>>;
@group(0) @binding(60) var<storage, read_write> t56: array<atomic<u32>>;
@group(0) @binding(61) var<storage, read_write> t57: array<atomic<u32>>;
@group(0) @binding(62) var<storage, read_write> t58: array<atomic<u32>>;
@group(0) @binding(63) var<storage, read_write> t59: array<atomic<u32>>;
@group(0) @binding(64) var<storage, read_write> t60: array<atomic<u32>>;
@group(0) @binding(65) var<storage, read_write> t61: array<atomic<u32>>;
@group(0) @binding(66) var<storage, read_write> t62: array<atomic<u32>>;
@group(0) @binding(67) var<storage, read_write> t63: array<atomic<u32>>;
@group(0) @binding(68) var<storage, read_write> t64: array<atomic<u32>>;
@group(0) @binding(69) var<storage, read_write> t65: array<atomic<u32>>;
@group(0) @binding(70) var<storage, read_write> t66: array<atomic<u32>>;
@group(0) @binding(71) var<storage, read_write> t67: array<atomic<u32>>;
@group(0) @binding(72) var<storage, read_write> t68: array<atomic<u32>>;
@group(0) @binding(73) var<storage, read_write> t69: array<atomic<u32>>;
@group(0) @binding(74) var<storage, read_write> t70: array<atomic<u32>>;
@group(0) @binding(75) var<storage, read_write> t71: array<atomic<u32>>;
@group(0) @binding(76) var<storage, read_write> t72: array<atomic<u32>>;
@group(0) @binding(77) var<storage, read_write> t73: array<atomic<u32>>;
@group(0) @binding(78) var<storage, read_write> t74: array<atomic<u32>>;
@group(0) @binding(79) var<storage, read_write> t75: array<atomic<u32>>;
@group(0) @binding(80) var<storage, read_write> t76: array<atomic<u32>>;
@group(0) @binding(81) var<storage, read_write> t77: array<atomic<u32>>;
@group(0) @binding(82) var<storage, read_write> t78: array<atomic<u32>>;
@group(0) @binding(83) var<storage, read_write> t79: array<atomic<u32>>;
@group(0) @binding(84) var<storage, read_write> t80: array<atomic<u32>>;
@group(0) @binding(85) var<storage, read_write> t81: array<atomic<u32>>;
@group(0) @binding(86) var<storage, read_write> t82: array<atomic<u32>>;
@group(0) @binding(87) var<storage, read_write> t83: array<atomic<u32>>;
@group(0) @binding(88) var<storage, read_write> t84: array<atomic<u32>>;
@group(0) @binding(89) var<storage, read_write> t85: array<atomic<u32>>;
@group(0) @binding(90) var<storage, read_write> t86: array<atomic<u32>>;
@group(0) @binding(91) var<storage, read_write> t87: array<atomic<u32>>;
@group(0) @binding(92) var<storage, read_write> t88: array<atomic<u32>>;
@group(0) @binding(93) var<storage, read_write> t89: array<atomic<u32>>;
@group(0) @binding(94) var<storage, read_write> t90: array<atomic<u32>>;
@group(0) @binding(95) var<storage, read_write> t91: array<atomic<u32>>;
@group(0) @binding(96) var<storage, read_write> t92: array<atomic<u32>>;
@group(0) @binding(97) var<storage, read_write> t93: array<atomic<u32>>;
@group(0) @binding(98) var<storage, read_write> t94: array<atomic<u32>>;
@group(0) @binding(99) var<storage, read_write> t95: array<atomic<u32>>;
@group(0) @binding(100) var<storage, read_write> t96: array<atomic<u32>>;
@group(0) @binding(101) var<storage, read_write> t97: array<atomic<u32>>;
@group(0) @binding(102) var<storage, read_write> t98: array<atomic<u32>>;
@group(0) @binding(103) var<storage, read_write> t99: array<atomic<u32>>;
@group(0) @binding(104) var<storage, read_write> t100: array<atomic<u32>>;
@group(0) @binding(105) var<storage, read_write> t101: array<atomic<u32>>;
@group(0) @binding(106) var<storage, read_write> t102: array<atomic<u32>>;
@group(0) @binding(107) var<storage, read_write> t103: array<atomic<u32>>;
@group(0) @binding(108) var<storage, read_write> t104: array<atomic<u32>>;
@group(0) @binding(109) var<storage, read_write> t105: array<atomic<u32>>;
@group(0) @binding(110) var<storage, read_write> t106: array<atomic<u32>>;
@group(0) @binding(111) var<storage, read_write> t107: array<atomic<u32>>;
@group(0) @binding(112) var<storage, read_write> t108: array<atomic<u32>>;
@group(0) @binding(113) var<storage, read_write> t109: array<atomic<u32>>;
@group(0) @binding(114) var<storage, read_write> t110: array<atomic<u32>>;
@group(0) @binding(115) var<storage, read_write> t111: array<atomic<u32>>;
@group(0) @binding(116) var<storage, read_write> t112: array<atomic<u32>>;
@group(0) @binding(117) var<storage, read_write> t113: array<atomic<u32>>;
@group(0) @binding(118) var<storage, read_write> t114: array<atomic<u32>>;
@group(0) @binding(119) var<storage, read_write> t115: array<atomic<u32>>;
@group(0) @binding(120) var<storage, read_write> t116: array<atomic<u32>>;
@group(0) @binding(121) var<storage, read_write> t117: array<atomic<u32>>;
@group(0) @binding(122) var<storage, read_write> t118: array<atomic<u32>>;
@group(0) @binding(123) var<storage, read_write> t119: array<atomic<u32>>;
@group(0) @binding(124) var<storage, read_write> t120: array<atomic<u32>>;
@group(0) @binding(125) var<storage, read_write> t121: array<atomic<u32>>;
@group(0) @binding(126) var<storage, read_write> t122: array<atomic<u32>>;
@group(0) @binding(127) var<storage, read_write> t123: array<atomic<u32>>;
@group(0) @binding(128) var<storage, read_write> t124: array<atomic<u32>>;
@group(0) @binding(129) var<storage, read_write> t125: array<atomic<u32>>;
@group(0) @binding(130) var<storage, read_write> t126: array<atomic<u32>>;
@group(0) @binding(131) var<storage, read_write> t127: array<atomic<u32>>;

// The word `local` of table buffer `buf` (a binding each: WGSL selects a binding by name only).
// For plain reads the host makes each case a plain load of a second binding `r<k>` of the same
// buffer (TableReads::Plain in gpu/chomp_hook.rs); keep the cases one line each.
fn load_word(buf: u32, local: u32) -> u32 {
    switch buf {
        case 0u: { return atomicLoad(&t0[local]); }
        case 1u: { return atomicLoad(&t1[local]); }
        case 2u: { return atomicLoad(&t2[local]); }
        case 3u: { return atomicLoad(&t3[local]); }
        case 4u: { return atomicLoad(&t4[local]); }
        case 5u: { return atomicLoad(&t5[local]); }
        case 6u: { return atomicLoad(&t6[local]); }
        case 7u: { return atomicLoad(&t7[local]); }
        case 8u: { return atomicLoad(&t8[local]); }
        case 9u: { return atomicLoad(&t9[local]); }
        case 10u: { return atomicLoad(&t10[local]); }
        case 11u: { return atomicLoad(&t11[local]); }
        case 12u: { return atomicLoad(&t12[local]); }
        case 13u: { return atomicLoad(&t13[local]); }
        case 14u: { return atomicLoad(&t14[local]); }
        case 15u: { return atomicLoad(&t15[local]); }
        case 16u: { return atomicLoad(&t16[local]); }
        case 17u: { return atomicLoad(&t17[local]); }
        case 18u: { return atomicLoad(&t18[local]); }
        case 19u: { return atomicLoad(&t19[local]); }
        case 20u: { return atomicLoad(&t20[local]); }
        case 21u: { return atomicLoad(&t21[local]); }
        case 22u: { return atomicLoad(&t22[local]); }
        case 23u: { return atomicLoad(&t23[local]); }
        case 24u: { return atomicLoad(&t24[local]); }
        case 25u: { return atomicLoad(&t25[local]); }
        case 26u: { return atomicLoad(&t26[local]); }
        case 27u: { return atomicLoad(&t27[local]); }
        case 28u: { return atomicLoad(&t28[local]); }
        case 29u: { return atomicLoad(&t29[local]); }
        case 30u: { return atomicLoad(&t30[local]); }
        case 31u: { return atomicLoad(&t31[local]); }
        case 32u: { return atomicLoad(&t32[local]); }
        case 33u: { return atomicLoad(&t33[local]); }
        case 34u: { return atomicLoad(&t34[local]); }
        case 35u: { return atomicLoad(&t35[local]); }
        case 36u: { return atomicLoad(&t36[local]); }
        case 37u: { return atomicLoad(&t37[local]); }
        case 38u: { return atomicLoad(&t38[local]); }
        case 39u: { return atomicLoad(&t39[local]); }
        case 40u: { return atomicLoad(&t40[local]); }
        case 41u: { return atomicLoad(&t41[local]); }
        case 42u: { return atomicLoad(&t42[local]); }
        case 43u: { return atomicLoad(&t43[local]); }
        case 44u: { return atomicLoad(&t44[local]); }
        case 45u: { return atomicLoad(&t45[local]); }
        case 46u: { return atomicLoad(&t46[local]); }
        case 47u: { return atomicLoad(&t47[local]); }
        case 48u: { return atomicLoad(&t48[local]); }
        case 49u: { return atomicLoad(&t49[local]); }
        case 50u: { return atomicLoad(&t50[local]); }
        case 51u: { return atomicLoad(&t51[local]); }
        case 52u: { return atomicLoad(&t52[local]); }
        case 53u: { return atomicLoad(&t53[local]); }
        case 54u: { return atomicLoad(&t54[local]); }
        case 55u: { return atomicLoad(&t55[local]); }
        case 56u: { return atomicLoad(&t56[local]); }
        case 57u: { return atomicLoad(&t57[local]); }
        case 58u: { return atomicLoad(&t58[local]); }
        case 59u: { return atomicLoad(&t59[local]); }
        case 60u: { return atomicLoad(&t60[local]); }
        case 61u: { return atomicLoad(&t61[local]); }
        case 62u: { return atomicLoad(&t62[local]); }
        case 63u: { return atomicLoad(&t63[local]); }
        case 64u: { return atomicLoad(&t64[local]); }
        case 65u: { return atomicLoad(&t65[local]); }
        case 66u: { return atomicLoad(&t66[local]); }
        case 67u: { return atomicLoad(&t67[local]); }
        case 68u: { return atomicLoad(&t68[local]); }
        case 69u: { return atomicLoad(&t69[local]); }
        case 70u: { return atomicLoad(&t70[local]); }
        case 71u: { return atomicLoad(&t71[local]); }
        case 72u: { return atomicLoad(&t72[local]); }
        case 73u: { return atomicLoad(&t73[local]); }
        case 74u: { return atomicLoad(&t74[local]); }
        case 75u: { return atomicLoad(&t75[local]); }
        case 76u: { return atomicLoad(&t76[local]); }
        case 77u: { return atomicLoad(&t77[local]); }
        case 78u: { return atomicLoad(&t78[local]); }
        case 79u: { return atomicLoad(&t79[local]); }
        case 80u: { return atomicLoad(&t80[local]); }
        case 81u: { return atomicLoad(&t81[local]); }
        case 82u: { return atomicLoad(&t82[local]); }
        case 83u: { return atomicLoad(&t83[local]); }
        case 84u: { return atomicLoad(&t84[local]); }
        case 85u: { return atomicLoad(&t85[local]); }
        case 86u: { return atomicLoad(&t86[local]); }
        case 87u: { return atomicLoad(&t87[local]); }
        case 88u: { return atomicLoad(&t88[local]); }
        case 89u: { return atomicLoad(&t89[local]); }
        case 90u: { return atomicLoad(&t90[local]); }
        case 91u: { return atomicLoad(&t91[local]); }
        case 92u: { return atomicLoad(&t92[local]); }
        case 93u: { return atomicLoad(&t93[local]); }
        case 94u: { return atomicLoad(&t94[local]); }
        case 95u: { return atomicLoad(&t95[local]); }
        case 96u: { return atomicLoad(&t96[local]); }
        case 97u: { return atomicLoad(&t97[local]); }
        case 98u: { return atomicLoad(&t98[local]); }
        case 99u: { return atomicLoad(&t99[local]); }
        case 100u: { return atomicLoad(&t100[local]); }
        case 101u: { return atomicLoad(&t101[local]); }
        case 102u: { return atomicLoad(&t102[local]); }
        case 103u: { return atomicLoad(&t103[local]); }
        case 104u: { return atomicLoad(&t104[local]); }
        case 105u: { return atomicLoad(&t105[local]); }
        case 106u: { return atomicLoad(&t106[local]); }
        case 107u: { return atomicLoad(&t107[local]); }
        case 108u: { return atomicLoad(&t108[local]); }
        case 109u: { return atomicLoad(&t109[local]); }
        case 110u: { return atomicLoad(&t110[local]); }
        case 111u: { return atomicLoad(&t111[local]); }
        case 112u: { return atomicLoad(&t112[local]); }
        case 113u: { return atomicLoad(&t113[local]); }
        case 114u: { return atomicLoad(&t114[local]); }
        case 115u: { return atomicLoad(&t115[local]); }
        case 116u: { return atomicLoad(&t116[local]); }
        case 117u: { return atomicLoad(&t117[local]); }
        case 118u: { return atomicLoad(&t118[local]); }
        case 119u: { return atomicLoad(&t119[local]); }
        case 120u: { return atomicLoad(&t120[local]); }
        case 121u: { return atomicLoad(&t121[local]); }
        case 122u: { return atomicLoad(&t122[local]); }
        case 123u: { return atomicLoad(&t123[local]); }
        case 124u: { return atomicLoad(&t124[local]); }
        case 125u: { return atomicLoad(&t125[local]); }
        case 126u: { return atomicLoad(&t126[local]); }
        case 127u: { return atomicLoad(&t127[local]); }
        default: { return 0u; }
    }
}

// Set bits `v` of the word `local` of table buffer `buf`.
fn or_word(buf: u32, local: u32, v: u32) {
    switch buf {
        case 0u: { atomicOr(&t0[local], v); }
        case 1u: { atomicOr(&t1[local], v); }
        case 2u: { atomicOr(&t2[local], v); }
        case 3u: { atomicOr(&t3[local], v); }
        case 4u: { atomicOr(&t4[local], v); }
        case 5u: { atomicOr(&t5[local], v); }
        case 6u: { atomicOr(&t6[local], v); }
        case 7u: { atomicOr(&t7[local], v); }
        case 8u: { atomicOr(&t8[local], v); }
        case 9u: { atomicOr(&t9[local], v); }
        case 10u: { atomicOr(&t10[local], v); }
        case 11u: { atomicOr(&t11[local], v); }
        case 12u: { atomicOr(&t12[local], v); }
        case 13u: { atomicOr(&t13[local], v); }
        case 14u: { atomicOr(&t14[local], v); }
        case 15u: { atomicOr(&t15[local], v); }
        case 16u: { atomicOr(&t16[local], v); }
        case 17u: { atomicOr(&t17[local], v); }
        case 18u: { atomicOr(&t18[local], v); }
        case 19u: { atomicOr(&t19[local], v); }
        case 20u: { atomicOr(&t20[local], v); }
        case 21u: { atomicOr(&t21[local], v); }
        case 22u: { atomicOr(&t22[local], v); }
        case 23u: { atomicOr(&t23[local], v); }
        case 24u: { atomicOr(&t24[local], v); }
        case 25u: { atomicOr(&t25[local], v); }
        case 26u: { atomicOr(&t26[local], v); }
        case 27u: { atomicOr(&t27[local], v); }
        case 28u: { atomicOr(&t28[local], v); }
        case 29u: { atomicOr(&t29[local], v); }
        case 30u: { atomicOr(&t30[local], v); }
        case 31u: { atomicOr(&t31[local], v); }
        case 32u: { atomicOr(&t32[local], v); }
        case 33u: { atomicOr(&t33[local], v); }
        case 34u: { atomicOr(&t34[local], v); }
        case 35u: { atomicOr(&t35[local], v); }
        case 36u: { atomicOr(&t36[local], v); }
        case 37u: { atomicOr(&t37[local], v); }
        case 38u: { atomicOr(&t38[local], v); }
        case 39u: { atomicOr(&t39[local], v); }
        case 40u: { atomicOr(&t40[local], v); }
        case 41u: { atomicOr(&t41[local], v); }
        case 42u: { atomicOr(&t42[local], v); }
        case 43u: { atomicOr(&t43[local], v); }
        case 44u: { atomicOr(&t44[local], v); }
        case 45u: { atomicOr(&t45[local], v); }
        case 46u: { atomicOr(&t46[local], v); }
        case 47u: { atomicOr(&t47[local], v); }
        case 48u: { atomicOr(&t48[local], v); }
        case 49u: { atomicOr(&t49[local], v); }
        case 50u: { atomicOr(&t50[local], v); }
        case 51u: { atomicOr(&t51[local], v); }
        case 52u: { atomicOr(&t52[local], v); }
        case 53u: { atomicOr(&t53[local], v); }
        case 54u: { atomicOr(&t54[local], v); }
        case 55u: { atomicOr(&t55[local], v); }
        case 56u: { atomicOr(&t56[local], v); }
        case 57u: { atomicOr(&t57[local], v); }
        case 58u: { atomicOr(&t58[local], v); }
        case 59u: { atomicOr(&t59[local], v); }
        case 60u: { atomicOr(&t60[local], v); }
        case 61u: { atomicOr(&t61[local], v); }
        case 62u: { atomicOr(&t62[local], v); }
        case 63u: { atomicOr(&t63[local], v); }
        case 64u: { atomicOr(&t64[local], v); }
        case 65u: { atomicOr(&t65[local], v); }
        case 66u: { atomicOr(&t66[local], v); }
        case 67u: { atomicOr(&t67[local], v); }
        case 68u: { atomicOr(&t68[local], v); }
        case 69u: { atomicOr(&t69[local], v); }
        case 70u: { atomicOr(&t70[local], v); }
        case 71u: { atomicOr(&t71[local], v); }
        case 72u: { atomicOr(&t72[local], v); }
        case 73u: { atomicOr(&t73[local], v); }
        case 74u: { atomicOr(&t74[local], v); }
        case 75u: { atomicOr(&t75[local], v); }
        case 76u: { atomicOr(&t76[local], v); }
        case 77u: { atomicOr(&t77[local], v); }
        case 78u: { atomicOr(&t78[local], v); }
        case 79u: { atomicOr(&t79[local], v); }
        case 80u: { atomicOr(&t80[local], v); }
        case 81u: { atomicOr(&t81[local], v); }
        case 82u: { atomicOr(&t82[local], v); }
        case 83u: { atomicOr(&t83[local], v); }
        case 84u: { atomicOr(&t84[local], v); }
        case 85u: { atomicOr(&t85[local], v); }
        case 86u: { atomicOr(&t86[local], v); }
        case 87u: { atomicOr(&t87[local], v); }
        case 88u: { atomicOr(&t88[local], v); }
        case 89u: { atomicOr(&t89[local], v); }
        case 90u: { atomicOr(&t90[local], v); }
        case 91u: { atomicOr(&t91[local], v); }
        case 92u: { atomicOr(&t92[local], v); }
        case 93u: { atomicOr(&t93[local], v); }
        case 94u: { atomicOr(&t94[local], v); }
        case 95u: { atomicOr(&t95[local], v); }
        case 96u: { atomicOr(&t96[local], v); }
        case 97u: { atomicOr(&t97[local], v); }
        case 98u: { atomicOr(&t98[local], v); }
        case 99u: { atomicOr(&t99[local], v); }
        case 100u: { atomicOr(&t100[local], v); }
        case 101u: { atomicOr(&t101[local], v); }
        case 102u: { atomicOr(&t102[local], v); }
        case 103u: { atomicOr(&t103[local], v); }
        case 104u: { atomicOr(&t104[local], v); }
        case 105u: { atomicOr(&t105[local], v); }
        case 106u: { atomicOr(&t106[local], v); }
        case 107u: { atomicOr(&t107[local], v); }
        case 108u: { atomicOr(&t108[local], v); }
        case 109u: { atomicOr(&t109[local], v); }
        case 110u: { atomicOr(&t110[local], v); }
        case 111u: { atomicOr(&t111[local], v); }
        case 112u: { atomicOr(&t112[local], v); }
        case 113u: { atomicOr(&t113[local], v); }
        case 114u: { atomicOr(&t114[local], v); }
        case 115u: { atomicOr(&t115[local], v); }
        case 116u: { atomicOr(&t116[local], v); }
        case 117u: { atomicOr(&t117[local], v); }
        case 118u: { atomicOr(&t118[local], v); }
        case 119u: { atomicOr(&t119[local], v); }
        case 120u: { atomicOr(&t120[local], v); }
        case 121u: { atomicOr(&t121[local], v); }
        case 122u: { atomicOr(&t122[local], v); }
        case 123u: { atomicOr(&t123[local], v); }
        case 124u: { atomicOr(&t124[local], v); }
        case 125u: { atomicOr(&t125[local], v); }
        case 126u: { atomicOr(&t126[local], v); }
        case 127u: { atomicOr(&t127[local], v); }
        default: { }
    }
}

// Row buffers: the largest side the hook index takes is 31, so 32 entries with a zero after.
const MAXN: u32 = 32u;
const WORKGROUP: u32 = 64u;
// Words of one probe result: the index (2), its buffer and word (2), the rows it unranks to.
const PROBE_WORDS: u32 = 36u;

const EMPTY: u32 = 0u;
const COLEX: u32 = 1u;

// The position being decided: its chain of diagonal hooks (sides, outermost first), its
// innermost hook (a, b) (a = 0: the empty diagram) with interior mu at colex rank x in the
// block_first that starts at index `block_first`; `rows` its row lengths once composed.
var<private> depth: u32;
var<private> sides: array<u32, MAXN>;
var<private> hook_a: u32;
var<private> hook_b: u32;
var<private> rank_x: vec2<u32>;
var<private> block_first: vec2<u32>;
var<private> mu: array<u32, MAXN>;
var<private> rows: array<u32, MAXN>;
var<private> reads: u32;

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

fn le64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x <= b.x);
}

fn weight(r: u32, j: u32, len: u32) -> vec2<u32> {
    let i = ((r * params.s + j) * params.s + len) * 2u;
    return vec2<u32>(hix[i], hix[i + 1u]);
}

fn block_off(id: u32) -> vec2<u32> {
    let k = params.bk0 + id * 6u;
    return vec2<u32>(hix[k], hix[k + 1u]);
}

// The buffer and word of bit q.
fn word_of(q: vec2<u32>) -> vec2<u32> {
    let w = (q.x >> 5u) | (q.y << 27u);
    let hi = q.y >> 5u;
    let buf = (w >> params.shift) | (hi << (32u - params.shift));
    return vec2<u32>(buf, w & ((1u << params.shift) - 1u));
}

fn is_p(q: vec2<u32>) -> bool {
    let at = word_of(q);
    return ((load_word(at.x, at.y) >> (q.x & 31u)) & 1u) == 1u;
}

// The index of any position of the square (its own or its transpose's): at each level the
// hook (a, b), transposed when a < b, then a colex rank or one level down.
fn index_of(rows_in: array<u32, MAXN>) -> vec2<u32> {
    var cur = rows_in;
    var m = params.n;
    var idx = vec2<u32>(0u, 0u);
    loop {
        var a = cur[0];
        if (a == 0u) {
            return idx;
        }
        var b = 0u;
        while (b < m && cur[b] > 0u) {
            b = b + 1u;
        }
        if (a < b) {
            var t: array<u32, MAXN>;
            t = array<u32, MAXN>();
            var len = b;
            for (var i = 0u; i < a; i = i + 1u) {
                while (len > 0u && cur[len - 1u] <= i) {
                    len = len - 1u;
                }
                t[i] = len;
            }
            cur = t;
            let x = a;
            a = b;
            b = x;
        }
        let at_base = hix[params.sq0 + m * 3u + 2u];
        let id = hix[at_base + a * (m + 1u) + b];
        idx = add64(idx, block_off(id));
        let k = params.bk0 + id * 6u;
        if (hix[k + 2u] == COLEX) {
            let r = hix[k + 3u];
            for (var j = 0u; j < r; j = j + 1u) {
                idx = add64(idx, weight(r, j, cur[j + 1u] - 1u));
            }
            return idx;
        }
        let mc = hix[k + 5u];
        for (var i = 0u; i < m; i = i + 1u) {
            cur[i] = select(0u, cur[i + 1u] - 1u, i < mc);
        }
        m = mc;
    }
    return idx;
}

// Where index q lies (the private state above, rows not composed).
fn locate(q: vec2<u32>) {
    var m = params.n;
    var x = q;
    depth = 0u;
    block_first = vec2<u32>(0u, 0u);
    hook_a = 0u;
    hook_b = 0u;
    rank_x = vec2<u32>(0u, 0u);
    for (var i = 0u; i < MAXN; i = i + 1u) {
        mu[i] = 0u;
    }
    loop {
        let first = hix[params.sq0 + m * 3u];
        var lo = 0u;
        var hi = hix[params.sq0 + m * 3u + 1u];
        while (hi - lo > 1u) {
            let mid = (lo + hi) / 2u;
            if (le64(block_off(first + mid), x)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let id = first + lo;
        let off = block_off(id);
        block_first = add64(block_first, off);
        x = sub64(x, off);
        let k = params.bk0 + id * 6u;
        let kind = hix[k + 2u];
        if (kind == EMPTY) {
            return;
        }
        if (kind == COLEX) {
            let r = hix[k + 3u];
            let c = hix[k + 4u];
            var top = c;
            for (var j = 0u; j < r; j = j + 1u) {
                var len = top;
                while (!le64(weight(r, j, len), x)) {
                    len = len - 1u;
                }
                x = sub64(x, weight(r, j, len));
                mu[j] = len;
                top = len;
            }
            hook_a = c + 1u;
            hook_b = r + 1u;
            rank_x = sub64(q, block_first);
            return;
        }
        let mc = hix[k + 5u];
        sides[depth] = mc + 1u;
        depth = depth + 1u;
        m = mc;
    }
}

// The rows of the located position.
fn compose() {
    // Declared and then zeroed by a statement: every entry past the last row must be 0.
    var cur: array<u32, MAXN>;
    cur = array<u32, MAXN>();
    if (hook_a > 0u) {
        cur[0] = hook_a;
        for (var i = 1u; i < hook_b; i = i + 1u) {
            cur[i] = mu[i - 1u] + 1u;
        }
    }
    var level = depth;
    while (level > 0u) {
        level = level - 1u;
        let k = sides[level];
        var up: array<u32, MAXN>;
        up = array<u32, MAXN>();
        up[0] = k;
        for (var i = 1u; i < k; i = i + 1u) {
            up[i] = cur[i - 1u] + 1u;
        }
        cur = up;
    }
    rows = cur;
}

// Whether the bite at cell (i, j) of a hook of the chain or of the innermost one leaves a P
// position: a fresh index.
fn hook_bite(i: u32, j: u32) -> bool {
    var opt = rows;
    for (var k = i; k < params.n; k = k + 1u) {
        opt[k] = min(opt[k], j);
    }
    reads = reads + 1u;
    return is_p(index_of(opt));
}

// Whether the located position is P: no option is, read until the first P one.
fn decide() -> bool {
    compose();
    let d = depth;
    // First the hook cells of the first two anti-diagonals (i + j <= 2): the bites to one or
    // two rows or columns, or to an L, the winning ones of most N-positions.
    var first = array<vec2<u32>, 5>(
        vec2<u32>(0u, 1u), vec2<u32>(1u, 0u), vec2<u32>(0u, 2u), vec2<u32>(1u, 1u), vec2<u32>(2u, 0u)
    );
    for (var c = 0u; c < 5u; c = c + 1u) {
        let i = first[c].x;
        let j = first[c].y;
        if (j < rows[i] && (i <= d || j <= d) && hook_bite(i, j)) {
            return false;
        }
    }
    // Bites in the interior: the same block_first, a smaller colex rank.
    if (hook_b > 1u && mu[0] > 0u) {
        let r = hook_b - 1u;
        let here = add64(block_first, rank_x);
        var last = r - 1u;
        for (var t = 0u; t < mu[0]; t = t + 1u) {
            while (mu[last] <= t) {
                last = last - 1u;
            }
            var delta = vec2<u32>(0u, 0u);
            var row = last + 1u;
            loop {
                row = row - 1u;
                delta = add64(delta, sub64(weight(r, row, mu[row]), weight(r, row, t)));
                reads = reads + 1u;
                if (is_p(sub64(here, delta))) {
                    return false;
                }
                if (row == 0u) {
                    break;
                }
            }
        }
    }
    // Every other bite but the poison's: the other hook cells (row or column at most depth),
    // row by row.
    for (var i = 0u; i < params.n; i = i + 1u) {
        let len = rows[i];
        if (len == 0u) {
            break;
        }
        for (var j = 0u; j < len; j = j + 1u) {
            if ((i > d && j > d) || i + j <= 2u) {
                continue;
            }
            if (hook_bite(i, j)) {
                return false;
            }
        }
    }
    return true;
}

// Add v to the 64-bit counter at results[0] (low) and results[1] (high).
fn count_reads(v: u32) {
    let old = atomicAdd(&results[0], v);
    if (old + v < old) {
        atomicAdd(&results[1], 1u);
    }
}

// Whether every loop so far ran to its own end: a loop of params.twice (2) trips, a uniform so
// that no compiler unrolls it, ends after one trip once the driver has cut loops short.
// Mesa's llvmpipe (lavapipe) counts the iterations of every loop of one shader call (a SIMD
// group of invocations) together and, past 65,535 (gallivm's LP_MAX_TGSI_LOOP_ITERATIONS),
// ends every loop after its current trip; the count only falls, so a full sentinel means no
// loop before it was cut.
fn loops_whole() -> bool {
    var trips = 0u;
    for (var c = 0u; c < params.twice; c = c + 1u) {
        trips = trips + 1u;
    }
    return trips == params.twice;
}

// How many diagrams of at most f rows of at most cap cells hold v cells.
fn level_count(f: u32, cap: u32, v: u32) -> u32 {
    if (v >= params.vs) {
        return 0u;
    }
    return hix[params.lc0 + (f * params.caps + cap) * params.vs + v];
}

// The t-th diagram (first rows descending) of at most f rows of at most cap cells holding v
// cells into mu[p..p + f], and its colex rank added to x0 into rank_x (r rows in all).
fn place(r: u32, p: u32, f: u32, cap0: u32, v: u32, t0: u32, x0: vec2<u32>) {
    var cap = cap0;
    var rem = v;
    var t = t0;
    var x = x0;
    for (var i = 0u; i < f; i = i + 1u) {
        var l = min(cap, rem);
        loop {
            let c = level_count(f - i - 1u, l, rem - l);
            if (t < c || l == 0u) {
                break;
            }
            t = t - c;
            l = l - 1u;
        }
        mu[p + i] = l;
        x = add64(x, weight(r, p + i, l));
        rem = rem - l;
        cap = l;
    }
    rank_x = x;
}

// Locate position k of the dispatch's level: the last of the level's ranges whose start
// (io[s0 + j], j < slen) is at most k, its first index, free rows f and their cap at io[4j..];
// then its free rows unranked. Returns its index.
fn place_level(k: u32) -> vec2<u32> {
    var lo = 0u;
    var hi = params.slen;
    while (hi - lo > 1u) {
        let mid = (lo + hi) / 2u;
        if (io[params.s0 + mid] <= k) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let t = k - io[params.s0 + lo];
    let base = vec2<u32>(io[4u * lo], io[4u * lo + 1u]);
    locate(base);
    var r = 0u;
    if (hook_b > 0u) {
        r = hook_b - 1u;
    }
    place(r, r / 2u, io[4u * lo + 2u], io[4u * lo + 3u], params.level, t, rank_x);
    return add64(block_first, rank_x);
}

// The positions g * per .. (g + 1) * per of the dispatch's level (of params.size), from where
// earlier dispatches of the level left invocation g (io[res0 + g], when res0 > 0: a software
// adapter). The walk stops before the first position whose decision a cut loop may have
// spoilt (see loops_whole): that position is left undecided, io[res0 + g] says where to
// resume (every invocation writes it, so a finished one is not walked again), and results[2]
// counts the invocations left unfinished, for the host to dispatch the level again.
@compute @workgroup_size(64)
fn chomp_hook_step(@builtin(global_invocation_id) gid: vec3<u32>) {
    let g = gid.x + gid.y * params.groups_x * WORKGROUP;
    if (g >= params.count) {
        return;
    }
    let first = g * params.per;
    let last = min(first + params.per, params.size);
    var k = first;
    if (params.res0 > 0u) {
        k = first + io[params.res0 + g];
    }
    if (k >= last) {
        return;
    }
    var kept = 0u;
    loop {
        let q = place_level(k);
        reads = 0u;
        let p = (q.x != 0u || q.y != 0u) && decide();
        if (!loops_whole()) {
            break;
        }
        if (p) {
            let at = word_of(q);
            or_word(at.x, at.y, 1u << (q.x & 31u));
        }
        kept = kept + reads;
        k = k + 1u;
        if (k >= last) {
            break;
        }
    }
    if (params.res0 > 0u) {
        io[params.res0 + g] = k - first;
    }
    if (k < last) {
        atomicAdd(&results[2], 1u);
    }
    if (params.stats != 0u) {
        count_reads(kept);
    }
}

// The bits at indexes io[2i], io[2i+1] (low, high) into results[i].
@compute @workgroup_size(64)
fn chomp_hook_gather(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * params.groups_x * WORKGROUP;
    if (i >= params.count) {
        return;
    }
    let q = vec2<u32>(io[2u * i], io[2u * i + 1u]);
    atomicStore(&results[i], select(0u, 1u, is_p(q)));
}

// The index arithmetic alone, for the tests: io[32i..32i+32] the rows of a position; into
// results[PROBE_WORDS * i..]: its index (low, high), that bit's buffer and word, and the rows the
// index locates (the stored one of the position and its transpose).
@compute @workgroup_size(64)
fn chomp_hook_probe(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * params.groups_x * WORKGROUP;
    if (i >= params.count) {
        return;
    }
    var p: array<u32, MAXN>;
    for (var k = 0u; k < MAXN; k = k + 1u) {
        p[k] = io[MAXN * i + k];
    }
    let q = index_of(p);
    let at = word_of(q);
    let o = PROBE_WORDS * i;
    atomicStore(&results[o], q.x);
    atomicStore(&results[o + 1u], q.y);
    atomicStore(&results[o + 2u], at.x);
    atomicStore(&results[o + 3u], at.y);
    locate(q);
    compose();
    for (var k = 0u; k < MAXN; k = k + 1u) {
        atomicStore(&results[o + 4u + k], rows[k]);
    }
}
