"""The test session's caches (tests/session_cache.py, tests/report_helpers.py).

What is kept between sessions lives in a directory of the user's own that nobody else may
write to (bytecode from it is executed), stays bounded, and can be turned off; what the
xdist workers share within a session is built once and read by the others.
"""
from __future__ import annotations

import os
import stat
import sys

import pytest

import report_helpers
import session_cache as sc


posix = pytest.mark.skipif(os.name != "posix", reason="the kept directory is POSIX only")


@posix
def test_kept_dir_is_private_or_not_used(tmp_path, monkeypatch):
    mine = tmp_path / "mine"
    monkeypatch.setenv("KODEX_TEST_CACHE", str(mine))
    assert sc.kept_dir() == str(mine)
    assert stat.S_IMODE(mine.stat().st_mode) & 0o077 == 0          # made 0700
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)                                             # others may plant bytecode
    monkeypatch.setenv("KODEX_TEST_CACHE", str(shared))
    assert sc.kept_dir() is None
    link = tmp_path / "link"
    link.symlink_to(mine)                                           # not a directory of its own
    monkeypatch.setenv("KODEX_TEST_CACHE", str(link))
    assert sc.kept_dir() is None
    for off in ("off", "0", "no", "OFF"):
        monkeypatch.setenv("KODEX_TEST_CACHE", off)
        assert sc.kept_dir() is None


@posix
def test_default_kept_dir_is_per_user_and_clone_under_the_temp_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("KODEX_TEST_CACHE", raising=False)
    monkeypatch.setattr(sc.tempfile, "gettempdir", lambda: str(tmp_path))
    kept = sc.kept_dir()
    assert kept is not None and kept.startswith(str(tmp_path))
    assert os.path.basename(os.path.dirname(kept)) == f"hkk-kodex-tests-{os.getuid()}"
    assert not kept.startswith(str(sc.ROOT))                 # never inside the clone


def _mirror(prefix, source_dir) -> "os.PathLike":
    d = prefix / str(source_dir).lstrip("/")
    d.mkdir(parents=True, exist_ok=True)
    (d / "m.cpython-311.pyc").write_bytes(b"x")
    return d


@posix
def test_tidy_keeps_the_clone_and_installed_code_drops_temporary_and_gone_sources(tmp_path, monkeypatch):
    kept = tmp_path / "kept"
    prefix = kept / "pycache"
    temp = tmp_path / "temp"
    (temp / "copy" / "model").mkdir(parents=True)
    (temp / "clone" / "model").mkdir(parents=True)                  # a fresh clone in the temp dir
    monkeypatch.setattr(sc.tempfile, "gettempdir", lambda: str(temp))
    monkeypatch.setattr(sc, "ROOT", temp / "clone")
    clone = _mirror(prefix, temp / "clone" / "model")
    stdlib = _mirror(prefix, os.path.dirname(os.__file__))
    copy = _mirror(prefix, temp / "copy" / "model")                 # a mutant's copy: per session
    gone = _mirror(prefix, temp / "clone" / "no-such-dir")
    corpus, constants = kept / "corpus", kept / "hypothesis-constants"
    corpus.mkdir()
    constants.mkdir()
    for i in range(4):
        (corpus / f"e{i}.json").write_text("{}")
    (constants / "c0").write_text("")
    monkeypatch.setattr(sc, "KEPT_FILES_MAX", 3)
    sc.tidy(str(kept))
    assert (clone / "m.cpython-311.pyc").is_file() and (stdlib / "m.cpython-311.pyc").is_file()
    assert not copy.exists() and not gone.exists()
    assert not corpus.exists()                                      # over the limit: emptied
    assert (constants / "c0").is_file()                             # under it: kept


def test_the_session_uses_the_kept_dir_for_bytecode_and_the_corpus():
    kept = os.environ.get("KODEX_TEST_KEPT_CACHE")
    session = os.environ["KODEX_TEST_SESSION_CACHE"]
    assert os.environ["HYPOTHESIS_STORAGE_DIRECTORY"].startswith(session)   # examples: per session
    if not kept:
        assert os.environ["PYTHONPYCACHEPREFIX"].startswith(session)
        pytest.skip("KODEX_TEST_CACHE=off or no private temporary directory: nothing is kept")
    assert sys.pycache_prefix == os.environ["PYTHONPYCACHEPREFIX"] == os.path.join(kept, "pycache")
    assert os.environ["KODEX_CACHE_DIR"] == os.path.join(kept, "corpus")


def test_shared_json_is_built_once_per_session(tmp_path, monkeypatch):
    calls = []

    def build():
        calls.append(1)
        return {"n": len(calls), "t": (1, 2)}
    monkeypatch.setenv("KODEX_TEST_SESSION_CACHE", str(tmp_path))
    first = report_helpers.shared_json("thing", build)
    second = report_helpers.shared_json("thing", build)
    assert calls == [1]
    assert first == second == {"n": 1, "t": [1, 2]}                  # both as JSON reads it
    assert sorted(p.name for p in (tmp_path / "shared").iterdir()) == ["thing.json", "thing.lock"]
    monkeypatch.delenv("KODEX_TEST_SESSION_CACHE")
    assert report_helpers.shared_json("thing", build) == {"n": 2, "t": (1, 2)}   # no session: built
