"""The test session's directories (tests/conftest.py sets them up; see its docstring).

Kept apart from conftest.py so that ``make clean`` can find the kept directory with a plain
Python (no pytest).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

OWNER = "KODEX_TEST_SESSION_CACHE"      # set by the process that made the session's scratch dir
KEPT = "KODEX_TEST_KEPT_CACHE"          # the directory kept between sessions ("" when none)
ROOT = Path(__file__).resolve().parents[1]
KEPT_FILES_MAX = 5_000     # a kept cache holding more files than this is emptied (rebuilt in one session)


def private_dir(path: str) -> bool:
    """``path`` is (now) a directory of this user that nobody else may write to."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022


def kept_dir() -> str | None:
    """The directory kept between sessions, or None (``KODEX_TEST_CACHE=off``, not POSIX, or
    not safe)."""
    want = os.environ.get("KODEX_TEST_CACHE", "")
    if want.lower() in ("off", "0", "no") or os.name != "posix":
        return None
    if want:
        return want if private_dir(want) else None
    top = os.path.join(tempfile.gettempdir(), f"hkk-kodex-tests-{os.getuid()}")
    clone = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    if not (private_dir(top) and private_dir(os.path.join(top, clone))):
        return None
    return os.path.join(top, clone)


def under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def tidy(kept: str) -> None:
    """Keep the kept directory bounded. The bytecode mirror (``pycache``: a source's directory
    ``/a/b`` is mirrored as ``pycache/a/b``) loses the directories whose source directory is
    gone or lies in the temporary directory (outside the clone: per session anyway); a cache
    with more than ``KEPT_FILES_MAX`` entries is emptied."""
    prefix = os.path.join(kept, "pycache")
    root = str(ROOT)
    temps = {tempfile.gettempdir(), os.path.realpath(tempfile.gettempdir())}
    for top, dirs, _files in os.walk(prefix):
        real_top = os.sep + os.path.relpath(top, prefix) if top != prefix else os.sep
        for d in list(dirs):
            real = os.path.join(real_top, d)
            towards_clone = under(root, real) or under(real, root)
            if os.path.isdir(real) and (towards_clone or not any(under(real, t) for t in temps)):
                continue
            shutil.rmtree(os.path.join(top, d), ignore_errors=True)
            dirs.remove(d)
    for name in ("corpus", "hypothesis-constants"):
        path = os.path.join(kept, name)
        try:
            with os.scandir(path) as it:
                too_many = sum(1 for _ in it) > KEPT_FILES_MAX
        except OSError:
            continue
        if too_many:
            shutil.rmtree(path, ignore_errors=True)


def link_constants(session_dir: str, kept: str) -> None:
    """Hypothesis's cache of the constants of the local modules (keyed by their source's hash)
    is kept; its example database stays the session's."""
    hyp = os.path.join(session_dir, "hypothesis")
    os.makedirs(hyp, exist_ok=True)
    target = os.path.join(kept, "hypothesis-constants")
    os.makedirs(target, exist_ok=True)
    try:
        os.symlink(target, os.path.join(hyp, "constants"))
    except OSError:
        pass                                  # no symlinks here: the constants are per session


def use(session_dir: str, kept: str | None) -> None:
    """Point this process (and what it starts) at the session's directories."""
    base = kept or session_dir
    os.environ["KODEX_CACHE_DIR"] = os.path.join(base, "corpus")
    os.environ.pop("KODEX_NO_CACHE", None)
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = os.path.join(session_dir, "hypothesis")
    os.environ["PYTHONPYCACHEPREFIX"] = os.path.join(base, "pycache")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    if kept:
        # this process's own imports from now on (the test modules, rewritten by pytest, and
        # the kit's modules they import)
        sys.pycache_prefix = os.path.join(kept, "pycache")
        sys.dont_write_bytecode = False
