"""The fast path of case validation (conformance/loader.py, ``_fast_validator``): a document
jsonschema-rs accepts is taken as valid without jsonschema. That is sound only if
jsonschema-rs never accepts what jsonschema rejects, so both validators judge the corpus and
perturbed copies of its cases (fields dropped, unknown fields added, values of every other
type, strings that the two regex dialects read differently), and every document the fast
path accepts must be valid for jsonschema too. Without jsonschema-rs the loader still
reports the same errors."""
from __future__ import annotations

import copy
import functools
import random
import sys
from pathlib import Path

import pytest
import yaml

from conformance import loader

ROOT = Path(__file__).resolve().parents[1]
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# values put in place of a field's value: every JSON type, edge numbers, strings that
# Python's re and Rust's regex read differently ($ before a newline, Unicode digits)
# a case file whose only fault is a field no schema names
BAD = ("format: hkk-case/1\ncases:\n  - id: 4.1/x\n    clause: \"4.1\"\n    title: t\n"
       "    given: {}\n    when: []\n    then: {}\n    colour: red\n")
ODD_VALUES = [None, True, False, 0, -1, 1.5, 2 ** 70, "", "x", "4.1\n", "4.\u0663", "rb7:\u00e9",
              "mk:5.10.A\n", [], [1], {}, {"x": 1}]


@functools.lru_cache(maxsize=1)
def _docs() -> list[dict]:
    return [yaml.load(p.read_text(encoding="utf-8"), Loader=_Loader)
            for p in sorted((ROOT / "conformance" / "corpus").rglob("*.yaml"))]


def _paths(node, path=()):
    """Every (path, container) place in a case where a field or item sits."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield path + (k,)
            yield from _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield path + (i,)
            yield from _paths(v, path + (i,))


def _perturbed(case: dict, rng: random.Random, n: int):
    places = list(_paths(case))
    for _ in range(n):
        c = copy.deepcopy(case)
        path = rng.choice(places)
        parent = c
        for seg in path[:-1]:
            parent = parent[seg]
        last = path[-1]
        how = rng.randrange(3)
        if how == 0 and isinstance(parent, dict):
            del parent[last]                       # a field dropped
        elif how == 1 and isinstance(parent, dict):
            parent["zz_unknown"] = 1               # a field no schema names
        else:
            parent[last] = copy.deepcopy(rng.choice(ODD_VALUES))
        yield {"format": "hkk-case/1", "cases": [c]}


@pytest.fixture(scope="module")
def fast():
    v = loader._fast_validator()
    if v is None:
        pytest.skip("jsonschema-rs is not installed: jsonschema alone decides")
    return v


def test_the_corpus_is_valid_for_both(fast) -> None:
    # every file for jsonschema-rs; every third case of each for jsonschema (each verb and
    # event of the corpus appears in many cases; the whole corpus would cost 2.5 s)
    docs = _docs()
    assert len(docs) > 40
    for d in docs:
        version = int(str(d["format"]).rsplit("/", 1)[1])     # each file by the schema of its format
        assert (loader._fast_validator(version) or fast).is_valid(d), d["cases"][0]["id"]
        part = {**d, "cases": d["cases"][::3]}
        assert part["cases"] and loader._validator(version).is_valid(part), d["cases"][0]["id"]


def test_what_the_fast_path_accepts_jsonschema_accepts(fast) -> None:
    rng = random.Random(20261125)
    cases = [c for d in _docs() for c in d["cases"]]
    checked = rejected = 0
    for case in rng.sample(cases, 120):
        for doc in _perturbed(case, rng, 8):
            fast_ok = loader._fast_valid(doc)
            py_ok = loader._validator().is_valid(doc)
            assert not fast_ok or py_ok, ("jsonschema-rs accepted what jsonschema rejects",
                                          doc["cases"][0].get("id"))
            checked += 1
            rejected += not py_ok
    # the perturbations must reach the invalid side, or the check above says nothing
    assert checked == 960 and rejected > checked // 4, (checked, rejected)


@pytest.mark.parametrize("text", ["4.1\n", "4.\u0663"])
def test_clause_strings_the_dialects_differ_on(fast, text) -> None:
    case = copy.deepcopy(_docs()[0]["cases"][0])
    case["clause"] = text
    doc = {"format": "hkk-case/1", "cases": [case]}
    assert not loader._fast_valid(doc) or loader._validator().is_valid(doc)


def test_without_jsonschema_rs_the_errors_are_the_same(monkeypatch) -> None:
    with_fast = [(e.file, e.line, e.pointer, e.message) for e in loader.load_text(BAD, "b.yaml").errors]
    assert with_fast and any("colour" in m for *_, m in with_fast)
    loader._fast_validator.cache_clear()
    monkeypatch.setitem(sys.modules, "jsonschema_rs", None)   # import fails
    try:
        assert loader._fast_validator() is None
        without = [(e.file, e.line, e.pointer, e.message) for e in loader.load_text(BAD, "b.yaml").errors]
        assert without == with_fast
        good = next((ROOT / "conformance" / "corpus").glob("*.yaml"))
        assert loader.load_text(good.read_text(encoding="utf-8"), good.name).cases
    finally:
        loader._fast_validator.cache_clear()


def test_a_fast_validator_that_raises_leaves_the_verdict_to_jsonschema(monkeypatch) -> None:
    class Raising:
        def is_valid(self, data):
            raise BaseException("a panic of the Rust side")   # pyo3's PanicException is one

    monkeypatch.setattr(loader, "_fast_validator", lambda version=1: Raising())
    errors = loader.load_text(BAD, "b.yaml").errors
    assert any("colour" in e.message for e in errors)
    good = next((ROOT / "conformance" / "corpus").glob("*.yaml"))
    res = loader.load_text(good.read_text(encoding="utf-8"), good.name)
    assert res.cases and not res.errors
