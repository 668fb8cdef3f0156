"""Malformed ruleset files are refused with an error naming the file and the key
(model/ruleset.py, RulesetError). No case of the corpus can reach these paths: a
case only names a shipped ruleset, so the messages are checked here (the
`input-error` class of properties/strength_equivalent.yaml relies on it)."""
from __future__ import annotations

import pytest

from model import ruleset as R

BASE = R.RULESET_DIR / "kodex.yaml"


@pytest.fixture
def rdir(tmp_path, monkeypatch):
    """A ruleset directory of its own, with a copy of `kodex`; the caches forgotten."""
    (tmp_path / "kodex.yaml").write_text(BASE.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(R, "RULESET_DIR", tmp_path)
    R._ruleset_names.cache_clear()
    R.load_ruleset.cache_clear()
    yield tmp_path
    R._ruleset_names.cache_clear()
    R.load_ruleset.cache_clear()


def _write(d, name, text):
    (d / f"{name}.yaml").write_text(text, encoding="utf-8")


def test_a_copy_of_the_default_loads(rdir):
    rs = R.load_ruleset("kodex")
    assert rs.name == "kodex" and rs.max_hp >= rs.starting_hp > 0


@pytest.mark.parametrize("name, text, words", [
    ("x", "- a list\n", ["x.yaml", "a ruleset is a mapping"]),
    ("x", "name: x\nextends: kodex\nstarting_hpp: 3\n", ["x.yaml", "unknown key", "starting_hpp"]),
    ("x", "name: y\nextends: kodex\n", ["x.yaml", "field 'name' must be 'x'"]),
    ("x", "name: x\nextends: x\n", ["x.yaml", "extends itself", "x -> x"]),
    ("x", "name: x\nextends: nowhere\n", ["unknown ruleset 'nowhere'", "known:", "kodex"]),
    ("x", "name: x\nstarting_hp: 20\n", ["x.yaml", "missing key"]),
    ("x", "name: x\nextends: kodex\nmax_hp: lots\n", ["x.yaml", "lots"]),
    ("x", "name: x\nextends: kodex\nvp_income: 3\n", ["x.yaml"]),
])
def test_a_malformed_ruleset_is_refused_naming_file_and_key(rdir, name, text, words):
    _write(rdir, name, text)
    R._ruleset_names.cache_clear()
    with pytest.raises(R.RulesetError) as err:
        R.load_ruleset(name)
    for w in words:
        assert w in str(err.value), (w, str(err.value))


def test_an_unknown_ruleset_names_the_known_ones(rdir):
    with pytest.raises(R.RulesetError, match=r"unknown ruleset 'nope' \(known: kodex\)"):
        R.load_ruleset("nope")


def test_a_conflict_without_a_reading_is_an_error(rdir):
    rs = R.load_ruleset("kodex")
    with pytest.raises(R.RulesetError, match="names no reading for conflict 'no-such-conflict'"):
        rs.reading("no-such-conflict")


def test_an_extending_ruleset_merges_readings(rdir):
    base = R.load_ruleset("kodex")
    some = next(iter(base.readings), None)
    if some is None:
        pytest.skip("the default ruleset records no reading")
    _write(rdir, "x", f"name: x\nextends: kodex\nmax_hp: 25\nreadings: {{{some}: other}}\n")
    R._ruleset_names.cache_clear()
    rs = R.load_ruleset("x")
    assert rs.max_hp == 25 and rs.starting_hp == base.starting_hp
    assert rs.reading(some) == "other"
    assert {k: v for k, v in rs.readings.items() if k != some} == \
        {k: v for k, v in base.readings.items() if k != some}
