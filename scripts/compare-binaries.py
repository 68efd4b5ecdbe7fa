#!/usr/bin/env python3
"""Compare two chompute binaries on the commands BENCHMARKS.md quotes, alternating their runs.

    scripts/compare-binaries.py OLD NEW [--rounds R] [--only TEXT|TEXT...] [--timeout S] [--out FILE.md]

Each command runs R rounds of (OLD, NEW) in turn, so that background load falls on both
alike; the table gives each binary's best wall time, its CPU time (user + system) in that
run, and its largest peak resident set over the rounds, then NEW's best over OLD's. A
command that one binary cannot run (it fails, or prints something else) is marked, not
timed (nor asked again); a run past --timeout seconds is killed. `bench --json` runs R rounds too, and its table gives each row's best rate.

Outputs go to a scratch directory on /dev/shm where there is one (so the disk is not
measured); every run's stdout is compared between the binaries with run-dependent numbers
(seconds, rates) left out, and a difference is reported.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

# (label, arguments[, seconds before a run is killed, else --timeout]). {D} is the scratch
# directory. The bars no one could draw before the digit method get 30 s (binaries before it
# hang on them).
COMMANDS = [
    ("count 65535 --method cpu", ["--backend", "cpu", "count", "65535", "--method", "cpu"]),
    ("render 32767 (cpu)", ["--backend", "cpu", "render", "32767", "-o", "{D}/c.png"]),
    ("render 32767 (auto)", ["render", "32767", "-o", "{D}/c.png"]),
    ("render 32767 --compression fast", ["--backend", "cpu", "render", "32767", "--compression", "fast", "-o", "{D}/c.png"]),
    ("render 32767 --compression best", ["--backend", "cpu", "render", "32767", "--compression", "best", "-o", "{D}/c.png"]),
    ("render 65535 (cpu)", ["--backend", "cpu", "render", "65535", "-o", "{D}/c.png"]),
    ("render 65535 (auto)", ["render", "65535", "-o", "{D}/c.png"]),
    ("render 10^12+39 window 4096² (cpu)", ["--backend", "cpu", "render", "1000000000039", "--window", "400000000000,400000000000,4096,4096", "-o", "{D}/w.png"]),
    ("render 10^12+39 window 4096² (gpu)", ["--backend", "gpu", "render", "1000000000039", "--window", "400000000000,400000000000,4096,4096", "-o", "{D}/w.png"]),
    ("render 30001 (README main job)", ["--backend", "cpu", "render", "30001", "-o", "{D}/chocolate.png"]),
    ("render 65535 --fit 1024", ["--backend", "cpu", "render", "65535", "--fit", "1024", "-o", "{D}/f.png"]),
    ("render 16383 --dzi", ["--backend", "cpu", "render", "16383", "--dzi", "{D}/zoom"]),
    ("render 2^64-1 --fit 512", ["--backend", "cpu", "render", "18446744073709551615", "--fit", "512", "-o", "{D}/f.png"], 30),
    ("render 2^64-1 --fit 1024", ["--backend", "cpu", "render", "18446744073709551615", "--fit", "1024", "-o", "{D}/f.png"], 30),
    ("render 2^64-1 --fit 2048", ["--backend", "cpu", "render", "18446744073709551615", "--fit", "2048", "-o", "{D}/f.png"], 30),
    ("render 10^19 --fit 2048", ["--backend", "cpu", "render", "10000000000000000000", "--fit", "2048", "-o", "{D}/f.png"], 30),
    ("render 10^19 --fit 2048 --shade log", ["--backend", "cpu", "render", "10000000000000000000", "--fit", "2048", "--shade", "log", "-o", "{D}/f.png"], 30),
    ("render 2^64-1 window --fit 2048", ["--backend", "cpu", "render", "18446744073709551615", "--window", "12345,67890,18446744073709000000,18446744073709000000", "--fit", "2048", "-o", "{D}/f.png"], 30),
    ("render 10^12 --fit 64", ["--backend", "cpu", "render", "1000000000000", "--fit", "64", "-o", "{D}/f.png"], 30),
    ("chomp ord 0,1,2 13x13", ["chomp", "ord", "--rule", "0,1,2", "--box", "13x13"]),
    ("chomp ord 1,0,2 13x13", ["chomp", "ord", "--rule", "1,0,2", "--box", "13x13"]),
    ("chomp ord 0,1,2 13x13 --engine layers", ["chomp", "ord", "--rule", "0,1,2", "--box", "13x13", "--engine", "layers"]),
    ("chomp ord 0,1,2 13x13 --check", ["chomp", "ord", "--rule", "0,1,2", "--box", "13x13", "--check"]),
    ("chomp ord 0,1,2 3x2000", ["chomp", "ord", "--rule", "0,1,2", "--box", "3x2000"]),
    ("chomp ord 1,2,0 3x2000", ["chomp", "ord", "--rule", "1,2,0", "--box", "3x2000"]),
    ("chomp classes 8 players 6x6", ["chomp", "classes", "--players", "8", "--box", "6x6"]),
    ("chomp solve --box 18x18", ["chomp", "solve", "--box", "18x18", "--json"], 600),
    ("chomp solve --box 16x16", ["chomp", "solve", "--box", "16x16", "--json"]),
    ("chomp solve --box 12x24 (colex)", ["chomp", "solve", "--box", "12x24", "--json"]),
    ("chomp grundy --box 14x14", ["chomp", "grundy", "--box", "14x14", "--json"]),
    ("chomp cells --max 80", ["chomp", "cells", "--max", "80", "--json"], 600),
    # The store's four kinds written to a file (issue 40: the one store and lifecycle must not
    # slow them): the one-bit table, Grundy values, ordinals and P-positions by cells.
    ("chomp solve --box 18x18 -o", ["chomp", "solve", "--box", "18x18", "-o", "{D}/t18.chomp", "--json"], 600),
    ("chomp grundy --box 16x16 -o", ["chomp", "grundy", "--box", "16x16", "-o", "{D}/g16.grundy", "--json"], 600),
    ("chomp ord 0,1,2 16x16 -o", ["chomp", "ord", "--rule", "0,1,2", "--box", "16x16", "-o", "{D}/o16.ord"], 600),
    ("chomp cells --max 80 -o", ["chomp", "cells", "--max", "80", "-o", "{D}/c80.cells", "--json"], 600),
    # The same four at sizes that a loaded 2-core machine runs in minutes (grundy 16x16 takes
    # about 10 minutes there).
    ("store small: chomp solve --box 17x17 -o", ["chomp", "solve", "--box", "17x17", "-o", "{D}/t17.chomp", "--json"]),
    ("store small: chomp grundy --box 14x14 -o", ["chomp", "grundy", "--box", "14x14", "-o", "{D}/g14.grundy", "--json"]),
    ("store small: chomp ord 0,1,2 14x14 -o", ["chomp", "ord", "--rule", "0,1,2", "--box", "14x14", "-o", "{D}/o14.ord"]),
    ("gp 16384 --check", ["gp", "16384", "--check"]),
    ("nimpass 4 heaps ≤ 256 (cpu)", ["--backend", "cpu", "nimpass", "--heaps", "4", "--max", "256"]),
    ("nimpass 4 heaps ≤ 512 (cpu)", ["--backend", "cpu", "nimpass", "--heaps", "4", "--max", "512"]),
    ("nimpass 4 heaps ≤ 256 (gpu)", ["--backend", "gpu", "nimpass", "--heaps", "4", "--max", "256"]),
    ("cb 2^⌊log2 z⌋-1 256,256 --pass --check", ["cb", "--f", "pow2(log2(max(z,1)))-1", "--bound", "256,256", "--pass", "--check"]),
    ("ca 8191 (cpu)", ["--backend", "cpu", "ca", "8191", "--json"]),
    ("ca 16383 --verify (cpu)", ["--backend", "cpu", "ca", "16383", "--verify"]),
    ("ca 1023 (gpu)", ["--backend", "gpu", "ca", "1023", "--json"]),
    ("theorems --max-m 1024", ["theorems", "--max-m", "1024"]),
    ("theorems --max-m 2048", ["theorems", "--max-m", "2048"]),
    ("theorems --max-m 4096", ["theorems", "--max-m", "4096"]),
    ("octahedron 10 --check", ["octahedron", "10", "--check"]),
    ("octahedron 11 --check", ["octahedron", "11", "--check"]),
]

GNU_TIME = "/usr/bin/time"

# Numbers that change from run to run: times, rates, and anything with a decimal point.
RUN_DEPENDENT = re.compile(r"\d+\.\d+(e[+-]?\d+)?|\d+e[+-]?\d+")


def scratch_root():
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


def measure(binary, args, scratch, timeout):
    """One run under wait4, for the child's own CPU time and peak RSS: exit status (None when
    it ran past `timeout` seconds and was killed), wall s, CPU s, peak RSS KiB, and stdout
    with run-dependent numbers masked."""
    d = tempfile.mkdtemp(prefix="cmp-", dir=scratch)
    argv = [binary] + [a.replace("{D}", d) for a in args]
    # A child forked from Python starts with Python's pages counted in its peak RSS, so the
    # peak comes from GNU time (a small process) where it is installed.
    rss_path = os.path.join(d, ".rss")
    if os.access(GNU_TIME, os.X_OK):
        argv = [GNU_TIME, "-f", "%M", "-o", rss_path] + argv
    out_file = tempfile.TemporaryFile()
    start = time.perf_counter()
    # Its own process group, so that a kill reaches the binary under GNU time too.
    p = subprocess.Popen(argv, stdout=out_file, stderr=subprocess.DEVNULL, start_new_session=True)
    timer = threading.Timer(timeout, lambda: os.killpg(p.pid, signal.SIGKILL))
    timer.start()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    timed_out = not timer.is_alive()
    timer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)
    rss_kib = usage.ru_maxrss
    try:
        with open(rss_path) as f:
            rss_kib = int(f.read().split()[-1])
    except (OSError, ValueError, IndexError):
        pass
    shutil.rmtree(d, ignore_errors=True)
    out_file.seek(0)
    # The scratch directory's name differs from run to run; a path under it prints as {D}.
    out = out_file.read().decode(errors="replace").replace(d, "{D}")
    code = None if timed_out else p.returncode
    return {
        "ok": code == 0,
        "code": code if code is not None else f"killed after {timeout} s",
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_kib": rss_kib,
        "out": RUN_DEPENDENT.sub("#", out),
    }


def fmt_s(x):
    return f"{x:.3f} s" if x < 10 else f"{x:.1f} s"


def compare_commands(old, new, rounds, only, scratch, log, timeout):
    rows = []
    for label, args, *limit in COMMANDS:
        if only and not any(part in label for part in only.split("|")):
            continue
        res = {"old": [], "new": []}
        for _ in range(rounds):
            for which, binary in (("old", old), ("new", new)):
                # A binary that cannot run the command is not asked again.
                if res[which] and not res[which][0]["ok"]:
                    continue
                res[which].append(measure(binary, args, scratch, limit[0] if limit else timeout))
        cells = {}
        for which in ("old", "new"):
            ok = [r for r in res[which] if r["ok"]]
            if not ok:
                cells[which] = None
                continue
            best = min(ok, key=lambda r: r["wall"])
            cells[which] = (best["wall"], best["cpu"], max(r["rss_kib"] for r in ok) / 1024)
        note = ""
        if cells["old"] and cells["new"]:
            o = {r["out"] for r in res["old"] if r["ok"]}
            n = {r["out"] for r in res["new"] if r["ok"]}
            if o != n:
                note = "outputs differ"
        else:
            note = "; ".join(
                f"{w}: exit {res[w][0]['code']}" for w in ("old", "new") if not cells[w]
            )
        rows.append((label, cells["old"], cells["new"], note))
        line = f"{label}: old {cells['old']} new {cells['new']} {note}"
        print(line, file=log, flush=True)
    return rows


def bench_rows(binary):
    out = subprocess.run([binary, "--backend", "cpu", "bench", "--json"], capture_output=True, text=True, check=True).stdout
    return {(r["kernel"], r["size"]): float(r["per_second"]) for r in json.loads(out)["measurements"]}


def compare_bench(old, new, rounds, log):
    best = {"old": {}, "new": {}}
    for _ in range(rounds):
        for which, binary in (("old", old), ("new", new)):
            for key, rate in bench_rows(binary).items():
                best[which][key] = max(rate, best[which].get(key, 0.0))
        print("bench round done", file=log, flush=True)
    keys = list(best["new"]) + [k for k in best["old"] if k not in best["new"]]
    return [(k, best["old"].get(k), best["new"].get(k)) for k in keys]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="", help="commands whose label holds one of these |-separated strings")
    ap.add_argument("--timeout", type=float, default=180, help="seconds before a run is killed")
    ap.add_argument("--no-bench", action="store_true", help="skip `bench`")
    ap.add_argument("--bench-only", action="store_true", help="only `bench`")
    ap.add_argument("--out", default="-")
    a = ap.parse_args()
    scratch = scratch_root()
    log = sys.stderr
    md = []
    md.append(f"Best of {a.rounds} alternated rounds (old, new); wall, CPU (user + system) of that run, largest peak RSS.")
    md.append("")
    md.append("| command | old wall | old CPU | old RSS | new wall | new CPU | new RSS | new/old wall | note |")
    md.append("|---|---|---|---|---|---|---|---|---|")
    rows = [] if a.bench_only else compare_commands(a.old, a.new, a.rounds, a.only, scratch, log, a.timeout)
    for label, o, n, note in rows:
        def part(c):
            return [fmt_s(c[0]), fmt_s(c[1]), f"{c[2]:.1f} MB"] if c else ["—", "—", "—"]
        ratio = f"{n[0] / o[0]:.2f}×" if o and n and o[0] > 0 else ""
        md.append("| " + " | ".join([f"`{label}`"] + part(o) + part(n) + [ratio, note]) + " |")
    if not a.no_bench and not a.only:
        md.append("")
        md.append(f"`chompute --backend cpu bench`, best rate of {a.rounds} alternated rounds:")
        md.append("")
        md.append("| kernel | size | old /s | new /s | new/old |")
        md.append("|---|---|---|---|---|")
        for (kernel, size), o, n in compare_bench(a.old, a.new, a.rounds, log):
            ratio = f"{n / o:.2f}×" if o and n else ""
            rate = lambda x: f"{x:.3e}" if x else "—"
            md.append(f"| {kernel} | {size} | {rate(o)} | {rate(n)} | {ratio} |")
    text = "\n".join(md) + "\n"
    if a.out == "-":
        sys.stdout.write(text)
    else:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
