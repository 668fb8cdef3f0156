"""The loaded-corpus cache of conformance/loader.py (issue 10): keyed by content,
never trusted blindly, the same cases and the same input errors with and without
it, off with KODEX_NO_CACHE=1, and never the user's cache in tests."""
from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from conformance import loader
from conformance.loader import load_files

ROOT = Path(__file__).resolve().parents[1]

GOOD = """\
format: hkk-case/1
cases:
  - id: "c/heal"
    clause: "3.18"
    also: ["4.2"]
    title: "Healing stops at the maximum"
    given: {players: {A: {hp: 18}}}
    when: [{heal: {target: A, amount: 5}}]
    then: {players: {A: {hp: 20}}}
"""

# errors of several kinds: a bad field, an undefined card, a clause not in the
# catalog, a duplicate id (across files), a date, and one good case
BAD = """\
format: hkk-case/1
cases:
  - id: "c/heal"
    clause: "3.18"
    title: "again"
    given: {players: {A: {hp: 18}}}
    when: [{heal: {target: A, amount: 5}}]
    then: {players: {A: {hp: 20}}}
  - id: "c/undefined"
    clause: "4.8.4"
    title: "t"
    given: {players: {A: {hand: [nope]}}}
    when: []
    then: {}
  - id: "c/no-such-clause"
    clause: "999.999"
    title: "t"
    given: {}
    when: []
    then: {}
  - id: "c/unknown-field"
    clause: "3.18"
    title: "t"
    colour: red
    given: {}
    when: []
    then: {}
  - id: "c/date"
    clause: "3.18"
    title: 2024-01-01
    given: {}
    when: []
    then: {}
  - id: "c/fine"
    clause: "3.18"
    title: "fine"
    also: ["4.2", "4.8.4"]
    given: {players: {A: {hp: 3}}}
    when: [{heal: {target: A, amount: 1}}]
    then: {players: {A: {hp: 4}}}
"""


def _plain(result) -> tuple:
    return ([dataclasses.asdict(c) for c in result.cases], [str(e) for e in result.errors],
            [dataclasses.astuple(e) for e in result.errors], [str(f) for f in result.files])


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    where = tmp_path / "cache"
    monkeypatch.setenv("KODEX_CACHE_DIR", str(where))
    monkeypatch.delenv("KODEX_NO_CACHE", raising=False)
    return where


@pytest.fixture
def files(tmp_path) -> list[Path]:
    a = tmp_path / "cases" / "a.yaml"
    b = tmp_path / "cases" / "b.yaml"
    a.parent.mkdir()
    a.write_text(GOOD, encoding="utf-8")
    b.write_text(BAD, encoding="utf-8")
    return [a, b]


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.json")) if cache.exists() else []


def test_tests_never_use_the_users_cache():
    where = loader.cache_dir()
    assert where is not None
    home = Path.home() / ".cache" / "hkk-kodex"
    assert Path(where).resolve() != home.resolve()


def test_cache_dir_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("KODEX_NO_CACHE", raising=False)
    monkeypatch.setenv("KODEX_CACHE_DIR", str(tmp_path / "x"))
    assert loader.cache_dir() == tmp_path / "x"
    monkeypatch.delenv("KODEX_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert loader.cache_dir() == tmp_path / "xdg" / "hkk-kodex"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/not/allowed")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert loader.cache_dir() == tmp_path / "home" / ".cache" / "hkk-kodex"
    monkeypatch.setenv("KODEX_NO_CACHE", "1")
    assert loader.cache_dir() is None
    monkeypatch.setenv("KODEX_NO_CACHE", "0")
    assert loader.cache_dir() == tmp_path / "home" / ".cache" / "hkk-kodex"


def test_same_cases_and_errors_cold_warm_and_without(cache, files, monkeypatch):
    cold = _plain(load_files(files))
    assert _entries(cache), "the first load fills the cache"
    warm = _plain(load_files(files))
    monkeypatch.setenv("KODEX_NO_CACHE", "1")
    without = _plain(load_files(files))
    assert cold == warm == without
    cases, messages = without[0], without[1]
    assert [c["id"] for c in cases] == ["c/heal", "c/fine"]
    assert sum("missing required" in m for m in messages) == 0
    assert any("duplicate case id 'c/heal'" in m for m in messages)
    assert any("'999.999' is not in the Kódex catalog" in m for m in messages)
    assert any("undefined card id 'nope'" in m for m in messages)
    assert any("colour" in m for m in messages)
    assert any("date/time" in m for m in messages)


def test_the_whole_corpus_is_the_same_with_and_without(cache, monkeypatch):
    cold = _plain(load_files())
    warm = _plain(load_files())
    monkeypatch.setenv("KODEX_NO_CACHE", "1")
    assert cold == warm == _plain(load_files())


def test_no_cache_writes_nothing(cache, files, monkeypatch):
    monkeypatch.setenv("KODEX_NO_CACHE", "1")
    load_files(files)
    assert not cache.exists()


def test_a_changed_file_is_read_again(cache, files):
    load_files(files)
    n = len(_entries(cache))
    files[0].write_text(GOOD.replace("amount: 5", "amount: 6"), encoding="utf-8")
    result = load_files(files)
    assert result.cases[0].when == [{"heal": {"target": "A", "amount": 6}}]
    assert len(_entries(cache)) == n + 1


def test_the_catalog_is_checked_live(cache, files):
    """The catalog is not part of an entry: a catalog that knows every clause
    accepts what the project's catalog refused, with the same cache."""
    load_files(files)

    class Every:
        def __contains__(self, item):
            return True
    result = load_files(files, catalog=Every())
    assert "c/no-such-clause" in [c.id for c in result.cases]
    assert not any("Kódex catalog" in e.message for e in result.errors)


@pytest.mark.parametrize("damage", [
    b"", b"not json", b"[]", b"{}", b"\xff\xfe", b"[" * 100000,
    "corrupt-shape", "foreign-key", "wrong-name", "bad-case",
])
def test_a_corrupt_or_foreign_entry_is_ignored_and_rebuilt(cache, files, damage):
    expected = _plain(load_files(files))
    for entry in _entries(cache):
        if isinstance(damage, bytes):
            entry.write_bytes(damage)
            continue
        data = json.loads(entry.read_text(encoding="utf-8"))
        if damage == "corrupt-shape":
            data["errors"] = [[1, 2, 3]]
        elif damage == "foreign-key":
            data["key"] = "0" * 64
            data["valid"] = []
        elif damage == "wrong-name":
            data["name"] = "elsewhere.yaml"
        elif damage == "bad-case":
            for item in data["valid"]:
                item[1]["clause"] = 42
        entry.write_text(json.dumps(data), encoding="utf-8")
    assert _plain(load_files(files)) == expected
    # and rebuilt: a well-formed entry again
    for entry in _entries(cache):
        data = json.loads(entry.read_text(encoding="utf-8"))
        assert data["format"] == loader.CACHE_FORMAT
    assert _plain(load_files(files)) == expected


def test_an_unwritable_cache_is_skipped(tmp_path, files, monkeypatch):
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("KODEX_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.delenv("KODEX_NO_CACHE", raising=False)
    result = load_files(files)
    assert [c.id for c in result.cases] == ["c/heal", "c/fine"]


def test_an_oversized_entry_is_not_read(cache, files, monkeypatch):
    expected = _plain(load_files(files))
    monkeypatch.setattr(loader, "MAX_CACHE_ENTRY_BYTES", 10)
    assert _plain(load_files(files)) == expected


def test_limits_still_apply_before_the_cache(cache, tmp_path, monkeypatch):
    big = tmp_path / "big.yaml"
    big.write_text(GOOD, encoding="utf-8")
    load_files([big])
    monkeypatch.setattr(loader, "MAX_FILE_BYTES", 100)
    result = load_files([big])
    assert not result.cases
    assert "MAX_FILE_BYTES" in str(result.errors[0])


def test_the_key_covers_the_checks_sources(monkeypatch):
    before = loader._fingerprint()
    assert loader._entry_key("a.yaml", b"x") != loader._entry_key("b.yaml", b"x")
    assert loader._entry_key("a.yaml", b"x") != loader._entry_key("a.yaml", b"y")
    loader._fingerprint.cache_clear()
    monkeypatch.setattr(loader, "SCHEMA_PATHS", {**loader.SCHEMA_PATHS, 2: Path(__file__)})
    try:
        assert loader._fingerprint() != before
    finally:
        loader._fingerprint.cache_clear()   # the next caller computes it from the real schema


def test_loading_hands_the_frozen_cases_back_and_keeps_a_callers_freeze(files):
    """load_files moves the cases loaded so far out of the cycle collector's view after each
    file (a speed measure, benchmarks/bench_engine.py --corpus-scaling) and hands them back at
    the end; a caller that froze objects itself keeps exactly its own freeze."""
    import gc
    assert gc.get_freeze_count() == 0
    res = load_files(files)
    assert res.files and gc.get_freeze_count() == 0
    gc.freeze()
    try:
        mine = gc.get_freeze_count()
        assert mine > 0
        load_files(files)
        assert gc.get_freeze_count() == mine
    finally:
        gc.unfreeze()
