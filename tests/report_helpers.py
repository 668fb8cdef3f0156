"""Results files for the report tests: the reference run and a degraded fake.

The reference results come from a real in-process run of the corpus (done once
per test session by the caller); :func:`degraded` derives a second
implementation from it with every outcome the report must show (fail with a
first difference, error, timeout, skip, xfail, xpass, not_run and an outcome
the report does not know) and a hostile title.
"""
from __future__ import annotations

import contextlib
import copy
import json
import os
import shutil
from pathlib import Path
from typing import Any, Callable, Iterator

from session_cache import OWNER

HOSTILE = '<script>alert("x")</script> & <img src=x onerror=alert(1)> "quoted" \'single\''
SKIP_REASONS = ["verb:attack", "verb:attack", "ruleset:kodex-mk", "profile:events",
                "feature:reaction-queue", "<b>odd</b>:x"]


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
            # the reasons a skip names (any kind:name; feature:NAME is one the kit may add)
            c["unsupported"] = [SKIP_REASONS[(i // 13) % len(SKIP_REASONS)]]
        elif i % 17 == 8:
            c["outcome"] = "xfail"
        elif i % 19 == 9:
            c["outcome"] = "timeout"
        elif i % 23 == 10:
            c["outcome"] = "not_run"
        elif i % 31 == 12:
            c["outcome"] = "xpass"
    out["cases"][0]["title"] = HOSTILE
    return agreeing(out) | {"gave_up": None}


def agreeing(data: dict) -> dict:
    """``data`` with its counts of the cases (totals, verdicts, skip reasons, profiles) made
    again from its cases, as kodex run writes them: a file every command reads
    (conformance.results_io.read_results refuses counts that disagree)."""
    from conformance.runner import case_counts
    out = {**data, **case_counts(data["cases"])}
    if out.get("schema") != "hkk-results/2":     # what an hkk-results/1 file had
        for key in ("verdicts", "skip_reasons", "features", "features_declared"):
            out.pop(key, None)
        out["totals"] = {k: v for k, v in out["totals"].items() if k != "not_run" or v}
    return out


_CACHE: dict = {}


@contextlib.contextmanager
def _session_lock(name: str) -> Iterator[Path | None]:
    """The session's directory for ``name`` (tests/conftest.py makes one per test session and
    the xdist workers share it), held under an exclusive lock; None without one (no session
    directory, or no ``fcntl``): the caller builds its own."""
    session = os.environ.get(OWNER)
    try:
        import fcntl
    except ImportError:
        fcntl = None
    if not session or fcntl is None or not os.path.isdir(session):
        yield None
        return
    folder = Path(session) / "shared"
    folder.mkdir(exist_ok=True)
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)      # released when the file is closed
        yield folder


def shared_json(name: str, build: Callable[[], Any]) -> Any:
    """``build()``'s JSON data, built once per test session: the first process that asks builds
    it under the lock and writes it atomically; the others (the other xdist workers) wait for
    it and read it."""
    from conformance.atomicio import write_json
    with _session_lock(name) as folder:
        if folder is None:
            return build()
        path = folder / f"{name}.json"
        if path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))
        write_json(path, build())
        return json.loads(path.read_text(encoding="utf-8"))   # the same data every process reads


def cached_reference() -> dict:
    """The reference run, once per test session (a deep copy for each caller)."""
    if "ref" not in _CACHE:
        _CACHE["ref"] = shared_json("reference-results", reference_results)
    return copy.deepcopy(_CACHE["ref"])


def real_amendment(tmp_dir) -> dict:
    """The amendment impact of a real edit of clause 4.0's text (with markup in it)."""
    from reports import amendment
    src = Path(amendment.KODEX_DIR)
    doc = src / "kodex-part-II.txt"
    text = doc.read_text(encoding="utf-8")
    old = "Egyes részletszabályok"
    assert old in text
    new_dir = Path(tmp_dir)
    new_dir.mkdir(parents=True, exist_ok=True)
    (new_dir / doc.name).write_text(text.replace(old, "Egyes <b>új</b> részletszabályok", 1),
                                    encoding="utf-8")
    return amendment.analyse(new_dir)


def section_counts(results: dict, catalog) -> dict[str, dict[str, int]]:
    """{section: {outcome: n}} straight from a results dict (a case counts in the
    section of its clause; clauses the catalog does not know under ``unknown``)."""
    out: dict[str, dict[str, int]] = {}
    for c in results["cases"]:
        cl = catalog.get(c["clause"])
        sec = str(cl.section) if cl is not None else "unknown"
        row = out.setdefault(sec, {})
        row[c["outcome"]] = row.get(c["outcome"], 0) + 1
    return out


def prove_json(directory) -> "Path":
    """A real ``kodex prove`` report written into ``directory`` (tests never read or
    write the repository's generated ``reports/``). The effect-combination rows use
    combinations of up to 2 effects: the pages show the same rows, in a few seconds
    (tests/test_prove.py proves the full family of 3)."""
    import io

    from rich.console import Console

    from properties.prove import run_prove
    directory = Path(directory)
    with _session_lock("prove") as folder:
        if folder is None:
            run_prove(directory, console=Console(file=io.StringIO()), max_effects=2)
        else:                                  # run once per session, copied to each caller
            made = folder / "prove"
            if not (made / "prove.json").is_file():
                run_prove(made, console=Console(file=io.StringIO()), max_effects=2)
            shutil.copytree(made, directory, dirs_exist_ok=True)
    path = directory / "prove.json"
    assert path.is_file()
    return path


STRENGTH_HOSTILE_CHANGE = 'if a > b: → if "<script>alert(1)</script>" >= b:'
STRENGTH_HOSTILE_REASON = "never evaluated: <b>annotations</b> & strings"


def strength_report(*, scored: bool = True, probe_kill: bool = False) -> dict:
    """A ``kodex strength`` report (``hkk-strength/2``) built by properties/strength.py's own
    scoring (``score``, ``_mutant_json``, the catalog's titles) from a handful of mutants with
    known outcomes: no mutation run, so the tests stay fast. ``scored=False``: every mutant is
    equivalent (a report with nothing scored). ``probe_kill``: the killed mutant of model/zones.py
    was killed by an input probe (the corpus let it through), and the report has its ``probes``."""
    from properties import strength as S
    _known, title_of = S._catalog_known()

    def mutant(file, line, clauses, status, change, reason=None, function="f"):
        return S.Mutant(file=f"model/{file}", module=f"model.{file[:-3]}", path="", file_sha="0",
                        operator="core/ReplaceComparisonOperator_Gt_GtE", occurrence=0, line=line,
                        col=4, function=function, clauses=list(clauses), mapped_by="docstring:f",
                        status=status, change=change, equivalent_reason=reason)
    many = ["124.2", "124.3", "124.4", "124.5", "124.6"]
    ms = [
        mutant("combat.py", 100, ["rb7:harci-fazis.II"], "killed", "if x > y: → if x >= y:"),
        mutant("combat.py", 120, ["rb7:harci-fazis.II", "5.4.2"], "survived",
               "if n > limit: → if n >= limit:", function="attack"),
        mutant("keywords.py", 50, many, "survived", STRENGTH_HOSTILE_CHANGE,
               function="<_muscle_reward>"),
        mutant("zones.py", 10, ["4.8.4"], "killed", "== → !="),
        mutant("zones.py", 20, ["4.8.4"], "timeout", "while a: → while not a:"),
        mutant("resources.py", 5, ["3.18"], "equivalent", "int → float", STRENGTH_HOSTILE_REASON),
        mutant("resources.py", 6, ["3.18"], "equivalent", "str → bytes", STRENGTH_HOSTILE_REASON),
        mutant("play.py", 7, [], "survived", "a + 1 → a - 1"),
    ]
    if not scored:
        for m in ms:
            m.status, m.equivalent_reason = "equivalent", STRENGTH_HOSTILE_REASON
    if probe_kill:
        ms[3].killer = "probe:zone-scope-no-zones"
    scores = S.score(ms, title_of)
    return {
        "schema": S.SCHEMA,
        "tool": {"name": "cosmic-ray", "version": "8.7.0", "operators": ["core/AddNot"]},
        "goal": {"overall": S.GOAL_OVERALL, "title": S.GOAL_TITLE},
        "corpus": {"cases": 10, "digest": "0" * 64, "baseline_seconds": 0.1, "left_out": []},
        "timing": {"enumerate": 0.1, "baseline": 0.1, "mutants": 1.0, "total": 1.2, "workers": 2,
                   "ran": len(ms), "cached": 0, "mutant_timeout": 30.0},
        "overall": scores["overall"],
        "reachable": S._tally(ms),
        "unreachable_files": [],
        "titles": scores["titles"],
        "clauses": scores["clauses"],
        "problems": [],
        "mutants": [S._mutant_json(m) for m in ms],
        "probes": _probes_summary(ms) if probe_kill else None,
    }


def _probes_summary(ms: list) -> dict:
    from properties import strength as S
    from properties import strength_probes as P
    return P.ProbeOracle(P.load_probes(P.DEFAULT_DIR), P.DEFAULT_DIR).summary(ms, S.DETECTED)
