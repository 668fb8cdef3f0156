"""Tests of conformance/runner.py: in-process runs of a tiny corpus, the
ruleset choice, engine faults, timeouts, expected failures, results JSON."""
from __future__ import annotations

import json
import time

from conformance import results_io, runner
from conformance.loader import Case

from tiny_corpus import tiny_cases


def by_id(report) -> dict:
    return {oc.case_id: oc for oc in report.outcomes}


def mk_case(cid="x/1", rulesets=None, when=None, then=None):
    return Case(id=cid, clause="3.18", title="t", rulesets=rulesets or [],
                given={}, when=when if when is not None else [{"heal": {"target": "A", "amount": 1}}],
                then=then if then is not None else {"players": {"A": {"hp": 20}}},
                file="mem.yaml", line=1)


# ---------------------------------------------------------------- ruleset choice

def test_choose_ruleset_default_and_named():
    assert runner.choose_ruleset(mk_case()) == ("kodex", None)
    assert runner.choose_ruleset(mk_case(rulesets=["kodex", "x"])) == ("kodex", None)
    assert runner.choose_ruleset(mk_case(rulesets=["x", "y"])) == ("x", None)


def test_choose_ruleset_explicit():
    assert runner.choose_ruleset(mk_case(), "x") == ("x", None)
    assert runner.choose_ruleset(mk_case(rulesets=["x"]), "x") == ("x", None)
    chosen, why = runner.choose_ruleset(mk_case(rulesets=["y"]), "x")
    assert chosen is None and "y" in why and "x" in why


# ---------------------------------------------------------------- in-process runs

def test_tiny_corpus_in_process(tmp_path):
    report = runner.run_cases(tiny_cases(tmp_path), progress=False)
    oc = by_id(report)
    assert oc["t/heal-stops-at-cap"].outcome == "pass"
    assert oc["t/heal-stops-at-cap"].ruleset == "kodex"
    bad = oc["t/heal-wrong-expectation"]
    assert bad.outcome == "fail"
    assert bad.difference["expected"] == 14 and bad.difference["actual"] == 13
    assert "hp" in bad.difference["path"]
    # names only another ruleset the engine does not have: skipped with the reason
    other = oc["t/heal-other-ruleset"]
    assert other.outcome == "skip" and other.ruleset == "kodex-other"
    assert "kodex-other" in other.message
    assert report.totals["pass"] == 1 and report.totals["fail"] == 1
    assert not report.ok


def test_explicit_ruleset_skips_cases_not_holding(tmp_path):
    report = runner.run_cases(tiny_cases(tmp_path), ruleset="kodex", progress=False)
    other = by_id(report)["t/heal-other-ruleset"]
    assert other.outcome == "skip"
    assert "not under the selected ruleset kodex" in other.message


def test_unsupported_verb_is_skip(monkeypatch):
    from model import engine
    monkeypatch.setattr(engine, "SUPPORTED_VERBS", ["draw"])
    oc = runner.run_one(mk_case())
    assert oc.outcome == "skip" and "heal" in oc.message


def test_engine_exception_is_error_and_run_goes_on(tmp_path, monkeypatch):
    from model import engine
    real = engine.run_case

    def flaky(given, when, ruleset="kodex", version=1):
        if (given or {}).get("players", {}).get("A", {}).get("hp") == 10:
            raise RuntimeError("boom inside the engine")
        return real(given, when, ruleset=ruleset)

    monkeypatch.setattr(engine, "run_case", flaky)
    report = runner.run_cases(tiny_cases(tmp_path), progress=False)
    oc = by_id(report)
    assert oc["t/heal-wrong-expectation"].outcome == "error"
    assert "boom inside the engine" in oc["t/heal-wrong-expectation"].message
    assert "RuntimeError" in oc["t/heal-wrong-expectation"].traceback
    assert oc["t/heal-stops-at-cap"].outcome == "pass"
    assert len(report.outcomes) == 3


def test_in_process_timeout(monkeypatch):
    from model import engine

    def slow(given, when, ruleset="kodex", version=1):
        time.sleep(5)

    monkeypatch.setattr(engine, "run_case", slow)
    t0 = time.monotonic()
    oc = runner.run_one(mk_case(), timeout=0.2)
    assert oc.outcome == "timeout"
    assert time.monotonic() - t0 < 3


# ---------------------------------------------------------------- xfail / xpass

def test_xfail_and_xpass(tmp_path):
    xf = tmp_path / "xfail.yaml"
    xf.write_text("- id: t/heal-wrong-expectation\n  reason: known\n- t/heal-stops-at-cap\n",
                  encoding="utf-8")
    report = runner.run_cases(tiny_cases(tmp_path), xfail=xf, progress=False)
    oc = by_id(report)
    assert oc["t/heal-wrong-expectation"].outcome == "xfail"
    assert "known" in oc["t/heal-wrong-expectation"].message
    assert oc["t/heal-stops-at-cap"].outcome == "xpass"
    assert not report.ok          # an xpass is reported loudly


def test_xfail_only_is_ok(tmp_path):
    report = runner.run_cases(tiny_cases(tmp_path), xfail={"t/heal-wrong-*": ""},
                              progress=False)
    assert by_id(report)["t/heal-wrong-expectation"].outcome == "xfail"
    assert report.ok


def test_load_xfail_shapes(tmp_path):
    a = tmp_path / "a.yaml"
    a.write_text("xfail:\n  - {id: c1, reason: r1}\n  - c2\n", encoding="utf-8")
    assert runner.load_xfail(a) == {"c1": "r1", "c2": ""}
    b = tmp_path / "b.yaml"
    b.write_text("c1: r1\nc2:\n", encoding="utf-8")
    assert runner.load_xfail(b) == {"c1": "r1", "c2": ""}
    c = tmp_path / "c.txt"
    c.write_text("# expected failures\n4.13.2/a-case  not done yet\nrb7:elet/b\n"
                 "5.4.4/c   # refuses under 5.4.3\n", encoding="utf-8")
    assert runner.load_xfail(c) == {"4.13.2/a-case": "not done yet", "rb7:elet/b": "",
                                    "5.4.4/c": "refuses under 5.4.3"}


# ---------------------------------------------------------------- results JSON

def test_results_json_shape(tmp_path):
    report = runner.run_cases(tiny_cases(tmp_path), progress=False)
    out = tmp_path / "out" / "results.json"
    report.write_json(out)
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["schema"] == "hkk-results/2"
    assert data["implementation"]["name"] == "hkk-kodex reference"
    assert data["implementation"]["language"] == "python"
    assert data["ruleset"] == "kodex"
    assert "T" in data["started"]
    assert set(data["totals"]) == {"pass", "fail", "error", "skip", "timeout", "xfail", "xpass",
                                   "not_run"}
    assert results_io.results_problem(data) is None
    assert sum(data["totals"].values()) == len(data["cases"]) == 3
    case = data["cases"][0]
    for key in ("case_id", "clause", "title", "file", "line", "outcome", "difference",
                "message", "ruleset", "duration_ms"):
        assert key in case
    assert results_io.read_results(out)["totals"] == data["totals"]


def test_on_outcome_callback_sees_every_case(tmp_path):
    seen = []
    runner.run_cases(tiny_cases(tmp_path), progress=False, on_outcome=seen.append)
    assert [oc.case_id for oc in seen] == ["t/heal-stops-at-cap", "t/heal-wrong-expectation",
                                           "t/heal-other-ruleset"]
