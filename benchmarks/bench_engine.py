"""Engine benchmarks: steps per second and peak memory (tracemalloc).

Measures
1. the random legal-play driver (properties/driver.py): whole games, generation
   and the engine together (accepted steps per second);
2. the engine alone: the driver's games replayed with `model.engine.run_case`;
3. the full corpus (conformance/corpus) through `conformance.loader` and
   `conformance.runner.run_cases`, in-process.

Prints a small table with the targets (≥ 2,000 engine steps/s, corpus < 5 s) as
pass/fail. Never part of the test suite; run it with
``PYTHONPATH=. python benchmarks/bench_engine.py [--games N] [--steps M]``.
Exit status 0 always (the numbers are for reading), unless ``--strict``.
"""
from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TARGET_STEPS_PER_S = 2000.0
TARGET_CORPUS_S = 5.0


def _measure(fn: Callable[[], Any]) -> tuple[Any, float, int]:
    """(result, seconds, peak bytes) of one call, with tracemalloc on for the peak only."""
    gc.collect()
    t0 = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - t0
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, elapsed, peak


def bench_driver(games: int, steps: int) -> dict[str, Any]:
    from properties.driver import random_game

    def run():
        return [random_game(seed, steps) for seed in range(games)]
    played, elapsed, peak = _measure(run)
    n = sum(len(when) for _, when in played)
    return {"name": f"legal-play driver ({games} games)", "steps": n, "seconds": elapsed,
            "rate": n / elapsed if elapsed else 0.0, "peak": peak, "played": played}


def bench_replay(played: list) -> dict[str, Any]:
    from model.engine import run_case

    def run():
        return [run_case(given, when) for given, when in played]
    results, elapsed, peak = _measure(run)
    assert all(r.refused is None for r in results), "a driver game did not replay"
    n = sum(len(when) for _, when in played)
    return {"name": "engine alone (run_case replay)", "steps": n, "seconds": elapsed,
            "rate": n / elapsed if elapsed else 0.0, "peak": peak}


def bench_corpus() -> dict[str, Any]:
    from conformance.loader import load_files
    from conformance.runner import run_cases

    def run():
        loaded = load_files()
        return loaded, run_cases(loaded.cases, progress=False)
    (loaded, report), elapsed, peak = _measure(run)
    steps = sum(len(getattr(c, "when", None) or []) for c in loaded.cases)
    return {"name": f"corpus ({len(loaded.cases)} cases, {report.totals.get('pass', 0)} pass)",
            "steps": steps, "seconds": elapsed, "rate": steps / elapsed if elapsed else 0.0,
            "peak": peak, "ok": report.ok}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args(argv)

    driver = bench_driver(args.games, args.steps)
    replay = bench_replay(driver.pop("played"))
    corpus = bench_corpus()
    checks = [
        (driver, f"≥ {TARGET_STEPS_PER_S:,.0f} steps/s", driver["rate"] >= TARGET_STEPS_PER_S),
        (replay, f"≥ {TARGET_STEPS_PER_S:,.0f} steps/s", replay["rate"] >= TARGET_STEPS_PER_S),
        (corpus, f"< {TARGET_CORPUS_S:g} s", corpus["seconds"] < TARGET_CORPUS_S),
    ]
    try:
        from rich.console import Console
        from rich.table import Table
        t = Table(title="HKK engine benchmark")
        for col, just in (("run", "left"), ("steps", "right"), ("time", "right"), ("steps/s", "right"),
                          ("peak memory", "right"), ("target", "left"), ("", "left")):
            t.add_column(col, justify=just)
        for row, target, ok in checks:
            t.add_row(row["name"], f"{row['steps']:,}", f"{row['seconds']:.2f} s", f"{row['rate']:,.0f}",
                      f"{row['peak'] / 2**20:.1f} MiB", target,
                      "[green]pass[/green]" if ok else "[red]FAIL[/red]")
        Console(width=max(100, Console().width)).print(t)
    except ImportError:  # pragma: no cover
        for row, target, ok in checks:
            print(f"{row['name']:<40} {row['steps']:>7} {row['seconds']:7.2f} s {row['rate']:9.0f}/s "
                  f"{row['peak'] / 2**20:6.1f} MiB  {target:<18} {'pass' if ok else 'FAIL'}")
    missed = [row["name"] for row, _, ok in checks if not ok]
    return 1 if (args.strict and missed) else 0


if __name__ == "__main__":
    sys.exit(main())
