"""Break the engine on purpose; the corpus must notice.

Each mutant in tests/mutants.yaml names a small edit of one engine file (text
found exactly once, replaced) and the clauses whose cases must then fail. The
edited engine is a copy in a temporary folder, put first on PYTHONPATH of a
subprocess that runs the whole corpus; the test passes when, for every clause
the mutant names, at least one case citing that clause (as `clause` or in
`also`) fails or errors. A mutant whose text is no longer in the engine fails
the test too, so the list cannot rot silently.
"""
from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = yaml.safe_load((ROOT / "tests" / "mutants.yaml").read_text(encoding="utf-8"))["mutants"]


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.lru_cache(maxsize=1)
def _corpus() -> dict[str, dict]:
    corpus = {}
    for f in sorted((ROOT / "conformance" / "corpus").rglob("*.yaml")):
        doc = yaml.load(f.read_text(encoding="utf-8"), Loader=_Loader) or {}
        for case in doc.get("cases") or []:
            corpus[case["id"]] = case
    return corpus


def _cites(case: dict, clause: str) -> bool:
    ids = [case.get("clause")] + list(case.get("also") or [])
    return any(i == clause or (i and i.startswith(clause + ".")) for i in ids)


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m["id"] for m in MUTANTS])
def test_mutant_is_caught(mutant: dict, tmp_path: Path) -> None:
    copy = tmp_path / "mutated"
    shutil.copytree(ROOT / "model", copy / "model", ignore=shutil.ignore_patterns("__pycache__"))
    for edit in mutant["edits"]:
        target = copy / "model" / edit["file"]
        text = target.read_text(encoding="utf-8")
        assert text.count(edit["find"]) == 1, \
            f"mutant {mutant['id']}: the text to break is no longer (or more than once) in model/{edit['file']}"
        target.write_text(text.replace(edit["find"], edit["replace"]), encoding="utf-8")
    out = tmp_path / "results.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(copy), str(ROOT)])}
    proc = subprocess.run(
        [sys.executable, "-c",
         "import model, sys; assert model.__file__.startswith(sys.argv[2]), model.__file__;"
         "from conformance.cli import main;"
         "raise SystemExit(main(['run', '-q', '--json', sys.argv[1], sys.argv[3]]))",
         str(out), str(copy), str(ROOT / "conformance" / "corpus")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert out.exists(), f"the run did not finish:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    results = json.loads(out.read_text(encoding="utf-8"))
    broken = {c["case_id"]: c for c in results["cases"] if c["outcome"] in ("fail", "error")}
    corpus = _corpus()
    for clause in mutant["clauses"]:
        citing = [cid for cid, case in corpus.items() if _cites(case, clause)]
        assert citing, f"no case cites {clause}"
        caught = [cid for cid in citing if cid in broken]
        assert caught, (f"mutant {mutant['id']} ({mutant['breaks']}) broke {clause} "
                        f"but none of its {len(citing)} case(s) failed")
