"""Break the engine on purpose; the corpus must notice.

Each mutant in tests/mutants.yaml names a small edit of one engine file (text
found exactly once, replaced) and the clauses whose cases must then fail. The
edited engine is a copy of model/ in a temporary folder (the files left alone are symbolic
links to model/'s). One worker process
(tests/mutant_worker.py) loads the corpus once, as `kodex run` does, and runs
it against every mutated copy, each in a child forked from it that imports the
copy first (two at a time); the test passes when, for every clause the mutant
names, at least one case citing that clause (as `clause` or in `also`) fails
or errors. A mutant whose text is no longer in the engine fails the test too,
so the list cannot rot silently.
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
# tests/mutants.yaml and the topic files tests/mutants-*.yaml (one per part of the corpus)
MUTANTS = [m for f in [ROOT / "tests" / "mutants.yaml", *sorted((ROOT / "tests").glob("mutants-*.yaml"))]
           for m in yaml.safe_load(f.read_text(encoding="utf-8"))["mutants"]]


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


JOBS = 2                      # mutants run at a time (the worker forks one child each)
LOADER_FILES = ("state.py",)  # model files the case loader reads (the vocabularies)


def mutated_model(mutant: dict, copy: Path) -> str | None:
    """Make ``copy/model``: the files the mutant edits are copied and edited, every other entry
    of model/ is a symbolic link to the original (copying the whole package for every mutant
    was a second per mutant). None, or why the mutant cannot be made."""
    src, dst = ROOT / "model", copy / "model"
    dst.mkdir(parents=True)
    edited = {edit["file"] for edit in mutant["edits"]}
    for entry in src.iterdir():
        if entry.name == "__pycache__":
            continue
        if entry.name in edited:
            shutil.copy2(entry, dst / entry.name)
        else:
            (dst / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    for edit in mutant["edits"]:
        target = dst / edit["file"]
        if target.is_symlink() or not target.is_file():    # never write through to model/
            return f"mutant {mutant['id']}: model/{edit['file']} is not a file of model/'s top level"
        text = target.read_text(encoding="utf-8")
        if text.count(edit["find"]) != 1:
            return (f"mutant {mutant['id']}: the text to break is no longer (or more than "
                    f"once) in model/{edit['file']}: {edit['find']!r}")
        target.write_text(text.replace(edit["find"], edit["replace"]), encoding="utf-8")
    return None


def _prepare(mutant: dict, base: Path) -> tuple[Path | None, str | None]:
    """(the mutated copy, None) or (None, why it cannot be made)."""
    copy = base / mutant["id"]
    problem = mutated_model(mutant, copy)
    return (None, problem) if problem else (copy, None)


def run_mutants(mutants: list[dict], base: Path, **per_mutant) -> dict[str, dict]:
    """Make each mutant's copy of model/ under ``base`` and run the corpus against every copy in
    one worker (tests/mutant_worker.py); ``per_mutant(mutant)`` gives the worker's options for it
    (``only``, ``first_failure``). Returns id → the worker's answer, or ``{"error": why}``."""
    results: dict[str, dict] = {}
    todo = []
    for mutant in mutants:
        copy, problem = _prepare(mutant, base / "copies")
        if problem:
            results[mutant["id"]] = {"error": problem}
            continue
        todo.append({"id": mutant["id"], "copy": str(copy),
                     "reload": any(e["file"] in LOADER_FILES for e in mutant["edits"]),
                     **{k: f(mutant) for k, f in per_mutant.items()}})
    out_dir = base / "results"
    out_dir.mkdir()
    spec = base / "spec.json"
    spec.write_text(json.dumps({"root": str(ROOT), "corpus": str(ROOT / "conformance" / "corpus"),
                                "timeout": 600, "mutants": todo}), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "mutant_worker.py"), str(spec),
                           str(out_dir), str(JOBS)],
                          cwd=base, env=env, capture_output=True, text=True,
                          timeout=600 + 60 * len(todo))
    for m in todo:
        out = out_dir / f"{m['id']}.json"
        results[m["id"]] = (json.loads(out.read_text(encoding="utf-8")) if out.exists() else
                            {"error": f"the run did not finish (worker exit {proc.returncode}):\n"
                                      f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"})
    return results


@pytest.fixture(scope="module")
def mutant_results(tmp_path_factory) -> dict[str, dict]:
    # the verdict reads only the cases citing the mutant's clauses: only they run
    return run_mutants(MUTANTS, tmp_path_factory.mktemp("mutants"), only=lambda m: list(m["clauses"]))


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m["id"] for m in MUTANTS])
def test_mutant_is_caught(mutant: dict, mutant_results: dict[str, dict]) -> None:
    result = mutant_results[mutant["id"]]
    assert "error" not in result, result["error"]
    assert f"{os.sep}{mutant['id']}{os.sep}model{os.sep}" in result["model"], result["model"]
    broken = set(result["broken"])
    corpus = _corpus()
    for clause in mutant["clauses"]:
        citing = [cid for cid, case in corpus.items() if _cites(case, clause)]
        assert citing, f"no case cites {clause}"
        caught = [cid for cid in citing if cid in broken]
        assert caught, (f"mutant {mutant['id']} ({mutant['breaks']}) broke {clause} "
                        f"but none of its {len(citing)} case(s) failed")


def test_a_mutant_whose_text_vanished_is_an_error(tmp_path: Path) -> None:
    gone = {"id": "gone", "edits": [{"file": "zones.py", "find": "text that is not in the engine",
                                     "replace": "x"}]}
    copy, problem = _prepare(gone, tmp_path)
    assert copy is None and "no longer" in problem
    twice = {"id": "twice", "edits": [{"file": "zones.py", "find": "\n", "replace": "\n"}]}
    copy, problem = _prepare(twice, tmp_path / "2")
    assert copy is None and "more than" in problem
