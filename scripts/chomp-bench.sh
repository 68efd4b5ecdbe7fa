#!/bin/bash
# The two-player Chomp rows of BENCHMARKS.md: `chomp solve` against `chomp ord --rule 0,1` on
# the same boxes, alternated (three rounds for 12x12 and 14x14, one or two for 16x16), then the
# Grundy values of 14x14 and P-positions by cells. GNU time gives wall, user and peak RSS.
# Usage: scripts/chomp-bench.sh [BINARY]   (default: target/release/chompute)
set -euo pipefail
B=${1:-target/release/chompute}
t() { /usr/bin/time -f "$1: %e s wall, %U s user, %M KB" "${@:2}"; }
for side in 12 14; do
  for round in 1 2 3; do
    t "solve $side round $round" "$B" chomp solve --box "${side}x${side}" --json > /dev/null
    t "ord   $side round $round" "$B" chomp ord --rule 0,1 --box "${side}x${side}" --json > /dev/null
  done
done
t "solve 16 round 1" "$B" chomp solve --box 16x16 --json > /dev/null
t "ord   16 round 1" "$B" chomp ord --rule 0,1 --box 16x16 --json > /dev/null
t "solve 16 round 2" "$B" chomp solve --box 16x16 --json > /dev/null
t "grundy 14" "$B" chomp grundy --box 14x14 --json > /dev/null
t "cells 80" "$B" chomp cells --max 80 --bfile | tail -1
uptime
