#!/usr/bin/env bash
# The cluster recipe of docs/guide/clusters.md on a real Slurm: a one-node cluster (munged,
# slurmctld, slurmd started here, everything under one temporary directory) runs the guide's
# render.sbatch as a job array and its assemble.sbatch as a dependent job, with one array task
# cancelled part-way and resubmitted, and the assembled PNG must be byte for byte one
# `chompute render` of the bar.
#
#   scripts/slurm-ci.sh            # from anywhere; uses target/release/chompute
#   CHOMPUTE_BIN=path/to/chompute scripts/slurm-ci.sh
#   KEEP=1 scripts/slurm-ci.sh     # keep the logs and tiles
#
# The cluster's state, spool, logs, munge key and socket live in a fresh temporary directory
# (slurmctld also starts with -c), so no old job comes back and nothing in /etc or /var is
# touched; the ports are two free ones, so a Slurm already on the machine is left alone.
#
# Needs root and apt (Debian's slurm-wlm and munge are installed when missing). Where it cannot
# run it prints "SKIPPED slurm: <why>" and exits 0, except under CI=true, where that is a
# failure. Then the guide's waves of a Chomp table (docs/guide/tables-past-memory.md): 16x16 in
# 4 parts per wave, a task cancelled part-way and rerun, the table equal to one process's. The
# last line is "slurm: 2 passed, 0 failed" or "slurm: 0 passed, 1 failed".
set -Eeuo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
BIN=${CHOMPUTE_BIN:-$REPO/target/release/chompute}

# The bar and the array. 65535 in tiles of 2048 is 1024 tiles, 256 a task: each task runs for
# a second or more, long enough to be cancelled part-way, and the whole run stays short.
BAR=(65535 --tile-size 2048)
N=4
LIMIT_S=120   # the whole run, daemons included

fail_early() {
    echo "slurm: FAILED: $*" >&2
    echo "slurm: 0 passed, 1 failed"
    exit 1
}
skip() {
    if [ "${CI:-}" = true ]; then
        fail_early "cannot run under CI=true: $*"
    fi
    echo "SKIPPED slurm: $*"
    exit 0
}

[ "$(id -u)" = 0 ] || skip "needs root (to install and start munge and Slurm)"
command -v apt-get >/dev/null || skip "no apt-get to install Debian's slurm-wlm and munge"
command -v setpriv >/dev/null || skip "no setpriv (util-linux) to run munged as user munge"
[ -x "$BIN" ] || skip "no chompute binary at $BIN (cargo build --release)"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
    || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends slurm-wlm munge; } \
        >/tmp/chompute-slurm-apt.log 2>&1 \
        || skip "cannot install slurm-wlm and munge (see /tmp/chompute-slurm-apt.log)"
fi
id munge >/dev/null 2>&1 || skip "the munge package made no user munge"

INSTALL_S=$SECONDS
START=$SECONDS
W=$(mktemp -d /tmp/chompute-slurm.XXXXXX)
chmod 755 "$W"
PIDS=()

# Stop what this script started, by PID: the jobs first (slurmstepd outlives slurmd), then
# slurmd, slurmctld and munged; the temporary directory goes too unless the run failed.
cleanup() {
    local rc=$?
    trap - ERR
    set +e
    if [ -n "${SLURM_CONF:-}" ] && [ -n "${CTLD_PID:-}" ] && kill -0 "$CTLD_PID" 2>/dev/null; then
        scancel --full --quiet --user=root 2>/dev/null
        for _ in $(seq 50); do
            [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.1
        done
    fi
    local i pid
    for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
        pid=${PIDS[i]}
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    if [ "$rc" = 0 ] && [ -z "${KEEP:-}" ]; then
        rm -rf "$W"
    else
        echo "slurm: logs and tiles kept in $W" >&2
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
trap 'fail "line $LINENO: $BASH_COMMAND exited with status $?"' ERR

show_logs() {
    local f
    for f in "$W"/log/*; do
        [ -f "$f" ] || continue
        echo "--- $f" >&2
        tail -n 15 "$f" >&2
    done
}
fail() {
    echo "slurm: FAILED: $*" >&2
    show_logs
    echo "slurm: 0 passed, 1 failed"
    exit 1
}
note() { echo "slurm: [$((SECONDS - START))s] $*"; }
# wait_for SECONDS WHAT COMMAND...: poll COMMAND every 0.1 s until it succeeds.
wait_for() {
    local limit=$1 what=$2
    shift 2
    local deadline=$((SECONDS + limit))
    until "$@"; do
        [ $SECONDS -lt $deadline ] || fail "timed out after ${limit}s waiting for $what"
        [ $((SECONDS - START)) -lt $LIMIT_S ] || fail "the run took over ${LIMIT_S}s"
        sleep 0.1
    done
}

# --- The cluster -----------------------------------------------------------------------------

HOST=$(hostname -s)
# CPUs and memory as slurmd itself detects them (never more than the machine has).
read -r CPUS MEM < <(slurmd -C | awk '/^NodeName/ {
    for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    print v["CPUs"], v["RealMemory"] }')
[ -n "${CPUS:-}" ] && [ -n "${MEM:-}" ] || fail "slurmd -C did not say the node's CPUs and memory"

# Two free TCP ports, so that a Slurm already on the machine is left alone.
listening() {
    local hex
    hex=$(printf '%04X' "$1")
    awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { found = 1 }
        END { exit !found }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
PORT=$((10000 + $$ % 9000 * 2))
while listening "$PORT" || listening $((PORT + 1)); do PORT=$((PORT + 2)); done

mkdir -p "$W"/etc "$W"/log "$W"/ctld "$W"/slurmd "$W"/munge "$W"/munge-run "$W"/jobs "$W"/out
# munged insists: its key private to user munge, its socket's directory open to all.
chown munge:munge "$W"/munge "$W"/munge-run
chmod 700 "$W"/munge
chmod 755 "$W"/munge-run
# A fresh munge key for this cluster only.
dd if=/dev/urandom of="$W"/munge/munge.key bs=1024 count=1 status=none
chown munge:munge "$W"/munge/munge.key
chmod 400 "$W"/munge/munge.key
MUNGE_SOCKET=$W/munge-run/munge.socket

export SLURM_CONF=$W/etc/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=chompute-ci
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$W/ctld
SlurmdSpoolDir=$W/slurmd
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=ci Nodes=$HOST Default=YES MaxTime=10 State=UP
EOF

# munged in the foreground as user munge, so that its PID is the daemon's.
setpriv --reuid=munge --regid=munge --clear-groups \
    munged -F --key-file="$W"/munge/munge.key --socket="$MUNGE_SOCKET" \
    --pid-file="$W"/munge/munged.pid --log-file="$W"/munge/munged.log \
    --seed-file="$W"/munge/munged.seed >>"$W"/log/munged.out 2>&1 &
PIDS+=($!)
MUNGE_PID=$!
munge_up() {
    kill -0 "$MUNGE_PID" 2>/dev/null || fail "munged exited"
    test -S "$MUNGE_SOCKET"
}
wait_for 10 "munged's socket" munge_up

slurmctld -D -c -f "$SLURM_CONF" >>"$W"/log/slurmctld.out 2>&1 &
PIDS+=($!)
CTLD_PID=$!
slurmd -D -f "$SLURM_CONF" -N "$HOST" >>"$W"/log/slurmd.out 2>&1 &
PIDS+=($!)
node_idle() { [ "$(sinfo -h -n "$HOST" -o %t 2>/dev/null)" = idle ]; }
wait_for 30 "sinfo to show node $HOST idle" node_idle
note "one-node cluster $HOST up ($CPUS CPUs, $MEM MB)"

# --- The guide's recipe (docs/guide/clusters.md) ---------------------------------------------

# The batch scripts exactly as docs/guide/clusters.md writes them.
clusters_script() {
    awk -v start="cat > $1 <<'SH'" '$0 == start { on = 1; next } on && $0 == "SH" { exit }
        on { print }' "$REPO"/docs/guide/clusters.md
}
for s in render.sbatch assemble.sbatch; do
    clusters_script "$s" >"$W/jobs/$s"
    grep -q chompute "$W/jobs/$s" || fail "docs/guide/clusters.md has no '$s' script"
done

export PATH="$(dirname "$BIN"):$PATH"
export CHOMPUTE_BACKEND=cpu
TILES=$W/out/tiles
OUT=$W/out/chocolate.png
cd "$W"/jobs
submit() { sbatch --parsable --chdir="$W"/jobs --output="$W"/log/%x-%A_%a.out "$@"; }
# One record per job: "JobId=… ArrayTaskId=… JobState=… Reason=…".
state() { scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1 | cut -d= -f2 || true; }
reason() { scontrol -o show job "$1" 2>/dev/null | grep -o 'Reason=[^ ]*' | head -1 | cut -d= -f2 || true; }
ended() {
    case "$(state "$1")" in
    COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | PREEMPTED | BOOT_FAIL | DEADLINE) ;;
    *) return 1 ;;
    esac
}
# Verified tiles of shard I (records of tiles t with t mod N = I; 32 columns, so C mod N = I).
records_of_shard() {
    local n=0 f c
    for f in "$TILES"/tile-*-*.json; do
        [ -e "$f" ] || continue
        c=${f##*-}
        c=${c%.json}
        [ $((c % N)) = "$1" ] && n=$((n + 1))
    done
    echo "$n"
}

# A request larger than the node is accepted and then never runs (the guide's sizing note).
too_big=$(submit --cpus-per-task=$((CPUS * 2)) --wrap true)
reason_is_config() { [ "$(reason "$too_big")" = PartitionConfig ]; }
wait_for 10 "a job asking for $((CPUS * 2)) CPUs to be held as PartitionConfig" reason_is_config
scancel "$too_big"

jobid=$(submit --array=0-$((N - 1)) --cpus-per-task="$CPUS" render.sbatch $N "$TILES" "${BAR[@]}")
assembly=$(submit --dependency=afterok:"$jobid" assemble.sbatch "$TILES" "$OUT")

# Cancel task 1 part-way: once it has verified its first tile.
first_tile_of_1() { [ "$(records_of_shard 1)" -gt 0 ] || ended "${jobid}_1"; }
wait_for 60 "array task ${jobid}_1 to write a tile" first_tile_of_1
scancel "${jobid}_1"
stopped() { ended "$1" && ! squeue -h -j "$1" -o %T 2>/dev/null | grep -q COMPLETING; }
wait_for 15 "${jobid}_1 to end" stopped "${jobid}_1"
[ "$(state "${jobid}_1")" = CANCELLED ] \
    || fail "${jobid}_1 is $(state "${jobid}_1"), not CANCELLED: it finished before the cancel"
kept=$(records_of_shard 1)
# Every task gets 1024/N tiles: 32 columns of 32 rows, N dividing 32.
per_task=$((1024 / N))
[ "$kept" -gt 0 ] && [ "$kept" -lt "$per_task" ] \
    || fail "the cancelled task left $kept of its $per_task tiles, not part of them"
note "cancelled ${jobid}_1 part-way, after $kept of its $per_task tiles"

# The assembly on afterany runs once the array has ended and must fail: shard 1 is incomplete.
early=$(submit --dependency=afterany:"$jobid" assemble.sbatch "$TILES" "$OUT")
wait_for 60 "the early assembly $early to end" ended "$early"
[ "$(state "$early")" = FAILED ] || fail "assembling an incomplete directory: $(state "$early")"
grep -q "tile-0-1.png" "$W"/log/chocolate-assemble-"$early"_*.out \
    || grep -q "tile-.*is missing\|has no record" "$W"/log/chocolate-assemble-"$early"_*.out \
    || fail "the failed assembly does not name a tile"
[ ! -e "$OUT" ] || fail "the failed assembly left $OUT"
for t in "${jobid}_0" "${jobid}_2" "${jobid}_3"; do
    [ "$(state "$t")" = COMPLETED ] || fail "$t is $(state "$t")"
done
# The guide's afterok assembly can never run now.
[ "$(state "$assembly")" = PENDING ] || fail "the afterok assembly is $(state "$assembly")"
never() { [ "$(reason "$assembly")" = DependencyNeverSatisfied ]; }
wait_for 15 "the afterok assembly to be DependencyNeverSatisfied" never
scancel "$assembly"
note "assembling before the rerun failed naming a tile; the afterok assembly is DependencyNeverSatisfied"

# Resubmit the cancelled index, and the assembly after it.
rerun=$(submit --array=1 --cpus-per-task="$CPUS" render.sbatch $N "$TILES" "${BAR[@]}")
final=$(submit --dependency=afterany:"$jobid",afterok:"$rerun" assemble.sbatch "$TILES" "$OUT")
wait_for 90 "the assembly $final to end" ended "$final"
[ "$(state "${rerun}_1")" = COMPLETED ] || fail "the rerun ${rerun}_1 is $(state "${rerun}_1")"
[ "$(state "$final")" = COMPLETED ] || fail "the assembly $final is $(state "$final")"
line=$(grep -h "shard 1/$N" "$W"/log/chocolate-"$rerun"_1.out || true)
[[ "$line" == *"wrote $((per_task - kept)) tiles, skipped $kept already complete"* ]] \
    || fail "the rerun should skip the $kept verified tiles and write the rest: '$line'"

runtimes=""
for t in "${jobid}_0" "${jobid}_1" "${jobid}_2" "${jobid}_3" "${rerun}_1"; do
    runtimes+=" $t $(scontrol show job "$t" 2>/dev/null | grep -o 'RunTime=[0-9:-]*' | cut -d= -f2 || true)"
done
note "rerun and assembly completed; run times:$runtimes"
# One render of the same bar: every chunk but the tEXt ones (whose Description names the
# command that wrote the file, render or assemble) byte for byte, so header and pixel data.
REF=$W/out/single.png
"$BIN" --backend cpu render "${BAR[0]}" -o "$REF"
png_body() {
    python3 - "$1" <<'PY'
import hashlib, struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, body = 8, hashlib.sha256()
while pos < len(data):
    (length,) = struct.unpack(">I", data[pos:pos + 4])
    kind = data[pos + 4:pos + 8]
    if kind != b"tEXt":
        body.update(data[pos:pos + 12 + length])
    pos += 12 + length
print(body.hexdigest())
PY
}
[ "$(png_body "$OUT")" = "$(png_body "$REF")" ] \
    || fail "the assembled $OUT differs from one render ($REF)"
note "the assembled picture is the single render's header and pixel data, byte for byte"

# --- The guide's waves of a Chomp table ------------------------------------------------------
# docs/guide/tables-past-memory.md's chomp-wave.sbatch and chomp-submit.sh: 16x16 in 4 parts
# per wave (32 job arrays, then the job that writes the table), task 1 of the last wave (its
# one group, the (16,16) hook, in 6 pieces at 2M) cancelled after its first piece, resubmitted
# alone, and the table compared byte for byte with one process.
GUIDE=$REPO/docs/guide/tables-past-memory.md
guide_script() {
    awk -v start="cat > $1 <<'SH'" '$0 == start { on = 1; next } on && $0 == "SH" { exit }
        on { print }' "$GUIDE"
}
for s in chomp-wave.sbatch chomp-submit.sh; do
    guide_script "$s" >"$W/jobs/$s"
    grep -q chompute "$W/jobs/$s" || fail "$GUIDE has no '$s' script"
done
LIMIT_S=$((SECONDS - START + 300))
CBOX=16x16
CMEM=2M
CN=4
TABLE=$W/out/chomp-16x16.tbl
PIECES=$W/out/chomp-16x16.tbl.blocks
# The last wave's pieces: the plan in waves, as the parts will make it.
read -r ALL LAST < <("$BIN" chomp solve --box $CBOX -o "$TABLE" --memory $CMEM --part 1/$CN --plan --json \
    | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["pieces"], d["waves"][-1]["pieces"])')
[ "$LAST" -gt 1 ] || fail "the last wave of $CBOX at $CMEM is one piece: nothing to cancel part-way"
sub=$(bash chomp-submit.sh $CBOX "$TABLE" $CMEM $CN)
last_wave=$(echo "$sub" | awk '$1 == "wave" && $2 == "32:" { print $3 }')
table_job=$(echo "$sub" | awk '$1 == "table:" { print $2 }')
[ -n "$last_wave" ] && [ -n "$table_job" ] || fail "chomp-submit.sh printed no job ids: $sub"
finished_pieces() { ls "$PIECES"/window-*.bits 2>/dev/null | wc -l; }
first_of_last() { [ "$(finished_pieces)" -gt $((ALL - LAST)) ] || ended "${last_wave}_1"; }
wait_for 240 "task ${last_wave}_1 (the last wave) to finish its first piece" first_of_last
scancel "${last_wave}_1"
wait_for 15 "${last_wave}_1 to end" stopped "${last_wave}_1"
[ "$(state "${last_wave}_1")" = CANCELLED ] \
    || fail "${last_wave}_1 is $(state "${last_wave}_1"), not CANCELLED: it finished before the cancel"
kept=$(finished_pieces)
[ "$kept" -lt "$ALL" ] || fail "the cancelled task left every piece finished"
note "cancelled ${last_wave}_1 with $((kept - ALL + LAST)) of the last wave's $LAST pieces done"
never_table() { [ "$(reason "$table_job")" = DependencyNeverSatisfied ]; }
wait_for 30 "the table job to be DependencyNeverSatisfied" never_table
scancel "$table_job"
[ ! -e "$TABLE" ] || fail "the table was written before the last wave was done"
rerun=$(submit --array=1 chomp-wave.sbatch $CN $CBOX "$TABLE" $CMEM)
final=$(submit --dependency=afterok:"$rerun" --job-name=chomp-table \
    --wrap "chompute chomp solve --box $CBOX -o $TABLE --memory $CMEM --json")
wait_for 120 "the table job $final to end" ended "$final"
[ "$(state "${rerun}_1")" = COMPLETED ] || fail "the rerun ${rerun}_1 is $(state "${rerun}_1")"
[ "$(state "$final")" = COMPLETED ] || fail "the table job $final is $(state "$final")"
grep -q '"wave":32' "$W"/log/chomp-wave-"$rerun"_1.out || fail "the rerun did not do wave 32"
CREF=$W/out/chomp-16x16-one.tbl
"$BIN" chomp solve --box $CBOX -o "$CREF" >/dev/null
cmp "$TABLE" "$CREF" || fail "the table of the waves differs from one process's"
[ ! -e "$PIECES" ] || fail "the table job left $PIECES"
note "the table of 32 waves in $CN parts, one task cancelled and rerun, is one process's, byte for byte"
echo "slurm: passed in ${SECONDS}s: ${INSTALL_S}s to check or install the packages, $((SECONDS - START))s on the cluster"
echo "slurm: 2 passed, 0 failed"
