"""Engine benchmarks: steps per second and peak memory (tracemalloc).

Measures
1. the random legal-play driver (properties/driver.py): whole games, generation
   and the engine together (accepted steps per second);
2. the engine alone: the driver's games replayed with `model.engine.run_case`;
3. the full corpus (conformance/corpus) through `conformance.loader` and
   `conformance.runner.run_cases`, in-process;
4. a large state: 20,000 cards in the decks and 300 `move` steps through
   `model.engine.run_case` (the cost of a step must not grow with the cards
   it does not touch: constant-time look-ups, copy-on-read cards).

5. the case rates (issue 10): ``kodex run -q`` as a whole process, start to
   exit (cold: ``KODEX_NO_CACHE=1``; warm: the loaded-corpus cache filled),
   the in-process case loop alone (``run_cases`` on loaded cases), the same
   cases through ``kodex serve`` over protocol 1 (requests pipelined, one
   program and ``--jobs 2``; the loop timed with the programs started, and
   again with the start), and the scaling factor at 10x the cases (time for
   10x / (10 x time for 1x); 1.0 is linear).

Prints a small table with the targets (≥ 20,000 steps/s and ≥ 150 games/s of random play,
``kodex run -q`` ≥ 2,500 cases/s and under 0.5 s, protocol ≥ 0.8 of the in-process case
rate, the in-process loop < 5 s, linear within 25% at 10×) as pass/fail. ``--json`` prints
one JSON line instead (``corpus_cases_per_s``, ``corpus_cold_cases_per_s``,
``engine_cases_per_s``, ``protocol_cases_per_s``, ``protocol_ratio`` (protocol
rate / in-process rate), ``protocol_jobs2_cases_per_s``, ``protocol_jobs2_ratio``,
``protocol_start_cases_per_s``, ``protocol_jobs2_start_cases_per_s``,
``games_per_s``, ``steps_per_s``, ``peak_mib``, ``scaling_10x``, …). Rates are
medians of ``--repeat`` runs (the driver and the replay: of ``--games`` games each, after
one untimed warm-up run). Never part of the test suite; run it with
``PYTHONPATH=. python benchmarks/bench_engine.py [--games N] [--steps M] [--json]``
(``--cases-only``: only the case loops, one JSON line; ``--corpus-scaling 10,30``: only
``kodex run -q`` as a whole process, cold and warm, on the corpus and on copies of it 10 and
30 times its size (every copy's ids renamed), one JSON line with the time per case at each
size over the time per case at 1x: 1.0 is linear; a 30x cold run takes about a minute).
The benchmark uses its own cache directory (a temporary ``KODEX_CACHE_DIR``),
never the user's. Exit status 0 always (the numbers are for reading), unless
``--strict``.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# the goals of issue 10 (random games at hundreds per second, the corpus in a blink)
TARGET_STEPS_PER_S = 20_000.0    # random full games, in-process
TARGET_GAMES_PER_S = 150.0
TARGET_CORPUS_S = 5.0            # the in-process case loop, a sanity bound
TARGET_PROCESS_CASES_PER_S = 2_500.0   # `kodex run -q`, process start to exit
TARGET_PROCESS_S = 0.5                 # ... and the whole corpus in under this
TARGET_SCALING_10X = 1.25        # time per case at 10x the corpus / at 1x: linear within 25%
TARGET_LARGE_S = 5.0
TARGET_PROTOCOL_RATIO = 0.8      # protocol case rate / in-process case rate


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


def _measure_median(fn: Callable[[], Any], repeat: int) -> tuple[Any, float, int]:
    """(result, median seconds of ``repeat`` calls, peak bytes of one more call under
    tracemalloc); one untimed call first (imports, rulesets, first-use caches)."""
    fn()
    result, seconds = _median_seconds(fn, repeat)
    _, _, peak = _measure(fn)
    return result, seconds, peak


def bench_driver(games: int, steps: int, repeat: int = 1) -> dict[str, Any]:
    from properties.driver import random_game

    def run():
        return [random_game(seed, steps) for seed in range(games)]
    played, elapsed, peak = _measure_median(run, repeat)
    n = sum(len(when) for _, when in played)
    return {"name": f"legal-play driver ({games} games)", "steps": n, "seconds": elapsed,
            "rate": n / elapsed if elapsed else 0.0, "peak": peak, "played": played}


def bench_replay(played: list, repeat: int = 1) -> dict[str, Any]:
    from model.engine import run_case

    def run():
        return [run_case(given, when) for given, when in played]
    results, elapsed, peak = _measure_median(run, repeat)
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


def bench_large_state(cards: int = 20000, moves: int = 300) -> dict[str, Any]:
    from model.engine import run_case
    defs = {f"c{i}": {"kind": "creature", "damage": 1, "hp": 1} for i in range(cards)}
    half = cards // 2
    given = {"players": {"A": {"deck": [f"c{i}" for i in range(half)]},
                         "B": {"deck": [f"c{i}" for i in range(half, cards)]}},
             "cards": defs}
    when = [{"move": {"card": f"c{(k * 37) % cards}", "to": ("hand", "graveyard", "reserve")[k % 3]}}
            for k in range(moves)]

    def run():
        return run_case(given, when)
    result, elapsed, peak = _measure(run)
    assert result.refused is None, result.refused
    return {"name": f"large state ({cards:,} cards, {moves} moves)", "steps": moves, "seconds": elapsed,
            "rate": moves / elapsed if elapsed else 0.0, "peak": peak}


def _median_seconds(fn: Callable[[], Any], repeat: int) -> tuple[Any, float]:
    """(last result, median seconds) of ``repeat`` calls."""
    times, result = [], None
    for _ in range(max(1, repeat)):
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return result, statistics.median(times)


def bench_corpus_process(repeat: int, cache_dir: str) -> dict[str, Any]:
    """``kodex run -q`` on the corpus as a whole process, start to exit (median
    wall seconds); cold (no cache) and warm (the cache filled by a first run)."""
    from conformance.loader import load_files
    n = len(load_files().cases)
    argv = [sys.executable, "-m", "conformance", "run", "-q"]
    base = {**os.environ, "KODEX_CACHE_DIR": cache_dir}
    base.pop("KODEX_NO_CACHE", None)

    def one(env):
        def run():
            proc = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
            assert proc.returncode == 0, f"kodex run -q exited {proc.returncode}"
        return run
    _, cold = _median_seconds(one({**base, "KODEX_NO_CACHE": "1"}), repeat)
    one(base)()                                   # fill the cache
    _, warm = _median_seconds(one(base), repeat)
    return {"cases": n, "cold_s": cold, "warm_s": warm}


def _scaled_corpus(dest: Path, times: int) -> int:
    """``times`` copies of the corpus files under ``dest``, each copy's case ids renamed
    (``<id>-x<k>``); returns the number of cases written."""
    import re
    dest.mkdir(parents=True)
    id_line = re.compile(r'^(\s*-\s*id:\s*)"?([^"\n]+?)"?\s*$', re.M)
    n = 0
    for f in sorted((ROOT / "conformance" / "corpus").glob("*.yaml")):
        text = f.read_text(encoding="utf-8")
        for k in range(times):
            copy = text if k == 0 else id_line.sub(lambda m: f'{m.group(1)}"{m.group(2)}-x{k}"', text)
            n += len(id_line.findall(copy))
            (dest / f"{f.stem}-{k}.yaml").write_text(copy, encoding="utf-8")
    return n


def bench_corpus_scaling(scales: list[int], cache_dir: str) -> dict[str, Any]:
    """``kodex run -q DIR`` as a whole process, start to exit, on the corpus and on ``scales``
    times it: cold (``KODEX_NO_CACHE=1``) and warm (a first run fills a cache of its own).
    Every run must exit 0 (a renamed id that clashed would be an input error)."""
    out: dict[str, Any] = {}
    for times in [1, *scales]:
        where = Path(cache_dir) / f"scaled-{times}"
        n = _scaled_corpus(where / "corpus", times)
        argv = [sys.executable, "-m", "conformance", "run", "-q", str(where / "corpus")]
        env = {**os.environ, "KODEX_CACHE_DIR": str(where / "cache")}

        def run(env=env, argv=argv):
            proc = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
            assert proc.returncode == 0, f"kodex run -q exited {proc.returncode}"
        _, cold = _median_seconds(lambda: run({**env, "KODEX_NO_CACHE": "1"}), 1)
        run()                                     # fill this size's cache
        _, warm = _median_seconds(run, 1)
        out[str(times)] = {"cases": n, "cold_s": round(cold, 2), "warm_s": round(warm, 2)}
    base = out["1"]
    for times in scales:
        row = out[str(times)]
        for kind in ("cold", "warm"):
            per_case = row[f"{kind}_s"] / row["cases"]
            out[f"process_scaling_{times}x_{kind}"] = round(per_case / (base[f"{kind}_s"] / base["cases"]), 3)
    return out


def _verdicts(report) -> list:
    return [(o.case_id, o.outcome, o.difference) for o in report.outcomes]


def bench_case_rates(repeat: int, cache_dir: str) -> dict[str, Any]:
    """The case loop alone: in-process, through ``kodex serve`` (requests
    pipelined, as ``kodex run --impl`` sends them; one program and
    ``--jobs 2``), and at 10x the cases. The protocol loops are timed with the
    programs started (as the in-process loop is timed with the engine
    imported); ``*_start_s`` is the time with the start (hello included)."""
    from conformance.loader import load_files
    from conformance.protocol import ProtocolPool
    from conformance.runner import run_cases
    cases = load_files().cases
    run_cases(cases, progress=False)              # warm the imports
    report, engine_s = _median_seconds(lambda: run_cases(cases, progress=False), repeat)
    assert report.ok, report.totals
    local = _verdicts(report)
    _, ten_s = _median_seconds(lambda: run_cases(cases * 10, progress=False), 1)
    command = f"{sys.executable} -m conformance serve"
    out = {"cases": len(cases), "engine_s": engine_s, "ten_s": ten_s,
           "scaling_10x": ten_s / (10 * engine_s)}
    for jobs, name in ((1, "protocol"), (2, "protocol_jobs2")):
        def start():
            return ProtocolPool(command, jobs, cwd=ROOT,
                                stderr_path=Path(cache_dir) / f"serve-{jobs}.stderr.log")
        with start() as pool:
            out["window"] = pool.window
            run_cases(cases, impl=pool, progress=False)          # warm the programs
            report, loop_s = _median_seconds(lambda: run_cases(cases, impl=pool,
                                                               progress=False), repeat)
        assert _verdicts(report) == local, f"{name}: verdicts differ from in-process"

        def whole():
            with start() as pool:
                return run_cases(cases, impl=pool, progress=False)
        report, whole_s = _median_seconds(whole, repeat)
        assert _verdicts(report) == local, f"{name}: verdicts differ from in-process"
        out[f"{name}_s"] = loop_s
        out[f"{name}_start_s"] = whole_s
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100,
                    help="random games per run of the driver (default 100; one warm-up run first)")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--json", action="store_true", help="print one JSON line of figures")
    ap.add_argument("--repeat", type=int, default=5,
                    help="runs per rate (the median is kept; default 5: this project's machine "
                         "slows down by up to a third for minutes at a time, and a median of three "
                         "caught such a spell with two runs)")
    ap.add_argument("--cases-only", action="store_true",
                    help="only the case loops (in-process, protocol, --jobs 2): one JSON line")
    ap.add_argument("--corpus-scaling", metavar="N,M", default=None,
                    help="only `kodex run -q` as a whole process on the corpus and on N, M times "
                         "its size, cold and warm: one JSON line (a 30x cold run takes about a minute)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kodex-bench-") as cache_dir:
        os.environ["KODEX_CACHE_DIR"] = cache_dir      # never the user's cache
        os.environ.pop("KODEX_NO_CACHE", None)
        return _main(args, cache_dir)


def _rate_figures(rates: dict) -> dict:
    n = rates["cases"]
    engine_rate = n / rates["engine_s"]
    protocol_rate = n / rates["protocol_s"]
    jobs2_rate = n / rates["protocol_jobs2_s"]
    return {
        "engine_cases_per_s": round(engine_rate, 1),
        "protocol_cases_per_s": round(protocol_rate, 1),
        "protocol_ratio": round(protocol_rate / engine_rate, 3),
        "protocol_jobs2_cases_per_s": round(jobs2_rate, 1),
        "protocol_jobs2_ratio": round(jobs2_rate / engine_rate, 3),
        "protocol_start_cases_per_s": round(n / rates["protocol_start_s"], 1),
        "protocol_jobs2_start_cases_per_s": round(n / rates["protocol_jobs2_start_s"], 1),
        "protocol_window": rates["window"],
        "scaling_10x": round(rates["scaling_10x"], 3),
    }


def _main(args, cache_dir: str) -> int:
    if args.corpus_scaling:
        scales = [int(x) for x in args.corpus_scaling.split(",") if x.strip()]
        print(json.dumps(bench_corpus_scaling(scales, cache_dir)))
        return 0
    if args.cases_only:
        rates = bench_case_rates(args.repeat, cache_dir)
        figures = {"cases": rates["cases"], **_rate_figures(rates), "repeat": args.repeat}
        print(json.dumps(figures))
        return 1 if (args.strict and figures["protocol_ratio"] < TARGET_PROTOCOL_RATIO) else 0
    driver = bench_driver(args.games, args.steps, args.repeat)
    replay = bench_replay(driver.pop("played"), args.repeat)
    corpus = bench_corpus()
    large = bench_large_state()
    process = bench_corpus_process(args.repeat, cache_dir)
    rates = bench_case_rates(args.repeat, cache_dir)
    n = rates["cases"]
    rate_figures = _rate_figures(rates)
    engine_rate = rate_figures["engine_cases_per_s"]
    protocol_rate = rate_figures["protocol_cases_per_s"]
    jobs2_rate = rate_figures["protocol_jobs2_cases_per_s"]
    figures = {
        "corpus_cases": process["cases"],
        "corpus_cases_per_s": round(process["cases"] / process["warm_s"], 1),
        "corpus_cold_cases_per_s": round(process["cases"] / process["cold_s"], 1),
        "corpus_process_s": round(process["warm_s"], 3),
        "corpus_cold_process_s": round(process["cold_s"], 3),
        **rate_figures,
        "games_per_s": round(args.games / driver["seconds"], 2) if driver["seconds"] else 0.0,
        "steps_per_s": round(driver["rate"], 1),
        "engine_steps_per_s": round(replay["rate"], 1),
        "large_state_s": round(large["seconds"], 3),
        "peak_mib": round(max(r["peak"] for r in (driver, replay, corpus, large)) / 2**20, 1),
        "corpus_peak_mib": round(corpus["peak"] / 2**20, 1),
        "repeat": args.repeat,
    }
    proto_row = {"name": f"protocol / in-process ({n} cases, {rates['window']} in flight)",
                 "steps": n, "seconds": rates["protocol_s"], "rate": protocol_rate, "peak": 0}
    jobs2_row = {"name": f"protocol --jobs 2 / in-process ({n} cases)", "steps": n,
                 "seconds": rates["protocol_jobs2_s"], "rate": jobs2_rate, "peak": 0}
    proc_row = {"name": f"kodex run -q, whole process (cold {process['cold_s']:.2f} s)",
                "steps": process["cases"], "seconds": process["warm_s"],
                "rate": process["cases"] / process["warm_s"], "peak": 0}
    proc_s_row = {**proc_row, "name": f"kodex run -q, whole process, {process['cases']} cases, seconds"}
    games_row = {"name": f"random full games ({args.games})", "steps": args.games,
                 "seconds": driver["seconds"], "rate": figures["games_per_s"], "peak": driver["peak"]}
    scale_row = {"name": f"10x corpus: time per case / 1x ({figures['scaling_10x']:.2f})", "steps": 0,
                 "seconds": 0.0, "rate": 0.0, "peak": 0}
    checks = [
        (driver, f"≥ {TARGET_STEPS_PER_S:,.0f} steps/s", driver["rate"] >= TARGET_STEPS_PER_S),
        (games_row, f"≥ {TARGET_GAMES_PER_S:,.0f} games/s", figures["games_per_s"] >= TARGET_GAMES_PER_S),
        (scale_row, f"≤ {TARGET_SCALING_10X:g}", figures["scaling_10x"] <= TARGET_SCALING_10X),
        (replay, f"≥ {TARGET_STEPS_PER_S:,.0f} steps/s", replay["rate"] >= TARGET_STEPS_PER_S),
        (corpus, f"< {TARGET_CORPUS_S:g} s", corpus["seconds"] < TARGET_CORPUS_S),
        (large, f"< {TARGET_LARGE_S:g} s", large["seconds"] < TARGET_LARGE_S),
        (proc_row, f"≥ {TARGET_PROCESS_CASES_PER_S:,.0f} cases/s",
         figures["corpus_cases_per_s"] >= TARGET_PROCESS_CASES_PER_S),
        (proc_s_row, f"< {TARGET_PROCESS_S:g} s", process["warm_s"] < TARGET_PROCESS_S),
        (proto_row, f"≥ {TARGET_PROTOCOL_RATIO:g} × in-process",
         figures["protocol_ratio"] >= TARGET_PROTOCOL_RATIO),
        (jobs2_row, f"≥ {TARGET_PROTOCOL_RATIO:g} × in-process",
         figures["protocol_jobs2_ratio"] >= TARGET_PROTOCOL_RATIO),
    ]
    if args.json:
        figures["missed"] = [row["name"] for row, _, ok in checks if not ok]
        print(json.dumps(figures))
        return 1 if (args.strict and figures["missed"]) else 0
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
        print(f"cases/s: whole process {figures['corpus_cases_per_s']:,.0f} (cold "
              f"{figures['corpus_cold_cases_per_s']:,.0f}), in-process loop "
              f"{figures['engine_cases_per_s']:,.0f}, protocol {figures['protocol_cases_per_s']:,.0f}"
              f" ({figures['protocol_ratio']:.2f}x; --jobs 2: "
              f"{figures['protocol_jobs2_cases_per_s']:,.0f}, {figures['protocol_jobs2_ratio']:.2f}x;"
              f" with the start: {figures['protocol_start_cases_per_s']:,.0f} and "
              f"{figures['protocol_jobs2_start_cases_per_s']:,.0f});"
              f" 10x cases: scaling {figures['scaling_10x']:.2f}")
    except ImportError:  # pragma: no cover
        for row, target, ok in checks:
            print(f"{row['name']:<40} {row['steps']:>7} {row['seconds']:7.2f} s {row['rate']:9.0f}/s "
                  f"{row['peak'] / 2**20:6.1f} MiB  {target:<18} {'pass' if ok else 'FAIL'}")
    missed = [row["name"] for row, _, ok in checks if not ok]
    return 1 if (args.strict and missed) else 0


if __name__ == "__main__":
    sys.exit(main())
