"""The independent black-box fuzzer (properties/blackbox.py): it never imports `model`, it
finds no violation in the reference engine served over protocol 1, and it does notice a
program that breaks the invariants."""
from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

from properties.blackbox import ROOT, run_blackbox

SOURCE = ROOT / "properties" / "blackbox.py"


def test_blackbox_does_not_import_model() -> None:
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert not any(a.name == "model" or a.name.startswith("model.") for a in node.names)
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            assert not (node.module or "").startswith("model")
    proc = subprocess.run(
        [sys.executable, "-c",
         "import sys, properties.blackbox;"
         "bad = sorted(m for m in sys.modules if m == 'model' or m.startswith('model.'));"
         "assert not bad, bad"],
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_blackbox_finds_no_violation_in_the_reference(tmp_path: Path) -> None:
    report = run_blackbox(cases=150, seed=0, steps=8, stderr_path=tmp_path / "serve.stderr.log")
    assert report.cases == 150
    assert report.accepted > 300 and report.refused > 30       # both paths are exercised
    assert not report.problems, "\n".join(str(p) for p in report.problems[:10])


BROKEN_SERVER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    from conformance import serve
    _orig = serve.run_reply
    def run_reply(seq, case, ruleset_default="kodex"):
        reply = _orig(seq, case, ruleset_default)
        state = reply.get("state")
        when = case.get("when") or []
        if state and "refused" in reply:
            state["players"]["A"]["components"] += 1          # a refusal that changes something
        elif state and when and "heal" in when[-1]:
            pl = state["players"]["A"]
            pl["hp"] = pl["max_hp"] + 1                         # healing past the cap
        return reply
    serve.run_reply = run_reply
    sys.exit(serve.serve())
""")


def test_blackbox_notices_a_broken_program(tmp_path: Path) -> None:
    script = tmp_path / "broken_server.py"
    script.write_text(BROKEN_SERVER.format(root=str(ROOT)), encoding="utf-8")
    report = run_blackbox(cases=40, seed=1, steps=6, command=f"{sys.executable} {script}",
                          stderr_path=tmp_path / "broken.stderr.log")
    found = {p.violation.invariant for p in report.problems}
    assert {"atomic_refusal", "hp_vp_cap"} <= found, found


def test_blackbox_cases_are_valid_hkk_case_files() -> None:
    import random

    import yaml

    from conformance.loader import load_text
    from properties.blackbox import random_given, random_step
    doc = {"format": "hkk-case/1", "cases": []}
    for i in range(40):
        rng = random.Random(i)
        given = random_given(rng)
        when = [random_step(rng, given, n) for n in range(8)]
        doc["cases"].append({"id": f"x/blackbox-{i}", "clause": "4.5.2", "title": "generated",
                             "given": given, "when": when, "then": {}})
    res = load_text(yaml.safe_dump(doc, sort_keys=False), catalog=False)
    assert not res.errors, [str(e) for e in res.errors][:3]
