"""Signals that do not mislead (issue 7, part 4; issue 8): a run that tested
nothing, a selection that matched nothing, a stale expected-failures entry, a
partial implementation's coverage, a pass that became a skip, a profile an
implementation declares, a harness that gave up, hostile texts on the
terminal, ``--timeout`` values, and the pytest plugin against another
implementation. Every test writes only under pytest's tmp_path."""
from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conformance import cli, matching, profiles, results_io, runner
from conformance.protocol import ProtocolClient, ProtocolError
from reports import diff as rdiff

ROOT = Path(__file__).resolve().parents[1]
PY = shlex.quote(sys.executable)

CASES = """\
format: hkk-case/1
cases:
  - id: "sig/heal-cap"
    clause: "3.18"
    title: "Healing stops at the maximum"
    given: {players: {A: {hp: 18}}}
    when: [{heal: {target: A, amount: 5}}]
    then: {players: {A: {hp: 20}}}
  - id: "sig/heal-event"
    clause: "3.18"
    title: "Healing says how much it healed"
    given: {players: {A: {hp: 18}}}
    when: [{heal: {target: A, amount: 5}}]
    then:
      events: [{event: healed, target: A, amount: 2}]
  - id: "sig/void-move-refused-clause"
    clause: "4.8.4"
    title: "A card in the Void stays there"
    given:
      players: {A: {void: [c1]}}
      cards: {c1: {kind: instant}}
    when: [{move: {card: c1, to: hand}}]
    then:
      players: {A: {void: [c1], hand: []}}
"""


def run(capsys, *argv) -> tuple[int, str]:
    rc = cli.main([str(a) for a in argv])
    cap = capsys.readouterr()
    return rc, cap.out + cap.err


@pytest.fixture
def corpus(tmp_path) -> Path:
    d = tmp_path / "corpus"
    d.mkdir()
    (d / "sig.yaml").write_text(CASES, encoding="utf-8")
    return d


# a fake implementation: the reference engine behind the protocol, declaring a
# profile (HKK_PROFILE, comma-separated) and dropping events when "events" is
# not in it or HKK_DROP_EVENTS=1; HKK_CRASH_AFTER=N makes it exit without a
# reply from run N+1 on
FAKE = textwrap.dedent("""\
    import json, os, sys
    sys.path.insert(0, {root!r})
    from model import engine
    profile = [p for p in os.environ.get("HKK_PROFILE", "").split(",") if p]
    crash_after = int(os.environ.get("HKK_CRASH_AFTER", "-1"))
    drop = os.environ.get("HKK_DROP_EVENTS") == "1" or (profile and "events" not in profile)
    runs = 0
    for line in sys.stdin:
        req = json.loads(line)
        if req["cmd"] == "hello":
            hello = {{"ok": True, "implementation": {{"name": "fake profile", "version": "1"}},
                     "rulesets": ["kodex"], "verbs": ["heal", "move"]}}
            if profile:
                hello["profile"] = profile
            print(json.dumps(hello), flush=True)
        elif req["cmd"] == "run":
            runs += 1
            if 0 <= crash_after < runs:
                sys.exit(3)
            c = req["case"]
            r = engine.run_case(c["given"], c["when"], c["ruleset"])
            out = {{"seq": req["seq"], "state": r.state, "result": r.result,
                   "events": [] if drop else r.events}}
            if r.refused:
                out["refused"] = r.refused
            print(json.dumps(out), flush=True)
        else:
            break
""")


@pytest.fixture
def fake(tmp_path) -> str:
    p = tmp_path / "fake_impl.py"
    p.write_text(FAKE.format(root=str(ROOT)), encoding="utf-8")
    return f"{PY} {shlex.quote(str(p))}"


# ---------------------------------------------------------------- selections

def test_selection_matching_nothing_is_exit_2(capsys, corpus):
    rc, out = run(capsys, "run", corpus, "-k", "nosuchthing")
    assert rc == 2 and "NOTHING TO RUN" in out
    rc, out = run(capsys, "run", corpus, "--clause", "99.9")
    assert rc == 2 and "NOTHING TO RUN" in out


def test_directory_without_cases_is_exit_2(capsys, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    rc, out = run(capsys, "run", empty)
    assert rc == 2 and "no case was loaded" in out


def test_stale_xfail_entry_is_exit_2(capsys, corpus, tmp_path):
    xf = tmp_path / "xfail.txt"
    xf.write_text("sig/heal-cap  known\nsig/no-such-case  typo\n", encoding="utf-8")
    rc, out = run(capsys, "run", corpus, "--xfail", xf)
    assert rc == 2 and "sig/no-such-case" in out and "matches no case" in out
    xf.write_text("sig/heal-*  a glob matching cases is fine\n", encoding="utf-8")
    rc, out = run(capsys, "run", corpus, "--xfail", xf)
    assert rc == 1 and "XPASS" in out          # listed but passing: loud


def test_all_skipped_is_not_a_pass(capsys, corpus):
    # every case holds only under kodex and the run is under another ruleset: all skipped
    (corpus / "sig.yaml").write_text(CASES.replace("    title:", "    rulesets: [kodex]\n    title:"),
                                     encoding="utf-8")
    rc, out = run(capsys, "run", corpus, "--ruleset", "kodex-mk")
    assert rc == 4 and "NOTHING TESTED" in out
    # a ruleset nobody offers is a usage error (exit 2, the rulesets listed), not a skip of all
    rc, out = run(capsys, "run", corpus, "--ruleset", "nobody-offers-this")
    assert rc == 2 and "unknown ruleset 'nobody-offers-this'" in out


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "1e9", "abc"])
def test_timeout_is_validated(capsys, corpus, value):
    rc, out = run(capsys, "run", corpus, "--timeout", value)
    assert rc == 2 and "--timeout" in out and "Traceback" not in out


def test_quiet_hides_skips_but_counts_them(capsys, corpus, tmp_path):
    other = tmp_path / "other.yaml"
    other.write_text(CASES.replace('"sig/', '"other/').replace(
        'title: "Healing stops at the maximum"',
        'title: "Healing stops at the maximum"\n    rulesets: [kodex-elsewhere]'),
        encoding="utf-8")
    rc, out = run(capsys, "run", corpus, other, "-q", "--ruleset", "kodex")
    assert "SKIP" not in out and "1 skipped" in out and "not listed: -q" in out


# ---------------------------------------------------------------- hostile texts

def test_control_characters_and_huge_titles_are_escaped_and_cut():
    s = cli.safe_text("evil\x1b[2J\x07title\u202e" + "x" * 1000, limit=50)
    assert "\x1b" not in s and "\x07" not in s and "\u202e" not in s
    assert "\\x1b" in s and "\\u202e" in s
    assert "more characters" in s and len(s) < 120


def test_failing_case_with_control_characters_prints_escaped(capsys, tmp_path):
    f = tmp_path / "evil.yaml"
    f.write_text(textwrap.dedent("""\
        format: hkk-case/1
        cases:
          - id: "evil/\\u001b[31mred"
            clause: "3.18"
            title: "\\u001b]0;pwned\\u0007 title"
            given: {players: {A: {hp: 10}}}
            when: [{heal: {target: A, amount: 3}}]
            then: {players: {A: {hp: 14}}}
        """), encoding="utf-8")
    rc, out = run(capsys, "run", f)
    assert rc == 1
    assert "\x1b" not in out and "\x07" not in out and "\\x1b" in out


# ---------------------------------------------------------------- matching

def test_absent_counters_map_matches_zero_counts():
    observed = {"cards": {"c1": {"zone": "table"}}}
    assert matching.first_difference({"cards": {"c1": {"counters": {"poison": 0}}}},
                                     observed, 0) is None
    d = matching.first_difference({"cards": {"c1": {"counters": {"poison": 1}}}}, observed, 0)
    assert d is not None and d.path == "/cards/c1/counters"


def test_event_mismatch_names_the_field():
    observed = {"events": [{"event": "moved", "card": "c1", "from": "hand", "to": "graveyard"}]}
    d = matching.first_difference(
        {"events": [{"event": "moved", "card": "c1", "to": "void"}]}, observed, 1)
    assert d is not None
    assert "/to" in d.message and "'void'" in d.message and "'graveyard'" in d.message


# ---------------------------------------------------------------- profiles

def test_observations_are_derived_from_then():
    assert profiles.observes({"players": {"A": {"hp": 3}}}) == ["state"]
    assert profiles.observes({"cards": {"c1": {"damage": 2, "zone": "table"}}}) == \
        ["state", "computed"]
    assert profiles.observes({"error": {"clause": "4.8.4"}}) == ["refusal", "refusal_clause"]
    assert profiles.observes({"error": True, "events": [{"event": "x"}]}) == \
        ["refusal", "events"]
    assert profiles.observes({"pending": {"player": "A"}}) == ["pending"]
    assert profiles.observes({}) == []


def test_declared_profile_skips_what_it_does_not_observe(tmp_path, corpus, fake, monkeypatch):
    monkeypatch.setenv("HKK_PROFILE", "state")
    cases, errors = cli.load_cases([corpus])
    assert not errors
    with ProtocolClient(fake, timeout=30, stderr_path=tmp_path / "e.log") as client:
        assert client.profile_declared and client.profile == ["state"]
        report = runner.run_cases(cases, impl=client, progress=False)
    oc = {o.case_id: o for o in report.outcomes}
    assert oc["sig/heal-cap"].outcome == "pass"
    assert oc["sig/heal-event"].outcome == "skip"
    assert "events" in oc["sig/heal-event"].message
    assert oc["sig/heal-event"].unsupported == ["profile:events"]
    tallies = report.to_json()["profiles"]
    assert tallies["state"]["pass"] == 2 and tallies["state"]["pass_rate"] == 1.0
    assert tallies["events"]["skip"] == 1 and tallies["events"]["pass_rate"] is None


def test_undeclared_profile_means_every_observation_is_judged(tmp_path, corpus, fake,
                                                               monkeypatch):
    monkeypatch.delenv("HKK_PROFILE", raising=False)
    monkeypatch.setenv("HKK_DROP_EVENTS", "1")
    cases, _ = cli.load_cases([corpus])
    with ProtocolClient(fake, timeout=30, stderr_path=tmp_path / "e.log") as client:
        report = runner.run_cases(cases, impl=client, progress=False)
    oc = {o.case_id: o for o in report.outcomes}
    # the fake drops events when it declares no profile: the event case fails
    assert oc["sig/heal-event"].outcome == "fail"


def test_unknown_profile_entry_is_refused(tmp_path, fake, monkeypatch):
    monkeypatch.setenv("HKK_PROFILE", "state,telepathy")
    with pytest.raises(ProtocolError, match="telepathy"):
        ProtocolClient(fake, timeout=30, stderr_path=tmp_path / "e.log")


# ---------------------------------------------------------------- giving up

def test_gave_up_is_loud_with_its_own_exit_code(capsys, tmp_path, corpus, fake, monkeypatch):
    monkeypatch.setenv("HKK_CRASH_AFTER", "0")          # crashes on every case
    monkeypatch.chdir(tmp_path)
    res = tmp_path / "r.json"
    rc, out = run(capsys, "run", corpus, "--impl", fake, "--max-restarts", "1",
                  "--json", res, "--timeout", "20")
    assert rc == 3, out
    assert "GAVE UP" in out and "NOT RUN" in out
    data = json.loads(res.read_text(encoding="utf-8"))
    assert data["gave_up"]["after_case"] == "sig/heal-event"
    assert [c["outcome"] for c in data["cases"]] == ["error", "error", "not_run"]
    assert data["totals"]["not_run"] == 1
    # each run its own stderr log, beside the results file
    assert (tmp_path / "r.stderr.log").is_file()


def test_unavailable_implementation_still_writes_results(capsys, tmp_path, corpus):
    res = tmp_path / "r.json"
    rc, out = run(capsys, "run", corpus, "--impl", str(tmp_path / "no-such-program"),
                  "--json", res)
    assert rc == 3 and "implementation unavailable" in out
    data = json.loads(res.read_text(encoding="utf-8"))
    assert data["unavailable"] and data["totals"]["not_run"] == 3
    assert all(c["outcome"] == "not_run" for c in data["cases"])


# ---------------------------------------------------------------- coverage and diff

def _results(capsys, corpus, tmp_path, name="ref.json") -> Path:
    res = tmp_path / name
    rc, _ = run(capsys, "run", corpus, "--json", res)
    assert rc == 0
    return res


def test_coverage_of_a_partial_implementation_shows_its_own_rate(capsys, corpus, tmp_path):
    res = _results(capsys, corpus, tmp_path)
    data = json.loads(res.read_text(encoding="utf-8"))
    for c in data["cases"]:
        if c["case_id"] == "sig/heal-event":
            c["outcome"] = "fail"
        if c["case_id"] == "sig/void-move-refused-clause":
            c["outcome"] = "skip"
    data.update(runner.case_counts(data["cases"]))
    part = tmp_path / "part.json"
    part.write_text(json.dumps(data), encoding="utf-8")
    out_dir = tmp_path / "cov"
    rc, out = run(capsys, "coverage", corpus, "--results", part, "--out", out_dir)
    assert rc == 0
    cov = json.loads((out_dir / "coverage.json").read_text(encoding="utf-8"))
    s3 = next(r for r in cov["sections"] if r["section"] == "3")
    assert s3["verdicts"]["pass"] == 1 and s3["verdicts"]["fail"] == 1
    assert s3["pass_rate"] == 0.5
    s4 = next(r for r in cov["sections"] if r["section"] == "4")
    assert s4["verdicts"]["skip"] == 1 and s4["pass_rate"] is None
    assert cov["totals"]["pass_rate"] == 0.5
    assert "50.0%" in out and "100.0% of the" not in out.split("pass rate")[-1][:20]
    md = (out_dir / "coverage.md").read_text(encoding="utf-8")
    assert "The implementation's verdicts" in md


def test_coverage_of_results_without_cases_says_so(capsys, corpus, tmp_path):
    res = tmp_path / "empty.json"
    res.write_text(json.dumps({"schema": "hkk-results/2", "implementation": {"name": "x"},
                               "ruleset": "kodex", "started": "2026-11-25T05:00:00+00:00",
                               "cases": [], "totals": runner.tally([])}), encoding="utf-8")
    rc, out = run(capsys, "coverage", corpus, "--results", res, "--out", tmp_path / "c")
    assert rc == 1 and "NO CASES" in out


def test_diff_keeps_not_implemented_apart_from_regression(capsys, corpus, tmp_path):
    res = _results(capsys, corpus, tmp_path)
    data = json.loads(res.read_text(encoding="utf-8"))
    skipped = json.loads(json.dumps(data))
    skipped["cases"][0]["outcome"] = "skip"
    skipped.update(runner.case_counts(skipped["cases"]))
    failed = json.loads(json.dumps(data))
    failed["cases"][0]["outcome"] = "fail"
    failed.update(runner.case_counts(failed["cases"]))
    (tmp_path / "skip.json").write_text(json.dumps(skipped), encoding="utf-8")
    (tmp_path / "fail.json").write_text(json.dumps(failed), encoding="utf-8")
    d = rdiff.compare(data, skipped)
    assert [c["kind"] for c in d["changed"]] == ["not_implemented"]
    assert d["totals"]["skip"]["new"] == 1      # counted from the cases
    assert rdiff.main([str(res), str(tmp_path / "skip.json")]) == 3
    assert rdiff.main([str(res), str(tmp_path / "fail.json")]) == 1
    assert rdiff.main([str(res), str(res)]) == 0
    assert rdiff.main([str(res), str(tmp_path / "missing.json")]) == 2


# ---------------------------------------------------------------- pytest plugin

def test_pytest_plugin_runs_the_corpus_against_another_implementation(tmp_path, corpus):
    (tmp_path / "pytest.ini").write_text("[pytest]\nkodex_corpus = corpus\n", encoding="utf-8")
    xf = tmp_path / "xfail.txt"
    xf.write_text("sig/heal-event  the fake drops events\n", encoding="utf-8")
    fake_path = tmp_path / "fake_impl.py"
    fake_path.write_text(FAKE.format(root=str(ROOT)), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT), HKK_PROFILE="", HKK_DROP_EVENTS="1")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir",
           str(tmp_path), "-c", str(tmp_path / "pytest.ini"), str(corpus),
           "--kodex-impl", f"{sys.executable} {fake_path}", "--kodex-xfail", str(xf)]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "2 passed" in out and "1 xfailed" in out
    # without the expected failure it fails, naming the clause and the difference
    proc = subprocess.run(cmd[:-2], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "1 failed" in out and "/events/0" in out


# ---------------------------------------------------------------- the results schema

def test_results_files_validate_against_their_schema(capsys, corpus, tmp_path, fake,
                                                     monkeypatch):
    ok = _results(capsys, corpus, tmp_path)
    assert results_io.results_problem(json.loads(ok.read_text(encoding="utf-8"))) is None
    gone = tmp_path / "gone.json"
    run(capsys, "run", corpus, "--impl", str(tmp_path / "missing-program"), "--json", gone)
    assert results_io.results_problem(json.loads(gone.read_text(encoding="utf-8"))) is None
    monkeypatch.setenv("HKK_CRASH_AFTER", "0")
    monkeypatch.chdir(tmp_path)
    gave = tmp_path / "gave.json"
    run(capsys, "run", corpus, "--impl", fake, "--max-restarts", "0", "--json", gave)
    data = json.loads(gave.read_text(encoding="utf-8"))
    assert data["gave_up"] and results_io.results_problem(data) is None
    # a hostile results file is refused with the place named, never a traceback
    data["cases"][0]["outcome"] = "passed-honest"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=r"/cases/0/outcome"):
        results_io.read_results(bad)
    assert rdiff.main([str(ok), str(bad)]) == 2


# ---------------------------------------------------------------- a returned state given back

def test_a_returned_state_with_a_pending_decision_can_be_given_back(capsys, tmp_path):
    """docs/spec/hkk-rules.md: returned-only fields, `ruleset` and the whole `pending`
    are accepted (and ignored) in `given`, so a returned state can be given back."""
    import yaml
    from model import engine
    given = {"players": {"A": {"hand": ["h1", "h2", "h3"]}},
             "cards": {h: {"kind": "instant"} for h in ("h1", "h2", "h3")}}
    first = engine.run_case(given, [{"discard": {"player": "A", "count": 1}}])
    assert first.state["pending"]["step"] == {"discard": {"player": "A", "count": 1}}
    f = tmp_path / "back.yaml"
    f.write_text(yaml.safe_dump({"format": "hkk-case/1", "cases": [{
        "id": "back/answer", "clause": "4.17.2", "title": "answer the returned decision",
        "given": first.state, "when": [{"choose": {"player": "A", "cards": ["h2"]}}],
        "then": {"players": {"A": {"hand": ["h1", "h3"], "graveyard": ["h2"]}}}}]},
        allow_unicode=True), encoding="utf-8")
    rc, out = run(capsys, "run", f)
    assert rc == 0, out
