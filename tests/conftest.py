"""Test-session set-up.

* The session's scratch directory (a new temporary directory, removed at the end): Hypothesis
  keeps its example database there (``HYPOTHESIS_STORAGE_DIRECTORY``), not in ``.hypothesis/``
  of the clone, and so does the bytecode when nothing is kept (below).
* What does not change from one session to the next is kept between sessions, outside the
  clone, in a per-user, per-clone directory of the system's temporary directory
  (``$TMPDIR/hkk-kodex-tests-<uid>/<clone>``; ``KODEX_TEST_CACHE=DIR`` puts it elsewhere,
  ``KODEX_TEST_CACHE=off`` keeps everything per session): the loaded-corpus cache
  (``KODEX_CACHE_DIR``: content-keyed, entries written atomically), the constants Hypothesis
  collects from the kit's modules (keyed by the source's hash), and bytecode: the test
  processes' own (``sys.pycache_prefix``: the kit's modules and pytest's assertion-rewritten
  test modules) and that of the Python programs the tests start (``kodex run``, ``kodex
  serve``, the mutant workers, the hostile implementations: ``PYTHONPYCACHEPREFIX``, bytecode
  writing on for them), checked against the source as the import system and pytest always do.
  Only a directory of the user's own that nobody else may write to is used (bytecode from it
  is executed), and only on POSIX. It stays bounded: at each session's start and end, the
  bytecode of sources in the temporary directory (the mutated copies of ``model/``, the tiny
  engines of the strength tests) and of sources that are gone is removed, and a cache with too
  many entries is emptied. The xdist workers share the controller's directories. Tests that
  test the cache itself set their own ``KODEX_CACHE_DIR`` under tmp_path.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

import session_cache as sc

_CACHE: str | None = None


def pytest_configure(config) -> None:
    global _CACHE
    shared = os.environ.get(sc.OWNER)
    if shared and os.environ.get("PYTEST_XDIST_WORKER") and os.path.isdir(shared):
        sc.use(shared, os.environ.get(sc.KEPT) or None)
        return
    if _CACHE is None:
        _CACHE = tempfile.mkdtemp(prefix="kodex-test-cache-")
        kept = sc.kept_dir()
        os.environ[sc.OWNER] = _CACHE
        os.environ[sc.KEPT] = kept or ""
        if kept:
            sc.tidy(kept)
            sc.link_constants(_CACHE, kept)
        sc.use(_CACHE, kept)


def pytest_unconfigure(config) -> None:
    global _CACHE
    if _CACHE is not None:
        shutil.rmtree(_CACHE, ignore_errors=True)
        kept = os.environ.get(sc.KEPT)
        if kept:
            sc.tidy(kept)
        os.environ.pop(sc.OWNER, None)
        os.environ.pop(sc.KEPT, None)
        _CACHE = None


# The order the files are handed out in. `make test` gives each xdist worker whole files
# (--dist loadfile: a file's module fixtures are set up once) in the order collected, without
# xdist's reordering. The files that spend their time waiting on deadlines and timeouts
# (WAITING: a few CPU-seconds in 40 s) go to one worker as one unit, first; the files that take
# CPU-seconds follow, heaviest first, on the other workers, so that the waiting overlaps with
# work instead of two workers waiting at once while a core idles. The corpus's own files
# follow (fine-grained, they fill the end). A file not named here keeps its collected place
# after these; a stale entry only costs time, never a test.
WAITING = ("test_hostile_runner.py", "test_pipeline.py", "test_strength.py")
HEAVY_FIRST = WAITING + (
    "test_prove.py", "test_report_browser.py", "test_mutations.py", "test_independent_mutants.py",
    "test_hostile_inputs.py", "test_report.py", "test_properties.py", "test_z3_numbers.py",
    "test_hostile_reports.py", "test_invariant_mutations.py", "test_load_cache.py", "test_loader.py",
    "test_schema_fast_path.py", "test_signals.py",
)


def pytest_collection_modifyitems(config, items) -> None:
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """--dist loadfile, with the WAITING files as one unit of work (pytest-xdist's hook)."""
    if config.getoption("dist", None) != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class WaitingTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return "(waiting)" if Path(scope).name in WAITING else scope
    return WaitingTogether(config, log)
