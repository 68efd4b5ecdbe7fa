#!/bin/bash
# Resume after a kill at 60%: `scripts/resume-bench.sh [BINARY] [BOX] [ROUNDS] [DIR]`.
# Each round times a full `chomp solve --box BOX -o FILE`, starts it again, SIGKILLs it at 60%
# of that wall time, then times the resume and prints the ratio and the resume line.
# Defaults: target/release/chompute, 17x17, 2 rounds, /dev/shm (or /tmp). See BENCHMARKS.md.
set -u
B=${1:-target/release/chompute}
BOX=${2:-17x17}
ROUNDS=${3:-2}
D=${4:-$( [ -d /dev/shm ] && echo /dev/shm || echo /tmp )}/chompute-resume-bench
rm -rf "$D"; mkdir -p "$D"
now() { date +%s.%N; }
for i in $(seq "$ROUNDS"); do
  s=$(now); "$B" chomp solve --box "$BOX" -o "$D/full.tbl" >/dev/null 2>&1 || exit 2; e=$(now)
  full=$(echo "$e - $s" | bc); kill_at=$(echo "$full * 0.6" | bc)
  "$B" chomp solve --box "$BOX" -o "$D/k.tbl" >/dev/null 2>&1 & P=$!
  sleep "$kill_at"; kill -9 "$P" 2>/dev/null; wait "$P" 2>/dev/null
  s=$(now); "$B" chomp solve --box "$BOX" -o "$D/k.tbl" >/dev/null 2>"$D/err" || exit 2; e=$(now)
  res=$(echo "$e - $s" | bc)
  cmp -s "$D/full.tbl" "$D/k.tbl" && same="byte-identical" || same="DIFFERENT"
  echo "round $i: full $full s, killed at $kill_at s, resume $res s, ratio $(echo "scale=2; $res / $full" | bc), $same; $(grep resuming "$D/err")"
  rm -f "$D/full.tbl" "$D/k.tbl"
done
rm -rf "$D"
