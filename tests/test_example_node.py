"""The Node.js example engine (examples/hkk-node) against the whole corpus.

The example is an outside implementation written from docs/spec only; this
test runs the corpus through it over protocol 1, exactly as its README tells a
client author to, and checks that its expected-failures file is honest.
Everything the run writes goes into pytest's tmp_path (the harness writes its
stderr log under ``reports/runs`` relative to the working directory).
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "hkk-node"
ENGINE = EXAMPLE / "engine.js"
XFAIL = EXAMPLE / "xfail.txt"

# The engine passes 977 cases today (with `features: []`); a floor at about 80% of that
# catches a silently broken engine (which would only skip or xfail) without pinning the exact
# count while the corpus grows.
MIN_PASSES = 780

# The observations of docs/spec/hkk-profiles.md.
OBSERVATIONS = {"state", "computed", "refusal", "refusal_clause", "events", "pending"}


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not found: the example engine needs Node.js (`node`) on PATH")
    return node


def _xfail_ids() -> list[str]:
    ids = []
    for line in XFAIL.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            ids.append(line.split(" ", 1)[0])
    return ids


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    node = _node()
    tmp = tmp_path_factory.mktemp("hkk-node")
    out = tmp / "r.json"
    impl = f"{shlex.quote(node)} {shlex.quote(str(ENGINE))}"
    proc = subprocess.run(
        [sys.executable, "-m", "conformance", "run", "-q", "--impl", impl,
         "--xfail", str(XFAIL), "--json", str(out)],
        cwd=tmp, env=_env(), capture_output=True, text=True, timeout=300,
    )
    data = json.loads(out.read_text(encoding="utf-8")) if out.exists() else None
    return proc, data


def test_corpus_run_is_clean(run):
    proc, data = run
    tail = (proc.stdout[-3000:] + "\n" + proc.stderr[-2000:])
    assert proc.returncode == 0, tail
    assert data is not None, "no results file written\n" + tail
    totals = data["totals"]
    bad = {k: totals.get(k, 0) for k in ("fail", "error", "timeout", "xpass")}
    assert bad == {"fail": 0, "error": 0, "timeout": 0, "xpass": 0}, tail
    assert totals["pass"] >= MIN_PASSES, f"only {totals['pass']} passes (floor {MIN_PASSES})"
    # The cases the engine does not announce verbs for are skipped, not run.
    assert totals["skip"] > 0
    assert data["implementation"]["name"] == "hkk-node-example"


def test_every_xfail_entry_is_a_failing_case_of_the_corpus(run):
    _, data = run
    assert data is not None
    outcome = {c["case_id"]: c["outcome"] for c in data["cases"]}
    ids = _xfail_ids()
    # The file may be empty (it is today): every listed case must be a case
    # of the corpus that still fails, with a reason.
    assert len(ids) == len(set(ids)), "a case is listed twice"
    unknown = [i for i in ids if i not in outcome]
    assert unknown == [], f"xfail entries that name no case: {unknown}"
    not_failing = {i: outcome[i] for i in ids if outcome[i] != "xfail"}
    assert not_failing == {}, f"xfail entries whose case did not fail: {not_failing}"


def test_every_xfail_entry_gives_an_honest_reason():
    for line in XFAIL.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        reason = line.partition(" ")[2].strip()
        assert reason.startswith(("spec gap", "not implemented")), f"no honest reason: {line!r}"


def test_protocol_survives_malformed_lines_and_exits_on_eof():
    node = _node()
    lines = [
        {"cmd": "hello", "protocol": 1, "format": "hkk-case/1"},
        "this is not json",
        [1, 2],
        {"cmd": "dance"},
        {"cmd": "run", "case": {}},
        {"cmd": "run", "seq": 1, "case": {"id": "x", "ruleset": "kodex",
                                           "given": {"players": {"A": {"hp": 18}}},
                                           "when": [{"heal": {"target": "A", "amount": 5}}]}},
        {"cmd": "run", "seq": 2, "case": {"id": "y", "ruleset": "kodex",
                                           "when": [{"attack": {"attacks": []}}]}},
    ]
    text = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    proc = subprocess.run([node, str(ENGINE)], input=text, capture_output=True, text=True,
                          timeout=30, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    replies = [json.loads(r) for r in proc.stdout.splitlines()]
    assert len(replies) == 7
    hello, *errors, healed, skipped = replies
    assert hello["ok"] is True and "hkk-case/1" in hello["formats"]
    assert "move" in hello["verbs"] and "attack" not in hello["verbs"]
    assert set(hello.get("profile", OBSERVATIONS)) <= OBSERVATIONS
    assert [e["ok"] for e in errors] == [False, False, False, False]
    assert healed["seq"] == 1 and healed["result"] == "ongoing"
    assert healed["state"]["players"]["A"]["hp"] == 20
    assert {"event": "hp_excess_lost", "player": "A", "amount": 3} in healed["events"]
    assert skipped["seq"] == 2 and skipped["unsupported"] == ["attack"]


def test_the_example_declares_its_features_and_the_skips_name_them(run):
    _, data = run
    assert data["features_declared"] is True and data["features"] == []
    reasons = data["skip_reasons"]
    assert reasons.get("feature:continuous", 0) > 0 and "unstated" not in reasons
    # a case that needs a feature is skipped, never listed as an expected failure
    needing = {c["case_id"] for c in data["cases"] if c.get("needs")}
    assert not needing & set(_xfail_ids())
    assert {c["outcome"] for c in data["cases"] if c.get("needs")} == {"skip"}
