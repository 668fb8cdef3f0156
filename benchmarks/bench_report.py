"""HTML report benchmark: ``kodex report`` for 10 implementations × the whole corpus.

Runs the corpus once in-process (the reference), derives nine degraded
implementations from it (tests/report_helpers.degraded, each failing a
different share of cases), writes the ten results files and times
``reports.html.site.build_site`` over them (best of ``--repeat``), then prints
the time, the number of pages and the size of the site (total and largest
page). Targets (read, not enforced): under 5 s and under 25 MB. Never part of
the test suite; run it with ``PYTHONPATH=. python benchmarks/bench_report.py``.
Exit status 0 always, unless ``--strict`` and a target is missed.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

TARGET_S = 5.0
TARGET_MB = 25.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--implementations", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--strict", action="store_true")
    args = ap.parse_args(argv)

    from report_helpers import agreeing, degraded, reference_results
    from reports.html.site import build_site

    ref = reference_results()
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        d = Path(tmp)
        paths = [d / "impl-00.json"]
        paths[0].write_text(json.dumps(ref), encoding="utf-8")
        for i in range(1, args.implementations):
            data = degraded(ref, name=f"engine-{i:02d}", version=f"{i}.0")
            # a different share of passes per implementation
            for c in data["cases"][: len(data["cases"]) * i // args.implementations]:
                c["outcome"] = "pass"
            p = d / f"impl-{i:02d}.json"
            p.write_text(json.dumps(agreeing(data)), encoding="utf-8")   # counts as kodex run's
            paths.append(p)
        times = []
        for _ in range(args.repeat):
            out = d / "site"
            t0 = time.perf_counter()
            build_site(paths, out)
            times.append(time.perf_counter() - t0)
        pages = sorted(out.rglob("*.html"))       # the case pages (cases/) too
        sizes = [p.stat().st_size for p in pages]
        total_mb = sum(sizes) / 1e6
        best = min(times)
        largest = max(zip(sizes, pages))
        rows = [
            ("implementations", f"{len(paths)}", ""),
            ("cases per implementation", f"{len(ref['cases'])}", ""),
            ("build time (best of %d)" % args.repeat, f"{best:.2f} s",
             "ok" if best < TARGET_S else f"MISSED (< {TARGET_S} s)"),
            ("pages", f"{len(pages)}", ""),
            ("site size", f"{total_mb:.1f} MB",
             "ok" if total_mb < TARGET_MB else f"MISSED (< {TARGET_MB} MB)"),
            ("largest page", f"{largest[0] / 1e6:.2f} MB ({largest[1].name})", ""),
        ]
    w = max(len(r[0]) for r in rows)
    for name, value, verdict in rows:
        print(f"{name:<{w}}  {value:<28} {verdict}")
    missed = best >= TARGET_S or total_mb >= TARGET_MB
    return 1 if (args.strict and missed) else 0


if __name__ == "__main__":
    sys.exit(main())
