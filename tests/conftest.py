"""Test-session set-up.

* The loaded-corpus cache (conformance.loader.cache_dir) goes to a temporary directory of
  this session, never the user's cache; it is removed at the end. The xdist workers share the
  one their controller made (entries are written atomically), so the corpus is loaded cold
  once per session, not once per worker. Tests that test the cache itself set their own
  ``KODEX_CACHE_DIR`` under tmp_path.
* Hypothesis keeps what it stores (its example database, the constants it collects) under the
  same directory (``HYPOTHESIS_STORAGE_DIRECTORY``), not in ``.hypothesis/`` of the clone.
* The Python programs the tests start (``kodex run``, ``kodex serve``, the mutant workers, the
  hostile implementations) keep their bytecode under it too (``PYTHONPYCACHEPREFIX``, bytecode
  writing on for them only): each compiles the kit's modules once per session instead of once
  per program. The test processes themselves are left as they started.
"""
from __future__ import annotations

import os
import shutil
import tempfile

_CACHE: str | None = None
_OWNER = "KODEX_TEST_SESSION_CACHE"      # set by the process that made the session's cache


def _use(session_dir: str) -> None:
    os.environ["KODEX_CACHE_DIR"] = os.path.join(session_dir, "corpus")
    os.environ.pop("KODEX_NO_CACHE", None)
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = os.path.join(session_dir, "hypothesis")
    os.environ["PYTHONPYCACHEPREFIX"] = os.path.join(session_dir, "pycache")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def pytest_configure(config) -> None:
    global _CACHE
    shared = os.environ.get(_OWNER)
    if shared and os.environ.get("PYTEST_XDIST_WORKER") and os.path.isdir(shared):
        _use(shared)
        return
    if _CACHE is None:
        _CACHE = tempfile.mkdtemp(prefix="kodex-test-cache-")
        os.environ[_OWNER] = _CACHE
        _use(_CACHE)


def pytest_unconfigure(config) -> None:
    global _CACHE
    if _CACHE is not None:
        shutil.rmtree(_CACHE, ignore_errors=True)
        os.environ.pop(_OWNER, None)
        _CACHE = None


# The order the files are handed out in. `make test` gives each xdist worker whole files
# (--dist loadfile: a file's module fixtures are set up once) in the order collected, without
# xdist's reordering: the files that take seconds go first, heaviest first, so that the workers
# finish together instead of one of them running a long file at the end while the other waits.
# The corpus's own files follow (fine-grained, they fill the end). A file not named here keeps
# its collected place after these; a stale entry only costs time, never a test.
HEAVY_FIRST = (
    "test_prove.py", "test_report_browser.py", "test_hostile_runner.py", "test_pipeline.py",
    "test_strength.py", "test_mutations.py", "test_report.py", "test_hostile_inputs.py",
    "test_independent_mutants.py", "test_properties.py", "test_z3_numbers.py", "test_loader.py",
    "test_invariant_mutations.py", "test_load_cache.py", "test_schema_fast_path.py", "test_signals.py",
)


def pytest_collection_modifyitems(config, items) -> None:
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
