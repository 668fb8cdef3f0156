"""Break the engine on purpose, once per invariant; the property checks must notice.

Each mutant in tests/invariant_mutants.yaml names an invariant of
properties/invariants.py and a small edit of one engine file (text found exactly
once, replaced). The edited engine is a copy of model/ in a temporary folder,
put first on PYTHONPATH of a subprocess (cwd: a temporary folder) that runs
`properties.fuzz` with the quick, derandomized Hypothesis profile plus seeded
random cases (fixed seeds: no flakiness), restricted to the verbs the mutant
lists and failing only on its invariant. The test passes when that invariant is
reported violated. A mutant whose text is no longer in the engine fails, so the
list cannot rot silently. The subprocesses run in parallel (one per core).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml
from test_mutations import mutated_model

from properties.invariants import INVARIANTS

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = yaml.safe_load((ROOT / "tests" / "invariant_mutants.yaml").read_text(encoding="utf-8"))["mutants"]
CHECK = ["--profile", "quick", "--examples", "50", "--random-cases", "60", "--games", "0",
         "--no-machine", "--no-shrink", "--seed", "0", "-q"]


def _run(mutant: dict, base: Path) -> dict:
    work = base / mutant["id"]
    copy = work / "mutated"
    problem = mutated_model(mutant, copy)
    if problem:
        return {"error": problem}
    out = work / "fuzz.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(copy), str(ROOT)]),
           "PYTHONHASHSEED": "0"}
    proc = subprocess.run(
        [sys.executable, "-c",
         "import sys, model; assert model.__file__.startswith(sys.argv[1]), model.__file__;"
         "from properties.fuzz import main; raise SystemExit(main(sys.argv[2:]))",
         str(copy), *CHECK, "--invariant", mutant["invariant"], "--json", str(out),
         *[str(x) for x in mutant.get("check", [])]],
        cwd=work, env=env, capture_output=True, text=True, timeout=300)
    if not out.exists():
        return {"error": f"the check did not finish (exit {proc.returncode}):\n"
                         f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"}
    report = json.loads(out.read_text(encoding="utf-8"))
    report["returncode"] = proc.returncode
    return report


@pytest.fixture(scope="module")
def mutant_runs(tmp_path_factory) -> dict[str, Future]:
    base = tmp_path_factory.mktemp("invariant-mutants")
    pool = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2))
    futures = {m["id"]: pool.submit(_run, m, base) for m in MUTANTS}
    yield futures
    pool.shutdown(wait=True)


def test_every_invariant_has_a_mutant() -> None:
    covered = {m["invariant"] for m in MUTANTS}
    assert covered == set(INVARIANTS), f"invariants without a mutant: {set(INVARIANTS) - covered}"
    ids = [m["id"] for m in MUTANTS]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m["id"] for m in MUTANTS])
def test_mutant_is_caught(mutant: dict, mutant_runs: dict[str, Future]) -> None:
    report = mutant_runs[mutant["id"]].result()
    assert "error" not in report, report["error"]
    assert mutant["invariant"] in report["violated"], (
        f"mutant {mutant['id']} ({mutant['breaks']}) was not caught: "
        f"invariant {mutant['invariant']} was not reported violated (violated: {report['violated']})")
    assert report["returncode"] == 1
