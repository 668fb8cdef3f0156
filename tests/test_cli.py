"""Tests of the ``kodex`` command line (conformance/cli.py): exit codes of
``run`` and ``check``, filters, results JSON, xfail, ``clauses``/``clause``,
``diff``, the lazy ``prove``/``fuzz`` delegation and ``python -m conformance``."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import cli

ROOT = Path(__file__).resolve().parents[1]

PASSING = """\
format: hkk-case/1
cases:
  - id: "cli/heal-stops-at-cap"
    clause: "3.18"
    title: "Healing never lifts Ep above the maximum"
    given:
      players:
        A: {hp: 18}
    when:
      - heal: {target: A, amount: 5}
    then:
      players:
        A: {hp: 20}
  - id: "cli/heal-b"
    clause: "4.2.1"
    also: ["3.18"]
    title: "Healing B by one"
    given:
      players:
        B: {hp: 5}
    when:
      - heal: {target: B, amount: 1}
    then:
      players:
        B: {hp: 6}
"""

FAILING = """\
format: hkk-case/1
cases:
  - id: "cli/heal-wrong"
    clause: "3.18"
    title: "A deliberately wrong expectation"
    given:
      players:
        A: {hp: 10}
    when:
      - heal: {target: A, amount: 3}
    then:
      players:
        A: {hp: 14}
"""

INVALID = """\
format: hkk-case/1
cases:
  - id: "cli/no-then"
    clause: "3.18"
    title: "This case has no then"
"""


@pytest.fixture
def corpus(tmp_path):
    d = tmp_path / "corpus"
    d.mkdir()
    (d / "a-pass.yaml").write_text(PASSING, encoding="utf-8")
    return d


def run(capsys, *argv) -> tuple[int, str]:
    rc = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out + out.err


# ---------------------------------------------------------------- check

def test_check_valid(capsys, corpus):
    rc, out = run(capsys, "check", corpus)
    assert rc == 0
    assert "2 cases valid, 0 errors" in out


def test_check_invalid(capsys, corpus, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(INVALID, encoding="utf-8")
    rc, out = run(capsys, "check", corpus, bad)
    assert rc == 2
    assert "2 cases valid, 1 errors" in out
    assert f"{bad}:3:" in out                    # file:line: pointer: message


def test_check_missing_path(capsys, tmp_path):
    rc, out = run(capsys, "check", tmp_path / "nope.yaml")
    assert rc == 2 and "nope.yaml" in out


# ---------------------------------------------------------------- run

def test_run_all_pass(capsys, corpus):
    rc, out = run(capsys, "run", corpus)
    assert rc == 0
    assert "PASS" in out and "cli/heal-stops-at-cap" in out
    assert "2 cases: 2 passed" in out


def test_run_quiet_prints_only_non_pass(capsys, corpus):
    rc, out = run(capsys, "run", "-q", corpus)
    assert rc == 0
    assert "PASS" not in out and "2 passed" in out


def test_run_failure_shows_clause_title_location_and_difference(capsys, corpus, tmp_path):
    f = tmp_path / "fail.yaml"
    f.write_text(FAILING, encoding="utf-8")
    rc, out = run(capsys, "run", corpus, f)
    assert rc == 1
    assert "FAIL" in out and "cli/heal-wrong" in out
    assert "3.18 — 3. A játék célja és lényege" in out     # the Kódex title, in Hungarian
    assert f"{f}:" in out
    assert "expected: 14" in out and "actual:   13" in out


def test_run_invalid_input_exit_2_but_valid_cases_run(capsys, corpus, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(INVALID, encoding="utf-8")
    rc, out = run(capsys, "run", corpus, bad)
    assert rc == 2
    assert out.index(str(bad)) < out.index("PASS")      # input errors first
    assert "2 passed" in out


def test_run_filters(capsys, corpus):
    rc, out = run(capsys, "run", corpus, "-k", "heal-b")
    assert "1 case: 1 passed" in out
    rc, out = run(capsys, "run", corpus, "-k", "*STOPS*")
    assert "1 case: 1 passed" in out and "cli/heal-stops-at-cap" in out
    rc, out = run(capsys, "run", corpus, "--clause", "4.2")
    assert "1 case: 1 passed" in out and "cli/heal-b" in out
    rc, out = run(capsys, "run", corpus, "--clause", "3.18")     # clause or also
    assert "2 cases: 2 passed" in out
    rc, out = run(capsys, "run", corpus, "--clause", "4.20")
    assert rc == 2 and "NOTHING TO RUN" in out and "--clause 4.20" in out
    rc, out = run(capsys, "run", corpus, "-k", "nosuchthing")
    assert rc == 2 and "matches none of the 2 cases" in out


def test_clause_prefix_matching():
    assert cli.clause_matches("4.2.1", "4.2")
    assert cli.clause_matches("4.2", "4.2")
    assert not cli.clause_matches("4.20", "4.2")
    assert cli.clause_matches("rb7:anti-magia", "rb7:anti")
    assert cli.clause_matches("mk:5.10.G", "mk:5.10")


def test_run_json_and_xfail(capsys, corpus, tmp_path):
    f = tmp_path / "fail.yaml"
    f.write_text(FAILING, encoding="utf-8")
    xf = tmp_path / "xfail.yaml"
    xf.write_text("- cli/heal-wrong\n", encoding="utf-8")
    res = tmp_path / "results.json"
    rc, out = run(capsys, "run", corpus, f, "--xfail", xf, "--json", res)
    assert rc == 0 and "XFAIL" in out
    data = json.loads(res.read_text(encoding="utf-8"))
    assert data["schema"] == "hkk-results/2"
    assert data["totals"]["pass"] == 2 and data["totals"]["xfail"] == 1
    # an expected failure that passes is loud and fails the run
    xf.write_text("- cli/heal-b\n", encoding="utf-8")
    rc, out = run(capsys, "run", corpus, "--xfail", xf)
    assert rc == 1 and "XPASS" in out


def test_run_explicit_ruleset_skips(capsys, corpus):
    # cases that hold only under kodex, run under another ruleset: every case skipped, nothing
    # was tested, which is not a pass (exit 4)
    text = PASSING.replace("    title:", "    rulesets: [kodex]\n    title:")
    (corpus / "a-pass.yaml").write_text(text, encoding="utf-8")
    rc, out = run(capsys, "run", corpus, "--ruleset", "kodex-mk")
    assert rc == 4 and "SKIP" in out and "2 skipped" in out and "NOTHING TESTED" in out
    # an unknown ruleset is not a run that skips every case: a usage error naming the rulesets
    rc, out = run(capsys, "run", corpus, "--ruleset", "kodex-nonexistent")
    assert rc == 2 and "unknown ruleset 'kodex-nonexistent'" in out and "kodex-mk" in out


def test_run_through_impl(capsys, corpus, monkeypatch):
    cmd = f'"{sys.executable}" -m conformance serve'
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    monkeypatch.chdir(corpus)          # the stderr log goes to ./reports/runs/
    rc, out = run(capsys, "run", corpus, "--impl", cmd, "--timeout", "30")
    assert rc == 0, out
    assert "implementation: hkk-kodex reference" in out and "2 passed" in out


def test_run_impl_unavailable(capsys, corpus, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, out = run(capsys, "run", corpus, "--impl", str(tmp_path / "nothing-here"))
    assert rc == 3 and "implementation unavailable" in out


# ---------------------------------------------------------------- catalog

def test_clauses_json(capsys):
    rc, out = run(capsys, "clauses", "--section", "3", "--json")
    assert rc == 0
    data = json.loads(out)
    ids = [c["id"] for c in data]
    assert "3.18" in ids and all(c["section"] == "3" for c in data)
    assert {"id", "title", "section", "part", "text", "sha256"} <= set(data[0])


def test_clauses_table(capsys):
    rc, out = run(capsys, "clauses", "--part", "VI")
    assert rc == 0 and "96.3" in out and "Előre kikészített lapok" in out


def test_clause_shows_text_and_citing_cases(capsys, corpus):
    rc, out = run(capsys, "clause", "3.18", corpus)
    assert rc == 0
    assert "A játék célja és lényege" in out
    assert "cli/heal-stops-at-cap" in out and "(clause)" in out
    assert "cli/heal-b" in out and "(also)" in out
    assert "a-pass.yaml:" in out


def test_clause_heading_lists_the_cases_under_it(capsys):
    """A heading (no text of its own, e.g. 106) shows the cases citing the clauses under it."""
    rc, out = run(capsys, "clause", "106")
    assert rc == 0 and "(no text: a heading)" in out
    assert "citing a clause under it" in out and "106.0/" in out
    rc, out = run(capsys, "clause", "106.0")
    assert "citing a clause under it" not in out    # 106.0 has no clause under it


def test_clause_unknown(capsys):
    rc, out = run(capsys, "clause", "3.999")
    assert rc == 2 and "unknown clause" in out


# ---------------------------------------------------------------- diff

def test_diff(capsys, corpus, tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert cli.main(["run", str(corpus), "--json", str(old)]) == 0
    f = tmp_path / "fail.yaml"
    f.write_text(FAILING, encoding="utf-8")
    data = json.loads(old.read_text(encoding="utf-8"))
    data["cases"][0]["outcome"] = "fail"            # a regression …
    data["totals"]["pass"] -= 1
    data["totals"]["fail"] += 1
    data["cases"].append({"case_id": "cli/new-one", "clause": "4.2.1", "title": "",
                          "outcome": "pass"})
    data["totals"]["pass"] += 1
    data["verdicts"] += 1                           # (the counts agree with the cases)
    new.write_text(json.dumps(data), encoding="utf-8")
    capsys.readouterr()
    rc, out = run(capsys, "diff", old, new)
    assert rc == 1
    assert "regression" in out and "cli/heal-stops-at-cap" in out and "cli/new-one" in out
    rc, out = run(capsys, "diff", old, new, "--json")
    d = json.loads(out)
    assert d["schema"] == "hkk-results-diff/1"
    assert d["changed"] == [{"case_id": "cli/heal-stops-at-cap", "clause": "3.18",
                             "title": "Healing never lifts Ep above the maximum",
                             "old": "pass", "new": "fail", "kind": "regression"}]
    assert [a["case_id"] for a in d["added"]] == ["cli/new-one"]
    sec3 = next(r for r in d["sections"] if r["section"] == "3")
    assert sec3["delta"] == -1
    rc, out = run(capsys, "diff", new, old)          # the other way round: a fix, and
    assert rc == 3 and "fix" in out                 # the pass of cli/new-one is lost
    assert "1 no longer in the results" in out


# ---------------------------------------------------------------- delegation, module

def test_prove_missing_module_is_a_clear_message(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "properties.prove", None)   # import fails
    rc, out = run(capsys, "prove", "--anything")
    assert rc == 2 and "properties.prove is not available" in out


def test_fuzz_delegates_arguments(capsys, monkeypatch):
    import types
    seen = {}
    fake = types.ModuleType("properties.fuzz")
    fake.main = lambda argv: seen.setdefault("argv", argv) and 0
    monkeypatch.setitem(sys.modules, "properties.fuzz", fake)
    rc = cli.main(["fuzz", "--seed", "3", "-x"])
    assert rc == 0 and seen["argv"] == ["--seed", "3", "-x"]


def test_python_dash_m_conformance_help():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "conformance", "--help"], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=60)
    assert proc.returncode == 0
    for sub in ("clauses", "clause", "check", "run", "serve", "coverage", "diff", "prove", "fuzz"):
        assert sub in proc.stdout


def test_no_command_prints_help(capsys):
    rc, out = run(capsys)
    assert rc == 2 and "usage" in out


def test_clauses_findings_json_lists_the_duplicates(capsys):
    from conformance.cli import main
    assert main(["clauses", "--findings", "--json"]) == 0
    findings = json.loads(capsys.readouterr().out)
    dup = {f["clause"] for f in findings if f["kind"] == "duplicate"}
    assert {"5.3.2", "5.3.3", "5.3.4"} <= dup
