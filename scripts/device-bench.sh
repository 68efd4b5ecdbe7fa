#!/usr/bin/env bash
# GPU figures for BENCHMARKS.md on a machine with a real GPU but no Rust toolchain.
#
#   scripts/device-bench.sh prepare   # here: build, copy the binary and the GPU test binaries
#                                     # into .devbin/ (git-ignored), stripped
#   scripts/device-bench.sh run       # there, from the repository root: GPU tests on the real
#                                     # adapter first, then `bench` and the timed commands
#   scripts/device-bench.sh chomp     # there: only the Chomp section (the hook kernel to 22x22)
#   scripts/device-bench.sh kernels   # there: the automaton's three kernels and `auto` per job
#                                     # (at most 9 minutes on an H200; see kernels_and_auto)
#
# `run` unpacks Vulkan loader .deb files from .gl/ when present (for machines whose image has
# the GPU driver but no loader) and writes bench.txt and ca.json under $OUT (or /tmp/chompute-out).
set -uo pipefail
cd "$(dirname "$0")/.."

# --- The automaton's kernels and `auto` per job (issue 41) -----------------------------------
# The three GPU kernels at `ca 32767` and `ca 65535`, each with its cell updates/s and its bytes
# of grid traffic per update (from the kernel's tile arithmetic); `bench --save` then
# `info --json` (the choices `auto` makes from the measured rates, in a cache directory of its
# own); `render 30001 -o` under `auto` and under `cpu` (auto must not be slower, same pixels).
# Writes ca-kernels.json, bench-save.txt, info.json and render-auto.txt under $OUT.
kernels_and_auto() {
    local B=.devbin/chompute
    echo "== automaton kernels: correctness of the register kernel on this adapter"
    .devbin/t-engine automaton 2>&1 | grep -E "^test |result|panicked|assert"
    .devbin/t-engine every_kernel 2>&1 | grep -E "^test |result|panicked|assert"
    echo "== automaton kernels: ca 32767 and ca 65535 (rate, bytes per update)"
    : > "$OUT/ca-kernels.json"
    for steps in 32767 65535; do
        for kernel in step block regs; do
            T timeout 120 $B --backend gpu ca $steps --json --kernel $kernel > /tmp/ca-one.json
            cat /tmp/ca-one.json >> "$OUT/ca-kernels.json"
            python3 -c "import json,sys; v=json.load(sys.stdin); print('ca %s, %s kernel: %.3e cell updates/s, %.4f bytes per update, %s live cells' % (v['steps'], v['kernel'], v['cell_updates_per_second'], v['bytes_per_update'], v['live_cells']))" < /tmp/ca-one.json
            tail -1 /tmp/ca-one.json
        done
    done
    T $B --backend gpu ca 4097 --verify --kernel regs | tail -4
    echo "== auto per job: bench --save, then info --json (own cache directory)"
    export XDG_CACHE_HOME=/tmp/chompute-cache; rm -rf "$XDG_CACHE_HOME"
    T $B info | tail -9
    T $B bench --save | tee "$OUT/bench-save.txt"
    $B info --json > "$OUT/info.json"; cat "$OUT/info.json"
    $B info | tail -9
    echo "== render 30001 under auto and under cpu"
    T $B render 30001 -o /tmp/auto.png 2>&1 | tee "$OUT/render-auto.txt"
    T $B --backend cpu render 30001 -o /tmp/cpu.png 2>&1 | tee -a "$OUT/render-auto.txt"
    T $B render 30001 -o /tmp/auto.png 2>&1 | tee -a "$OUT/render-auto.txt"
    T $B --backend cpu render 30001 -o /tmp/cpu.png 2>&1 | tee -a "$OUT/render-auto.txt"
    same_pixels /tmp/auto.png /tmp/cpu.png && echo "render 30001: auto and cpu pixels identical"
    unset XDG_CACHE_HOME
}
# The helpers `run` defines for itself, at the top level for `kernels`.
# Whether two PNGs have the same pixels (their tEXt chunks name the command, so the bytes of a
# GPU and a CPU render differ there).
same_pixels() {
    python3 - "$1" "$2" <<'PY'
import struct, sys, zlib
def pixels(path):
    b = open(path, "rb").read()
    i, data = 8, b""
    while i < len(b):
        (n,) = struct.unpack(">I", b[i:i + 4])
        if b[i + 4:i + 8] == b"IDAT":
            data += b[i + 8:i + 8 + n]
        i += 12 + n
    return zlib.decompress(data)
sys.exit(0 if pixels(sys.argv[1]) == pixels(sys.argv[2]) else 1)
PY
}
# Time a command: its milliseconds and exit status after its output.
T() { local s; s=$(date +%s%N); "$@"; local rc=$?; echo "[$(( ($(date +%s%N) - s) / 1000000 )) ms, rc=$rc] $*"; }

# What `kernels` runs first: the Vulkan loader where the image lacks one, $OUT, the environment
# of the carried test binaries (as `run` does).
setup() {
    if ls .gl/*.deb >/dev/null 2>&1; then
        for f in .gl/*.deb; do dpkg -x "$f" /; done
        ldconfig
    fi
    OUT=${OUT:-/tmp/chompute-out}; mkdir -p "$OUT"
    export XDG_RUNTIME_DIR=/tmp/chompute-xdg; mkdir -p -m 700 "$XDG_RUNTIME_DIR"
    export CHOMPUTE_REQUIRE_GPU=1
    # The tests run the carried binary: cargo's path to the one it built is not on this machine.
    export CHOMPUTE_BIN="$PWD/.devbin/chompute"
}
# --- end of the automaton's kernels and `auto` per job ----------------------------------------
# ---- Chomp on the GPU: the hook kernel (issue 42) -------------------------------------------
# `chomp_gpu_section BIN OUT DEADLINE`: 18x18 and 20x20 with --backend gpu (P-counts and bites
# against the committed data), 21x21 (P-count 1,825,627,339 and bites), then 22x22 while time
# is left, its bites written to OUT/chomp-bites-22x22.json. Each run is cut at DEADLINE (seconds
# of this shell's $SECONDS), so the whole script stays within 9 minutes.
chomp_gpu_section() {
    local B=$1 OUT=$2 DEADLINE=$3
    echo "== two-player Chomp on the GPU: the hook kernel (64-bit indexes, many bindings)"
    # check JSON P-COUNT BITES-FILE: the run's P-count and rectangles against the committed ones.
    check() {
        python3 - "$@" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
want_p, bites = int(sys.argv[2]), sys.argv[3]
ok = int(run["p_positions"]) == want_p
print(f"{run['box']}: {run['p_positions']} P-positions, want {want_p}: {'equal' if ok else 'DIFFERENT'}")
if bites != "-":
    same = run["rectangles"] == json.load(open(bites))["rectangles"]
    print(f"{run['box']}: bites {'equal to' if same else 'DIFFERENT from'} {bites}")
    ok = ok and same
sys.exit(0 if ok else 1)
PY
    }
    # one SIDE CAP P-COUNT BITES: solve SIDExSIDE on the GPU within CAP seconds (and the deadline).
    one() {
        local side=$1 cap=$2 left=$((DEADLINE - SECONDS))
        [ "$left" -lt "$cap" ] && cap=$left
        if [ "$cap" -lt 20 ]; then echo "${side}x${side}: no time left"; return 1; fi
        /usr/bin/time -f "${side}x${side}: %e s wall, %M KB host memory" timeout "$cap" \
            "$B" --backend gpu chomp solve --box "${side}x${side}" --bites --json \
            > "$OUT/chomp-gpu-${side}.json" || { echo "${side}x${side}: stopped (rc $?)"; return 1; }
        nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader 2>/dev/null
        check "$OUT/chomp-gpu-${side}.json" "$3" "$4"
    }
    CHOMPUTE_GPU_STATS=1 T "$B" --backend gpu chomp solve --box 14x14 --json
    T "$B" --backend cpu chomp solve --box 14x14 --json
    # 16x16 first: a time to scale from even when 18x18 misses its cap.
    T timeout 60 "$B" --backend gpu chomp solve --box 16x16 --json
    one 18 120 37993832 docs/data/chomp-bites-18x18.json
    one 20 150 451253296 docs/data/chomp-bites-20x20.json || return
    one 21 300 1825627339 docs/data/chomp-bites-21x21.json || return
    # 22x22: nobody's P-count to compare with; its bites go to OUT for docs/data.
    local left=$((DEADLINE - SECONDS))
    if [ "$left" -ge 60 ]; then
        /usr/bin/time -f "22x22: %e s wall, %M KB host memory" timeout "$left" \
            "$B" --backend gpu chomp solve --box 22x22 --bites --json > "$OUT/chomp-gpu-22.json" \
            && python3 - "$OUT/chomp-gpu-22.json" "$OUT/chomp-bites-22x22.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
print(f"22x22: {run['p_positions']} P-positions in {run['seconds']:.1f} s")
out = {"backend": "gpu", "box": run["box"], "rectangles": run["rectangles"]}
open(sys.argv[2], "w").write(json.dumps(out, separators=(",", ":")) + "\n")
PY
    else
        echo "22x22: no time left ($left s)"
    fi
}

case "${1:-}" in
prepare)
    cargo build --release || exit 1
    cargo test --release --no-run --message-format=json 2>/dev/null \
        | grep -o '"executable":"[^"]*/deps/\(engine\|games\|pictures\)-[^"]*"' \
        | sed 's/"executable":"//; s/"$//' > /tmp/chompute-test-bins || exit 1
    rm -rf .devbin && mkdir -p .devbin
    cp target/release/chompute .devbin/chompute
    while read -r bin; do
        name=$(basename "$bin"); cp "$bin" ".devbin/t-${name%%-*}"
    done < /tmp/chompute-test-bins
    strip .devbin/* && ls -la .devbin
    ;;
kernels)
    setup
    echo "== $(date -u) $(nproc) cores"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
    kernels_and_auto
    echo "== $(date -u) done"
    ;;
run)
    if ls .gl/*.deb >/dev/null 2>&1; then
        for f in .gl/*.deb; do dpkg -x "$f" /; done
        ldconfig
    fi
    OUT=${OUT:-/tmp/chompute-out}; mkdir -p "$OUT"
    export XDG_RUNTIME_DIR=/tmp/chompute-xdg; mkdir -p -m 700 "$XDG_RUNTIME_DIR"
    export CHOMPUTE_REQUIRE_GPU=1
    # The tests run the carried binary: cargo's path to the one it built is not on this machine.
    export CHOMPUTE_BIN="$PWD/.devbin/chompute"
    B=.devbin/chompute
    # Whether two PNGs have the same pixels (their tEXt chunks name the command, so the bytes
    # of a GPU and a CPU render differ there).
    same_pixels() {
        python3 - "$1" "$2" <<'PY'
import struct, sys, zlib
def pixels(path):
    b = open(path, "rb").read()
    i, data = 8, b""
    while i < len(b):
        (n,) = struct.unpack(">I", b[i:i + 4])
        if b[i + 4:i + 8] == b"IDAT":
            data += b[i + 8:i + 8 + n]
        i += 12 + n
    return zlib.decompress(data)
sys.exit(0 if pixels(sys.argv[1]) == pixels(sys.argv[2]) else 1)
PY
    }
    T() { local s; s=$(date +%s%N); "$@"; local rc=$?; echo "[$(( ($(date +%s%N) - s) / 1000000 )) ms, rc=$rc] $*"; }
    echo "== $(date -u) $(nproc) cores"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
    $B info | head -4
    echo "== GPU correctness on this adapter"
    .devbin/t-engine gpu 2>&1 | grep -E "^test |result|panicked|assert"
    .devbin/t-games gpu 2>&1 | grep -E "^test |result|panicked|assert"
    .devbin/t-pictures gpu_block_counts 2>&1 | grep -E "^test |result|panicked|assert"
    echo "== bench"
    T $B bench | tee "$OUT/bench.txt"
    echo "== automaton"
    T $B --backend gpu ca 32767 --json --kernel block | tee "$OUT/ca.json"
    T $B --backend gpu ca 32767 --json --kernel step | tee -a "$OUT/ca.json"
    T $B --backend gpu ca 65535 --json --kernel block | tee -a "$OUT/ca.json"
    T $B --backend cpu ca 8191 --json
    T $B --backend gpu ca 16383 --verify --json
    echo "== render"
    T $B --backend gpu render 65535 -o /tmp/g.png
    T $B --backend cpu render 65535 -o /tmp/c.png
    same_pixels /tmp/g.png /tmp/c.png && echo "65535: GPU and CPU pixels identical"
    T $B render 1000000000039 --window 400000000000,400000000000,4096,4096 -o /tmp/w.png
    echo "== fitted pictures by block counts (block_count.wgsl against the CPU)"
    for f in 512 2048; do
        T $B --backend gpu render 18446744073709551615 --fit $f -o /tmp/gf.png
        T $B --backend cpu render 18446744073709551615 --fit $f -o /tmp/cf.png
        same_pixels /tmp/gf.png /tmp/cf.png && echo "C(2^64-1) --fit $f: GPU and CPU pixels identical"
    done
    T $B --backend gpu render 10000000000000000000 --fit 2048 --verify -o /tmp/gf.png
    T $B --backend cpu render 10000000000000000000 --fit 2048 -o /tmp/cf.png
    same_pixels /tmp/gf.png /tmp/cf.png && echo "C(10^19) --fit 2048: GPU and CPU pixels identical"
    echo "== count, pass, chomp"
    T $B --backend gpu count 1000001 --method gpu
    T $B --backend gpu nimpass --heaps 4 --max 400
    T $B --backend cpu nimpass --heaps 4 --max 400
    T $B chomp ord --rule 0,1,2 --box 13x13
    echo "== two-player Chomp: squares on the GPU (the hook kernel) against the CPU"
    for side in 14 16; do
        T $B --backend gpu chomp solve --box ${side}x${side} --json
        T $B --backend cpu chomp solve --box ${side}x${side} --json
    done
    chomp_gpu_section "$B" "$OUT" 540
    echo "== two-player Chomp: the forward solver on the machine's 16 cores (hook index, 0.57 GB)"
    T $B --backend cpu chomp solve --box 18x18 --json
    echo "== the 20x20 box (8.7 GB), last: whatever time is left"
    T $B --backend cpu chomp solve --box 20x20 --json
    ;;
chomp)
    # The Chomp section alone (after `prepare`), within 9 minutes.
    setup
    echo "== $(date -u) $(nproc) cores"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
    chomp_gpu_section .devbin/chompute "$OUT" 530
    echo "== $(date -u) done"
    ;;
*)
    echo "usage: scripts/device-bench.sh prepare|run|kernels|chomp" >&2
    exit 2
    ;;
esac
