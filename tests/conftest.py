"""Test-session set-up: the loaded-corpus cache (conformance.loader.cache_dir)
goes to a temporary directory of this session, never the user's cache; it is
removed at the end. Tests that test the cache itself set their own
``KODEX_CACHE_DIR`` under tmp_path."""
from __future__ import annotations

import os
import shutil
import tempfile

_CACHE: str | None = None


def pytest_configure(config) -> None:
    global _CACHE
    if _CACHE is None:
        _CACHE = tempfile.mkdtemp(prefix="kodex-test-cache-")
        os.environ["KODEX_CACHE_DIR"] = _CACHE
        os.environ.pop("KODEX_NO_CACHE", None)


def pytest_unconfigure(config) -> None:
    global _CACHE
    if _CACHE is not None:
        shutil.rmtree(_CACHE, ignore_errors=True)
        _CACHE = None
