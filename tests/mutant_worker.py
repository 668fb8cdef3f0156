"""Run the corpus against many mutated copies of model/ in one process.

Used by tests/test_mutations.py (not a test module itself). The corpus is
loaded and validated once, in this process, exactly as ``kodex run`` loads it
(``conformance.cli.load_cases``: the valid cases run, input errors do not stop
the run). Then each mutant runs in a child forked from this process (so the
loaded corpus is shared, never reloaded): the child forgets the ``model``
package, puts the mutant's copy first on ``sys.path``, imports it (and checks
that it got the copy), runs every case with ``conformance.runner.run_cases``
(the same per-case deadline as ``kodex run``) and writes the ids of the cases
that failed or errored. At most ``JOBS`` children run at a time.

A child does not compile the files its mutant left alone: the worker compiles ``model/``
once and the child imports each file of its copy that is byte for byte the original from that
code (``_CompiledFinder``: a finder first on ``sys.meta_path`` whose loader hands the code over,
pointed at the copy's path, as the import system does with a ``.pyc``); the mutated file is
imported from its source as usual. No bytecode file is written (for 185 mutants it was some
5,000 files and 200 MB to write and remove again). Compiling ``model/`` in every child was
most of the time of a mutant.

A mutant that edits a file the case loader itself depends on (``model/state.py``:
the closed vocabularies) reloads the corpus in its child, with the mutated
model, as a separate ``kodex run`` would.

Usage: ``python tests/mutant_worker.py SPEC.json OUT_DIR JOBS``; SPEC is
``{"root": ..., "corpus": ..., "timeout": s, "mutants": [{"id", "copy",
"reload", "only", "prefer", "first_failure"}]}`` (``only``: clause ids — run just the
cases citing them, all the verdict of tests/test_mutations.py reads; ``prefer``: clause
ids — run the cases citing them first, all others after; ``first_failure``: stop at the
first chunk with a failing case, all tests/test_independent_mutants.py needs); each
mutant's answer is ``OUT_DIR/<id>.json``:
``{"broken": [case ids], "totals": {...}, "model": path}`` or ``{"error": text}``.
Exit status 0 when every child was run (the answers say the rest).
"""
from __future__ import annotations

import _imp
import importlib.machinery
import importlib.util
import json
import marshal
import os
import signal
import sys
import time
import traceback
from pathlib import Path


def _forget_model(also_conformance: bool = False) -> None:
    for name in list(sys.modules):
        if name == "model" or name.startswith("model."):
            del sys.modules[name]
        elif also_conformance and (name == "conformance" or name.startswith("conformance.")):
            del sys.modules[name]


def _compile_model(model_dir: Path) -> dict[str, tuple[bytes, bytes]]:
    """file name → (source bytes, marshalled code) of every module of ``model_dir``, compiled
    as the import system compiles a source file (marshalled once here, not in every child)."""
    out = {}
    for path in sorted(model_dir.glob("*.py")):
        source = path.read_bytes()
        out[path.name] = (source, marshal.dumps(compile(source, str(path), "exec", dont_inherit=True)))
    return out


class _CompiledLoader(importlib.machinery.SourceFileLoader):
    """A module of the copy from the code the worker compiled of the same bytes."""

    def __init__(self, fullname: str, path: str, code: bytes) -> None:
        super().__init__(fullname, path)
        self._code = code

    def get_code(self, fullname: str):
        code = marshal.loads(self._code)
        _imp._fix_co_filename(code, self.path)      # tracebacks and __file__ name the copy
        return code


class _CompiledFinder:
    """Finds ``model`` and its modules in ``model_dir`` (a copy) when the file there is byte for
    byte the original; anything else is left to the usual finders (the mutated file)."""

    def __init__(self, model_dir: Path, compiled: dict[str, tuple[bytes, bytes]]) -> None:
        self.dir = model_dir
        self.unchanged: dict[str, bytes] = {}
        for name, (source, code) in compiled.items():
            try:
                if (model_dir / name).read_bytes() == source:
                    self.unchanged[name] = code
            except OSError:
                continue                              # imported from its source, as before

    def find_spec(self, fullname: str, path=None, target=None):
        if fullname == "model":
            name = "__init__.py"
        elif fullname.startswith("model.") and fullname.count(".") == 1:
            name = fullname[len("model."):] + ".py"
        else:
            return None
        code = self.unchanged.get(name)
        if code is None:
            return None
        file = self.dir / name
        return importlib.util.spec_from_file_location(
            fullname, file, loader=_CompiledLoader(fullname, str(file), code),
            submodule_search_locations=[str(self.dir)] if fullname == "model" else None)


def _child(mutant: dict, cases: list, corpus: str, out: Path,
           compiled: dict[str, tuple[bytes, bytes]] | None = None) -> None:
    copy = mutant["copy"]
    sys.dont_write_bytecode = True              # the mutated file: compiled, never written
    if compiled:
        sys.meta_path.insert(0, _CompiledFinder(Path(copy) / "model", compiled))
    _forget_model(also_conformance=bool(mutant.get("reload")))
    sys.path.insert(0, copy)
    import model
    assert model.__file__.startswith(copy), model.__file__
    if mutant.get("reload"):
        from conformance.cli import load_cases
        cases, _errors = load_cases([corpus])
    from conformance.runner import run_cases
    def cites(c, clauses: list[str]) -> bool:
        ids = [c.clause, *(c.also or [])]
        return any(i == p or (isinstance(i, str) and i.startswith(p + ".")) for i in ids for p in clauses)
    only = mutant.get("only")
    if only:                                   # the cases the verdict reads: those citing the clauses
        cases = [c for c in cases if cites(c, only)]
    prefer = mutant.get("prefer")
    if prefer:                                 # the likely killers first; the verdict is the same
        cases = sorted(cases, key=lambda c: not cites(c, prefer))
    broken: list[str] = []
    totals: dict[str, int] = {}
    step = 128 if mutant.get("first_failure") else max(1, len(cases))
    for k in range(0, len(cases), step):       # `first_failure`: stop once a case fails
        report = run_cases(cases[k:k + step], progress=False)
        broken += [oc.case_id for oc in report.outcomes if oc.outcome in ("fail", "error")]
        for name, n in report.totals.items():
            totals[name] = totals.get(name, 0) + n
        if broken and mutant.get("first_failure"):
            break
    out.write_text(json.dumps({"broken": broken, "totals": totals,
                               "model": model.__file__}), encoding="utf-8")


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    out_dir = Path(argv[1])
    jobs = max(1, int(argv[2]))
    root = spec["root"]
    sys.path.insert(0, root)
    from conformance.cli import load_cases
    cases, _errors = load_cases([spec["corpus"]])
    per_mutant = float(spec.get("timeout", 600))
    compiled = _compile_model(Path(root) / "model")
    # what every child imports next, imported once here: these modules import ``model`` only
    # inside their functions, so a child still runs its own copy (each checks model.__file__)
    import conformance.matching  # noqa: F401
    import conformance.runner  # noqa: F401
    import conformance.serve
    conformance.serve.implementation_info()   # the kit's metadata, looked up once for every child

    pending = list(spec["mutants"])
    running: dict[int, tuple[dict, float]] = {}
    while pending or running:
        while pending and len(running) < jobs:
            mutant = pending.pop(0)
            out = out_dir / f"{mutant['id']}.json"
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:                      # the child
                code = 0
                try:
                    _child(mutant, cases, spec["corpus"], out, compiled)
                except BaseException:         # noqa: BLE001 - reported, never raised
                    code = 1
                    try:
                        out.write_text(json.dumps({"error": traceback.format_exc()}),
                                       encoding="utf-8")
                    except OSError:
                        pass
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(code)
            running[pid] = (mutant, time.monotonic() + per_mutant)
        pid, _status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            now = time.monotonic()
            for cpid, (mutant, deadline) in list(running.items()):
                if now > deadline:
                    os.kill(cpid, signal.SIGKILL)
                    os.waitpid(cpid, 0)
                    del running[cpid]
                    (out_dir / f"{mutant['id']}.json").write_text(json.dumps(
                        {"error": f"the run took more than {per_mutant:g} s"}), encoding="utf-8")
            time.sleep(0.02)
            continue
        running.pop(pid, None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
