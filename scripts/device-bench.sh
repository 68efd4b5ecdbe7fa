#!/usr/bin/env bash
# GPU figures for BENCHMARKS.md on a machine with a real GPU but no Rust toolchain.
#
#   scripts/device-bench.sh prepare   # here: build, copy the binary and the GPU test binaries
#                                     # into .devbin/ (git-ignored), stripped
#   scripts/device-bench.sh run       # there, from the repository root: GPU tests on the real
#                                     # adapter first, then `bench` and the timed commands
#   scripts/device-bench.sh chomp     # there: only the Chomp section (the hook kernel to 22x22;
#                                     # 22x22 needs the 139 GiB of an H200: name nvidia-h200)
#   scripts/device-bench.sh chomp22   # there: 22x22 alone, with the whole 9 minutes
#   scripts/device-bench.sh kernels [SECONDS]  # there: the automaton's three kernels and `auto`
#                                     # per job within SECONDS (default 530; after `chomp` in
#                                     # the same lease, the call's timeout less 20; the most
#                                     # telling figures first, see kernels_and_auto)
#   scripts/device-bench.sh smoke     # here, after `prepare`: `chomp` and `kernels` at lavapipe
#                                     # sizes, each GPU answer checked against the CPU; exits 1
#                                     # on any failure (CI runs it, so the script a lease runs
#                                     # has run before)
#
# Before a lease, here: `prepare`, and the Vulkan loader's package in .gl/ (git-ignored) for an
# image that has the GPU driver but no loader, which every mode but `prepare` unpacks:
#   mkdir -p .gl /tmp/amd64/partial
#   o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
#   apt-get $o update; (cd .gl && apt-get $o download libvulkan1)
# Then device runs carrying .devbin and .gl; 22x22 needs the nvidia-h200 kind (its table is
# 124 GiB). A lease of 15 minutes holds `chomp` (9 minutes at most) and, at once after it while
# the machine is warm, `kernels SECONDS` with what is left. Each mode writes what it measured
# under $OUT (or /tmp/chompute-out), ends with the list of what failed, and exits 1 when
# anything did.
set -uo pipefail
cd "$(dirname "$0")/.."

# Helpers for every mode.
# `same_pixels A B WHAT`: whether two PNGs have the same pixels (their tEXt chunks name the
# command, so the bytes of a GPU and a CPU render differ there), said as WHAT.
same_pixels() {
    if python3 - "$1" "$2" <<'PY'
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
    then echo "$3: pixels identical"; else fail "$3: pixels differ"; fi
}
# `tests SUITE FILTER`: the carried test binary of SUITE (engine, games, pictures) on this
# adapter, its test lines shown; a failure unless its result is ok.
tests() {
    local log; log=$(mktemp)
    ".devbin/t-$1" "$2" > "$log" 2>&1
    grep -E "^test |result|panicked|assert" "$log"
    grep -q "^test result: ok" "$log" || fail "tests $1 $2"
    rm -f "$log"
}
# `wall_mem LABEL CMD...`: run CMD and print "LABEL: S s wall, U s CPU, K KB host memory" on
# stderr, as GNU time's -f would (CPU: user and system, every thread of CMD; far under the wall
# time, the device set the pace, not the host); python3 measures it, since the device's image
# need not carry /usr/bin/time.
wall_mem() {
    python3 -c '
import resource, subprocess, sys, time
t = time.monotonic()
rc = subprocess.call(sys.argv[2:])
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%s: %.2f s wall, %.2f s CPU, %d KB host memory"
      % (sys.argv[1], time.monotonic() - t, u.ru_utime + u.ru_stime, u.ru_maxrss), file=sys.stderr)
sys.exit(rc if rc >= 0 else 128 - rc)
' "$@"
}
# `left`: the seconds to the DEADLINE of the section that calls it (kernels_and_auto's or
# chomp_gpu_section's, seconds of this shell's $SECONDS).
left() { echo $((DEADLINE - SECONDS)); }
# Every failure, one line each: a file, since T and the checks also run inside pipelines.
FAILS=$(mktemp /tmp/chompute-device-fails.XXXXXX)
fail() { echo "FAILED: $*" | tee -a "$FAILS"; }
# Time a command: its milliseconds and exit status after its output.
T() {
    local s; s=$(date +%s%N); "$@"; local rc=$?
    echo "[$(( ($(date +%s%N) - s) / 1000000 )) ms, rc=$rc] $*"
    [ "$rc" -eq 0 ] || fail "rc $rc: $*"
    return "$rc"
}
# The status every mode ends with: 1 when anything failed, naming each.
finish() {
    if [ -s "$FAILS" ]; then
        echo "== $(wc -l < "$FAILS") failed:"; cat "$FAILS"; rm -f "$FAILS"; exit 1
    fi
    rm -f "$FAILS"; echo "== nothing failed"
}

# The sizes each mode runs: a lent GPU's, or lavapipe's for `smoke`.
sizes_device() {
    CA_STEPS="32767 65535" CA_VERIFY=4097 RENDER_SIDE=30001 BENCH_QUICK= BENCH_FULL=120
    # The runs checked against committed data, SIDE:CAP:P-COUNT:BITES, then the new box.
    # CHOMP_GROWTH: 22x22's time over 20x20's, about its positions over 20x20's (15.3).
    CHOMP_STATS=14 CHOMP_MID=16 CHOMP_NEW=22 CHOMP_GROWTH=16
    CHOMP_CHECKED="18:120:37993832:docs/data/chomp-bites-18x18.json
        20:150:451253296:docs/data/chomp-bites-20x20.json
        21:300:1825627339:docs/data/chomp-bites-21x21.json"
}
sizes_smoke() {
    CA_STEPS="127 255" CA_VERIFY=129 RENDER_SIDE=1001 BENCH_QUICK=--quick BENCH_FULL=0
    CHOMP_STATS=6 CHOMP_MID=7 CHOMP_NEW=11 CHOMP_GROWTH=16 CHOMP_CHECKED=
    # The CPU's P-counts and bites stand for the committed data.
    local side ref=/tmp/chompute-smoke-ref; mkdir -p "$ref"
    for side in 8 9 10 11; do
        .devbin/chompute --backend cpu chomp solve --box ${side}x${side} -o "$ref/$side.chomp" \
            --json > "$ref/$side.json" || fail "CPU reference ${side}x${side}"
        .devbin/chompute chomp bites --table "$ref/$side.chomp" --json > "$ref/bites-$side.json" \
            || fail "CPU bites ${side}x${side}"
        local p; p=$(python3 -c "import json,sys; print(json.load(sys.stdin)['p_positions'])" \
            < "$ref/$side.json")
        [ "$side" -lt 11 ] && CHOMP_CHECKED+=" $side:60:$p:$ref/bites-$side.json"
        [ "$side" -eq 10 ] && SMOKE_P10=$p SMOKE_BITES10=$ref/bites-$side.json
        [ "$side" -eq 11 ] && CHOMP_NEW_REF="$p:$ref/bites-$side.json"
    done
}

# What every mode but `prepare` runs first: the Vulkan loader where the image lacks one, $OUT,
# the environment of the carried test binaries, a lent GPU's sizes.
setup() {
    if ! ldconfig -p | grep libvulkan.so.1 > /dev/null && ls .gl/*.deb >/dev/null 2>&1; then
        for f in .gl/*.deb; do dpkg -x "$f" /; done
        ldconfig
    fi
    # The NVIDIA driver's Vulkan ICD where the image keeps it off the loader's search path.
    local nv=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    if [ -f "$nv" ] && ! ls /usr/share/vulkan/icd.d/nvidia_icd*.json \
        /etc/vulkan/icd.d/nvidia_icd*.json >/dev/null 2>&1; then
        export VK_DRIVER_FILES=$nv
    fi
    OUT=${OUT:-/tmp/chompute-out}; mkdir -p "$OUT"
    export XDG_RUNTIME_DIR=/tmp/chompute-xdg; mkdir -p -m 700 "$XDG_RUNTIME_DIR"
    export CHOMPUTE_REQUIRE_GPU=1
    # The tests run the carried binary: cargo's path to the one it built is not on this machine.
    export CHOMPUTE_BIN="$PWD/.devbin/chompute"
    sizes_device
    echo "== $(date -u) $(nproc) cores"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
}

# --- The automaton's kernels and `auto` per job (issue 41) -----------------------------------
# `kernels_and_auto DEADLINE`: most telling first, so that a call cut short, or given only the
# minutes a lease has left after `chomp`, still brings back the figures that matter, and no
# command runs past DEADLINE (seconds of this shell's $SECONDS):
#  1. the three GPU kernels at the first of CA_STEPS (`ca 32767`), each with its cell updates/s
#     and its bytes of grid traffic per update (from the kernel's tile arithmetic);
#  2. `ca --verify` with the register kernel;
#  3. `render 30001 -o` (RENDER_SIDE) under `auto` and under `cpu` by the default table (auto
#     must not be slower, same pixels);
#  4. `bench --save`, then `info --json` (the choices `auto` makes from the measured rates, in a
#     cache directory of its own) and the renders again. `bench` gets the time left less twice
#     the renders' time; with less than BENCH_FULL seconds of that it runs `--quick`, since a
#     bench cut short saves no rates;
#  5. the three kernels at the rest of CA_STEPS (`ca 65535`);
#  6. the register kernel's tests on this adapter, unless SKIP_TESTS is set (CI has run them).
# Writes ca-kernels.json, render-auto.txt, bench-save.txt and info.json under $OUT.
kernels_and_auto() {
    local B=.devbin/chompute DEADLINE=$1 steps=($CA_STEPS) t0 took budget quick=$BENCH_QUICK
    : > "$OUT/ca-kernels.json"
    ca_kernels "${steps[0]}"
    if [ "$(left)" -ge 10 ]; then
        T timeout "$(left)" $B --backend gpu ca $CA_VERIFY --verify --kernel regs | tail -4
    fi
    export XDG_CACHE_HOME=/tmp/chompute-cache; rm -rf "$XDG_CACHE_HOME"
    : > "$OUT/render-auto.txt"
    T $B info | tail -9
    t0=$SECONDS
    render_pair "by the default table"
    took=$((SECONDS - t0 + 1))
    budget=$(($(left) - 2 * took - 10))
    if [ "$budget" -lt 20 ]; then
        echo "== auto per job: no time left for bench --save ($budget s)"
    else
        [ "$budget" -lt "$BENCH_FULL" ] && quick=--quick
        echo "== auto per job: bench --save $quick within $budget s, then info --json (own cache directory)"
        T timeout "$budget" $B bench --save $quick | tee "$OUT/bench-save.txt"
        T $B info --json > "$OUT/info.json"; cat "$OUT/info.json"
        $B info | tail -9
        render_pair "by the measured rates"
    fi
    unset XDG_CACHE_HOME
    for k in "${steps[@]:1}"; do ca_kernels "$k"; done
    if [ -z "${SKIP_TESTS:-}" ] && [ "$(left)" -ge 60 ]; then
        echo "== automaton kernels: correctness of the register kernel on this adapter"
        tests engine automaton
        tests engine every_kernel
    fi
}
# `ca_kernels STEPS`: `ca STEPS` with each of the three kernels, each cut at 120 seconds and at
# the DEADLINE (none run with less than 10), its JSON appended to ca-kernels.json and its rate
# printed.
ca_kernels() {
    local steps=$1 cap kernel
    echo "== automaton kernels: ca $steps (rate, bytes per update)"
    for kernel in regs step block; do
        cap=$(left); [ "$cap" -gt 120 ] && cap=120
        if [ "$cap" -lt 10 ]; then echo "ca $steps, $kernel kernel: no time left"; continue; fi
        # (not through T: its timing line would land in the JSON)
        timeout "$cap" $B --backend gpu ca "$steps" --json --kernel $kernel > /tmp/ca-one.json \
            || { fail "ca $steps, $kernel kernel: rc $?"; continue; }
        cat /tmp/ca-one.json >> "$OUT/ca-kernels.json"
        python3 -c "import json,sys; v=json.load(sys.stdin); print('ca %s, %s kernel: %.3e cell updates/s, %.4f bytes per update, %s live cells, %.2f s' % (v['steps'], v['kernel'], v['cell_updates_per_second'], v['bytes_per_update'], v['live_cells'], v['seconds']))" < /tmp/ca-one.json
    done
}
# `render_pair WHY`: `render RENDER_SIDE` under auto and under cpu, twice alternated, into
# render-auto.txt, and whether their pixels are the same.
render_pair() {
    echo "== render $RENDER_SIDE under auto ($1) and under cpu" | tee -a "$OUT/render-auto.txt"
    for _ in 1 2; do
        T $B render $RENDER_SIDE -o /tmp/auto.png 2>&1 | tee -a "$OUT/render-auto.txt"
        T $B --backend cpu render $RENDER_SIDE -o /tmp/cpu.png 2>&1 | tee -a "$OUT/render-auto.txt"
    done
    same_pixels /tmp/auto.png /tmp/cpu.png "render $RENDER_SIDE ($1): auto and cpu"
}
# --- end of the automaton's kernels and `auto` per job ----------------------------------------
# ---- Chomp on the GPU: the hook kernel (issue 42) -------------------------------------------
# `chomp_gpu_section BIN OUT DEADLINE`: 14x14 with the kernel's count of options read, 16x16,
# then the boxes of CHOMP_CHECKED with --backend gpu (18x18, 20x20 and 21x21: P-counts and bites
# against the committed data) and CHOMP_NEW (22x22), its bites written to
# OUT/chomp-bites-22x22.json. The new box goes before the last checked one when the box before
# that, its time grown by CHOMP_GROWTH, says it fits in the time left; else it gets what is left
# at the end. Each run is cut at DEADLINE (seconds of this shell's $SECONDS), so the whole
# section stays within 9 minutes. The first checked box runs again with the table read by plain
# loads (choose_reads) when that is cheap, and the faster reads solve the rest.
chomp_gpu_section() {
    local B=$1 OUT=$2 DEADLINE=$3 side cap p bites k t0 took=0 prev= new_done=
    local boxes=($CHOMP_CHECKED)
    echo "== two-player Chomp on the GPU: the hook kernel (64-bit indexes, many bindings)"
    CHOMPUTE_GPU_STATS=1 T "$B" --backend gpu chomp solve --box ${CHOMP_STATS}x${CHOMP_STATS} --json
    T "$B" --backend cpu chomp solve --box ${CHOMP_STATS}x${CHOMP_STATS} --json
    # 16x16 first: a time to scale from even when 18x18 misses its cap.
    T timeout 60 "$B" --backend gpu chomp solve --box ${CHOMP_MID}x${CHOMP_MID} --json
    for k in "${!boxes[@]}"; do
        IFS=: read -r side cap p bites <<< "${boxes[k]}"
        local guess=$((took * CHOMP_GROWTH))
        if [ "$k" -eq $((${#boxes[@]} - 1)) ] && [ "$took" -gt 0 ] \
            && [ "$guess" -lt $(($(left) - 30)) ]; then
            echo "${CHOMP_NEW}x${CHOMP_NEW} before ${side}x${side}: about $guess s by ${prev}x${prev}'s $took s"
            chomp_new "$B" "$OUT" "$(left)"
            new_done=1
        fi
        [ "$(left)" -lt "$cap" ] && cap=$(left)
        if [ "$cap" -lt 20 ]; then echo "${side}x${side}: no time left"; return; fi
        t0=$SECONDS
        chomp_box "$B" "$side" "$cap" "$OUT/chomp-gpu-${side}.json" || return
        took=$((SECONDS - t0 + 1)) prev=$side
        check_bites "$OUT/chomp-gpu-${side}.json" "$p" "$bites"
        if [ "$k" -eq 0 ] && [ -z "${CHOMPUTE_GPU_TABLE_READS:-}" ] \
            && [ "$took" -le $(($(left) / 8)) ]; then
            choose_reads "$B" "$side" $((took * 2 + 10)) "$p" "$bites" "$OUT"
        fi
    done
    [ -n "$new_done" ] || chomp_new "$B" "$OUT" "$(left)"
}
# `chomp_box BIN SIDE SECONDS JSON`: SIDExSIDE on the GPU within SECONDS, its P-count and the
# winning bites of every rectangle to JSON, its wall time and host memory on stderr. Should plain
# reads (twice the bindings) not bind the box's buffers, the pre-flight refuses it before any
# work and the box runs again with atomic reads.
chomp_box() {
    local err rc; err=$(mktemp)
    chomp_once "$@" "$err"; rc=$?
    if [ "$rc" -ne 0 ] && [ "${CHOMPUTE_GPU_TABLE_READS:-}" = plain ] \
        && grep -q "more buffers than the kernel binds" "$err"; then
        echo "$2x$2: plain reads cannot bind its buffers; atomic reads"
        CHOMPUTE_GPU_TABLE_READS=atomic chomp_once "$@" "$err"; rc=$?
    fi
    rm -f "$err"
    [ "$rc" -eq 0 ] || { fail "$2x$2: stopped (rc $rc)"; return 1; }
}
# `chomp_once BIN SIDE SECONDS JSON ERR`: one run of chomp_box, its stderr kept in ERR and shown.
chomp_once() {
    wall_mem "$2x$2" timeout "$3" "$1" --backend gpu chomp solve --box "$2x$2" --bites --json \
        > "$4" 2> "$5"
    local rc=$?
    cat "$5" >&2
    return "$rc"
}
# `choose_reads BIN SIDE SECONDS P-COUNT BITES OUT`: SIDExSIDE again with the table read by plain
# loads through second bindings (CHOMPUTE_GPU_TABLE_READS=plain), checked like the first run;
# when it is at least 5 % faster than the atomic reads' run, plain reads solve the boxes after.
choose_reads() {
    local B=$1 side=$2 cap=$3 p=$4 bites=$5 OUT=$6 plain
    plain="$OUT/chomp-gpu-${side}-plain.json"
    CHOMPUTE_GPU_TABLE_READS=plain chomp_box "$B" "$side" "$cap" "$plain" || return 0
    check_bites "$plain" "$p" "$bites" || return 0
    if python3 - "$OUT/chomp-gpu-${side}.json" "$plain" <<'PY'
import json, sys
atomic, plain = (json.load(open(f))["seconds"] for f in sys.argv[1:3])
faster = plain < 0.95 * atomic
print(f"table reads: atomic {atomic:.2f} s, plain {plain:.2f} s: {'plain' if faster else 'atomic'} from here")
sys.exit(0 if faster else 1)
PY
    then export CHOMPUTE_GPU_TABLE_READS=plain; fi
}
# `check_bites JSON P-COUNT BITES`: the run's P-count and rectangles against the committed ones.
check_bites() {
    python3 - "$@" <<'PY' || fail "$1 differs from $2 P-positions and $3"
import json, sys
run = json.load(open(sys.argv[1]))
want_p, bites = int(sys.argv[2]), sys.argv[3]
ok = int(run["p_positions"]) == want_p
print(f"{run['box']}: {run['p_positions']} P-positions, want {want_p}: {'equal' if ok else 'DIFFERENT'}")
same = run["rectangles"] == json.load(open(bites))["rectangles"]
print(f"{run['box']}: bites {'equal to' if same else 'DIFFERENT from'} {bites}")
sys.exit(0 if ok and same else 1)
PY
}
# `chomp_new BIN OUT SECONDS`: CHOMP_NEW (22x22) on the GPU within SECONDS. Nobody's P-count to
# compare with (`smoke` has the CPU's, CHOMP_NEW_REF); its bites go to
# OUT/chomp-bites-22x22.json for docs/data.
chomp_new() {
    local B=$1 OUT=$2 left=$3 n=$CHOMP_NEW
    if [ "$left" -lt 60 ]; then echo "${n}x${n}: no time left ($left s)"; return; fi
    chomp_box "$B" "$n" "$left" "$OUT/chomp-gpu-$n.json" || return
    python3 - "$OUT/chomp-gpu-$n.json" "$OUT/chomp-bites-${n}x${n}.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
print(f"{run['box']}: {run['p_positions']} P-positions of {run['positions']} in {run['seconds']:.1f} s")
out = {"backend": "gpu", "box": run["box"], "rectangles": run["rectangles"]}
open(sys.argv[2], "w").write(json.dumps(out, separators=(",", ":")) + "\n")
PY
    if [ -n "${CHOMP_NEW_REF:-}" ]; then
        check_bites "$OUT/chomp-gpu-$n.json" "${CHOMP_NEW_REF%%:*}" "${CHOMP_NEW_REF#*:}"
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
    rm -f "$FAILS"
    ;;
kernels)
    setup
    kernels_and_auto "${2:-530}"
    finish
    ;;
run)
    setup
    B=.devbin/chompute
    $B info | head -4
    echo "== GPU correctness on this adapter"
    tests engine gpu
    tests games gpu
    tests pictures gpu_block_counts
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
    same_pixels /tmp/g.png /tmp/c.png "65535: GPU and CPU"
    T $B render 1000000000039 --window 400000000000,400000000000,4096,4096 -o /tmp/w.png
    echo "== fitted pictures by block counts (block_count.wgsl against the CPU)"
    for f in 512 2048; do
        T $B --backend gpu render 18446744073709551615 --fit $f -o /tmp/gf.png
        T $B --backend cpu render 18446744073709551615 --fit $f -o /tmp/cf.png
        same_pixels /tmp/gf.png /tmp/cf.png "C(2^64-1) --fit $f: GPU and CPU"
    done
    T $B --backend gpu render 10000000000000000000 --fit 2048 --verify -o /tmp/gf.png
    T $B --backend cpu render 10000000000000000000 --fit 2048 -o /tmp/cf.png
    same_pixels /tmp/gf.png /tmp/cf.png "C(10^19) --fit 2048: GPU and CPU"
    echo "== count, pass, chomp"
    T $B --backend gpu count 1000001 --method gpu
    T $B --backend gpu nimpass --heaps 4 --max 400
    T $B --backend cpu nimpass --heaps 4 --max 400
    T $B chomp ord --rule 0,1,2 --box 13x13
    chomp_gpu_section "$B" "$OUT" 540
    echo "== two-player Chomp: the forward solver on the machine's 16 cores (hook index, 0.57 GB)"
    T $B --backend cpu chomp solve --box 18x18 --json
    echo "== the 20x20 box (8.7 GB), last: whatever time is left"
    T $B --backend cpu chomp solve --box 20x20 --json
    finish
    ;;
chomp)
    # The Chomp section alone (after `prepare`), within 9 minutes; 22x22 needs an H200's memory.
    setup
    chomp_gpu_section .devbin/chompute "$OUT" 530
    finish
    ;;
chomp22)
    # 22x22 alone, with the whole 9 minutes (for a lease after `chomp` has shown 21x21's time).
    setup
    chomp_new .devbin/chompute "$OUT" 530
    finish
    ;;
smoke)
    # Here, after `prepare`: both device sections at lavapipe's sizes, so that CI runs the very
    # script a lease runs. The tests it would run first are CI's own (cargo test).
    setup
    sizes_smoke
    SKIP_TESTS=1 kernels_and_auto 300
    chomp_gpu_section .devbin/chompute "$OUT" $((SECONDS + 300))
    # Plain reads that cannot bind a box's buffers (23 of 512 bytes; lavapipe binds 14 so, 29
    # with atomic reads): chomp_box runs it again with atomic reads.
    CHOMPUTE_GPU_TABLE_WORDS=128 CHOMPUTE_GPU_TABLE_READS=plain \
        chomp_box .devbin/chompute 10 60 "$OUT/chomp-gpu-10-fallback.json" \
        && check_bites "$OUT/chomp-gpu-10-fallback.json" "${SMOKE_P10}" "${SMOKE_BITES10}"
    finish
    ;;
*)
    rm -f "$FAILS"
    echo "usage: scripts/device-bench.sh prepare|run|kernels|chomp|chomp22|smoke" >&2
    exit 2
    ;;
esac
