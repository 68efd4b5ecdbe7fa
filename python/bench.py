"""p_grid(30001) and gp_table(4096) from Python, for the binding-overhead figures in
BENCHMARKS.md (the same work through the library in Rust is `cargo bench --bench binding`).
Best of several runs each, in seconds: `python python/bench.py [RUNS]`."""

import sys
import time

import chompute


def best(runs, f):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    grid = best(runs, lambda: chompute.p_grid(30001, backend="cpu"))
    print(f"chompute.p_grid(30001, backend='cpu'): best of {runs}: {grid:.4f} s")
    gp = best(runs, lambda: chompute.gp_table(4096))
    print(f"chompute.gp_table(4096): best of {runs}: {gp:.4f} s")


if __name__ == "__main__":
    main()
