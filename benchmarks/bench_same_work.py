"""The same work on two trees: this checkout against another one (an older commit), side by side.

`bench_engine.py` measures each tree on its own corpus and its own random games; when the corpus
grows or the driver plays other games, its figures are not the same work. This script gives the
two engines the same inputs and reports the ratio of their times, paired run by run (A, B, A, B
…, each in a fresh process, the median of the pairs' ratios: the machine's drifts cancel):

- ``engine``: `model.engine.run_case` over every case of one corpus (default: the other tree's,
  the older and smaller one) — building the
  state, the steps, the returned state;
- ``loop``: the same cases through `conformance.runner.run_cases` (the harness with the engine);
- ``replay``: the random games the other tree's driver plays (100 games of up to 200 steps),
  replayed by each engine with `run_case`;
- ``driver``: each tree's own random-play driver (`properties.driver.random_game`, 100 games), its
  time per accepted step: NOT the same games when the drivers differ; its ratio is marked so.

Usage: ``python benchmarks/bench_same_work.py --base /path/to/other/checkout [--runs 7]
[--corpus DIR] [--json]``. A ratio above 1 means this tree is slower. The other checkout needs
the same Python packages (run it with this tree's interpreter). Never part of the test suite.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# run in a fresh interpreter inside one tree: argv = tree, workload, data file, corpus dir
_CHILD = r"""
import gc, inspect, json, os, sys, time
tree, work, data, corpus = sys.argv[1:5]
sys.path.insert(0, tree); os.chdir(tree)
from pathlib import Path
from model import engine
kw = "version" in inspect.signature(engine.run_case).parameters
def version_of(c):
    return {"version": getattr(c, "version", 1)} if kw else {}
if work in ("engine", "loop"):
    from conformance.loader import load_files
    cases = load_files([Path(corpus)]).cases
    if work == "engine":
        def once():
            for c in cases:
                r = engine.run_case(c.given, c.when, ruleset=(c.rulesets or [None])[0] or "kodex",
                                    **version_of(c))
                r.events
    else:
        from conformance.runner import run_cases
        def once():
            run_cases(cases, progress=False)
elif work == "replay":
    games = json.load(open(data))
    def once():
        for given, when in games:
            assert engine.run_case(given, when).refused is None
elif work == "driver":
    from properties.driver import random_game
    def once():
        return sum(len(random_game(seed, 200)[1]) for seed in range(100))
elif work == "games":
    from properties.driver import random_game
    json.dump([random_game(seed, 200) for seed in range(100)], open(data, "w"))
    sys.exit(0)
once()
gc.collect()
t = time.perf_counter(); steps = once(); print(time.perf_counter() - t, steps or 1)
"""

WORKLOADS = ("engine", "loop", "replay", "driver")


def _time(tree: Path, work: str, data: str, corpus: str) -> float:
    """Seconds of one run; for ``driver``, seconds per accepted step (the trees' games differ)."""
    out = subprocess.run([sys.executable, "-c", _CHILD, str(tree), work, data, corpus],
                         capture_output=True, text=True, check=True)
    seconds, steps = out.stdout.strip().splitlines()[-1].split()
    return float(seconds) / int(steps)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, type=Path, help="the other checkout (B)")
    ap.add_argument("--runs", type=int, default=7, help="pairs per workload (default 7)")
    ap.add_argument("--corpus", type=Path, default=None,
                    help="the cases of `engine` and `loop` (default: the other tree's corpus)")
    ap.add_argument("--only", default=",".join(WORKLOADS), help="workloads, comma-separated")
    ap.add_argument("--json", action="store_true", help="one JSON line instead of a table")
    args = ap.parse_args(argv)
    base = args.base.resolve()
    corpus = str((args.corpus or base / "conformance" / "corpus").resolve())
    results = {}
    with tempfile.TemporaryDirectory(prefix="kodex-same-work-") as tmp:
        games = str(Path(tmp) / "games.json")
        subprocess.run([sys.executable, "-c", _CHILD, str(base), "games", games, corpus], check=True)
        for work in args.only.split(","):
            a_times, b_times, ratios = [], [], []
            for _ in range(args.runs):
                a = _time(ROOT, work, games, corpus)
                b = _time(base, work, games, corpus)
                a_times.append(a)
                b_times.append(b)
                ratios.append(a / b)
            results[work] = {"this_s": round(statistics.median(a_times), 8),
                             "base_s": round(statistics.median(b_times), 8),
                             "ratio": round(statistics.median(ratios), 3),
                             "ratio_min": round(min(ratios), 3), "ratio_max": round(max(ratios), 3),
                             "same_work": work != "driver"}
    if args.json:
        print(json.dumps({"base": str(base), "corpus": corpus, "runs": args.runs, **results}))
        return 0
    print(f"this tree: {ROOT}\nbase tree: {base}\ncases of engine/loop: {corpus}\n")
    print(f"{'workload':<8} {'this (median s)':>16} {'base (median s)':>16} {'this/base':>10}  spread")
    for work, r in results.items():
        if not r["same_work"]:
            r["this_s"], r["base_s"] = r["this_s"] * 1e6, r["base_s"] * 1e6    # µs per step
        note = "" if r["same_work"] else "  (µs per accepted step; each tree's own games)"
        print(f"{work:<8} {r['this_s']:>16.4f} {r['base_s']:>16.4f} {r['ratio']:>10.3f}  "
              f"{r['ratio_min']:.3f}–{r['ratio_max']:.3f}{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
