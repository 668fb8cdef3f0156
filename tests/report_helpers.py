"""Results files for the report tests: the reference run and a degraded fake.

The reference results come from a real in-process run of the corpus (done once
per test session by the caller); :func:`degraded` derives a second
implementation from it with every outcome the report must show (fail with a
first difference, error, timeout, skip, xfail, xpass, not_run and an outcome
the report does not know) and a hostile title.
"""
from __future__ import annotations

import copy

HOSTILE = '<script>alert("x")</script> & <img src=x onerror=alert(1)> "quoted" \'single\''


def reference_results() -> dict:
    from conformance.catalog import load_catalog
    from conformance.cli import load_cases
    from conformance.runner import run_cases
    cases, errors = load_cases(None, catalog=load_catalog())
    assert not errors, errors[:3]
    return run_cases(cases, progress=False).to_json()


def degraded(ref: dict, name: str = "degraded-fake", version: str = "0.0.1",
             schema: str = "hkk-results/2") -> dict:
    """A second implementation: every 7th case fails, every 11th errors, …"""
    out = copy.deepcopy(ref)
    out["schema"] = schema
    out["implementation"] = {"name": name, "version": version, "language": "fake"}
    for i, c in enumerate(out["cases"]):
        if i % 7 == 3:
            c["outcome"] = "fail"
            c["difference"] = {"path": "players.A.hp", "expected": 7, "actual": "<b>8</b>"}
            c["message"] = "state differs & <em>not</em> as expected"
        elif i % 11 == 5:
            c["outcome"] = "error"
            c["message"] = "Traceback: KeyError('</td>')"
        elif i % 13 == 6:
            c["outcome"] = "skip"
            c["message"] = "not under this ruleset"
        elif i % 17 == 8:
            c["outcome"] = "xfail"
        elif i % 19 == 9:
            c["outcome"] = "timeout"
        elif i % 23 == 10:
            c["outcome"] = "not_run"
        elif i % 29 == 11:
            c["outcome"] = "mystery"          # an outcome the report does not know
        elif i % 31 == 12:
            c["outcome"] = "xpass"
    out["cases"][0]["title"] = HOSTILE
    totals: dict[str, int] = {}
    for c in out["cases"]:
        totals[c["outcome"]] = totals.get(c["outcome"], 0) + 1
    out["totals"] = totals
    out["gave_up"] = None
    return out
