"""Test-session set-up.

* The loaded-corpus cache (conformance.loader.cache_dir) goes to a temporary directory of
  this session, never the user's cache; it is removed at the end. The xdist workers share the
  one their controller made (entries are written atomically), so the corpus is loaded cold
  once per session, not once per worker. Tests that test the cache itself set their own
  ``KODEX_CACHE_DIR`` under tmp_path.
"""
from __future__ import annotations

import os
import shutil
import tempfile

_CACHE: str | None = None
_OWNER = "KODEX_TEST_SESSION_CACHE"      # set by the process that made the session's cache


def pytest_configure(config) -> None:
    global _CACHE
    shared = os.environ.get(_OWNER)
    if shared and os.environ.get("PYTEST_XDIST_WORKER") and os.path.isdir(shared):
        os.environ["KODEX_CACHE_DIR"] = shared
        os.environ.pop("KODEX_NO_CACHE", None)
        return
    if _CACHE is None:
        _CACHE = tempfile.mkdtemp(prefix="kodex-test-cache-")
        os.environ["KODEX_CACHE_DIR"] = _CACHE
        os.environ[_OWNER] = _CACHE
        os.environ.pop("KODEX_NO_CACHE", None)


def pytest_unconfigure(config) -> None:
    global _CACHE
    if _CACHE is not None:
        shutil.rmtree(_CACHE, ignore_errors=True)
        os.environ.pop(_OWNER, None)
        _CACHE = None

