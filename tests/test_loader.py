"""conformance/loader.py: loading hkk-case/1 files, every input-error kind
with its line and JSON pointer (docs/spec/hkk-case-format.md), and the pytest
plugin (conformance/pytest_plugin.py) that turns the corpus into test items."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conformance import loader
from conformance.loader import Case, InputError, LoadResult, load_files, load_text

ROOT = Path(__file__).resolve().parents[1]


class AnyClause:
    """A fake catalog that knows every clause."""

    def __contains__(self, item):
        return True


ANY = AnyClause()


def load(text: str, catalog=ANY, name="t.yaml") -> LoadResult:
    return load_text(textwrap.dedent(text).lstrip("\n"), name=name, catalog=catalog)


def line_of(text: str, needle: str, nth: int = 1) -> int:
    """1-based line of the nth line containing needle (in the text as load()
    passes it on: dedented, leading newlines stripped)."""
    seen = 0
    for i, line in enumerate(textwrap.dedent(text).lstrip("\n").splitlines(), 1):
        if needle in line:
            seen += 1
            if seen == nth:
                return i
    raise AssertionError(f"{needle!r} not in text")


def only_error(res: LoadResult) -> InputError:
    assert len(res.errors) == 1, [str(e) for e in res.errors]
    return res.errors[0]


def ids(res: LoadResult) -> list[str]:
    return [c.id for c in res.cases]


HEAD = """
format: hkk-case/1
cases:
"""

GOOD = HEAD + """
  - id: "3.18/heal-stops-at-cap"
    clause: "3.18"
    also: ["4.26"]
    title: "Healing never lifts Ep above 20; the excess is lost"
    given:
      players:
        A: {hp: 18}
    when:
      - heal: {target: A, amount: 5}
    then:
      players:
        A: {hp: 20}
  - id: second
    clause: "rb7:anti-magia"
    title: "second case"
    rulesets: [kodex]
    tags: [smoke]
    then: {}
"""


# --------------------------------------------------------------------------
# valid input

def test_valid_file_loads_into_cases():
    res = load(GOOD)
    assert res.errors == [] and res.ok
    c0, c1 = res.cases
    assert isinstance(c0, Case)
    assert c0.id == "3.18/heal-stops-at-cap" and c0.clause == "3.18" and c0.also == ["4.26"]
    assert c0.title.startswith("Healing") and c0.rulesets == [] and c0.tags == []
    assert c0.given == {"players": {"A": {"hp": 18}}}
    assert c0.when == [{"heal": {"target": "A", "amount": 5}}]
    assert c0.then == {"players": {"A": {"hp": 20}}}
    assert c0.file == "t.yaml" and c0.index == 0
    assert c0.line == line_of(GOOD, '- id: "3.18/')
    assert c1.index == 1 and c1.line == line_of(GOOD, "- id: second")
    assert c1.rulesets == ["kodex"] and c1.tags == ["smoke"] and c1.given == {} and c1.when == []


def test_spec_example_loads():
    spec = (ROOT / "docs" / "spec" / "hkk-case-format.md").read_text(encoding="utf-8")
    example = spec.split("```yaml\n", 1)[1].split("```", 1)[0]
    res = load_text(example, catalog=ANY)
    assert res.errors == [] and ids(res) == ["3.18/heal-stops-at-cap"]


def test_input_error_str_and_fields():
    e = InputError("a.yaml", 7, "/cases/3/when/0/heal/amount", "amount", "bad")
    assert str(e) == "a.yaml:7: /cases/3/when/0/heal/amount: bad"
    with pytest.raises(Exception):
        e.line = 3          # frozen


# --------------------------------------------------------------------------
# YAML level

def test_yaml_syntax_error_line():
    text = HEAD + """
  - id: a
    clause: "1"
    title: [unclosed
    then: {}
"""
    e = only_error(load(text))
    assert e.pointer == "" and e.field == ""
    assert "syntax" in e.message
    assert e.line in (line_of(text, "title: [unclosed"), line_of(text, "then: {}"))
    assert load(text).cases == []


def test_yaml_syntax_error_bad_indentation_line():
    text = HEAD + """
  - id: a
    clause: "1"
     title: x
    then: {}
"""
    e = only_error(load(text))
    assert e.line == line_of(text, "title: x")


def test_python_object_tag_is_refused_and_never_run(tmp_path):
    marker = tmp_path / "pwned"
    text = HEAD + f"""
  - id: ok
    clause: "1"
    title: fine
    then: {{}}
  - id: evil
    clause: "1"
    title: evil
    then: !!python/object/apply:os.system ["touch {marker}"]
"""
    res = load(text)
    e = only_error(res)
    assert not marker.exists()
    assert e.pointer == "/cases/1/then" and e.field == "then"
    assert e.line == line_of(text, "!!python")
    assert "not allowed" in e.message and "python/object/apply:os.system" in e.message
    assert ids(res) == ["ok"]


@pytest.mark.parametrize("tagged,kind", [
    ("!!python/name:os.system", "python/name"),
    ("!!python/object:collections.OrderedDict {}", "python/object"),
    ("!custom 3", "!custom"),
    ("!!set {a, b}", "!!set"),
    ("!!binary aGk=", "!!binary"),
])
def test_other_object_tags_are_refused(tagged, kind):
    text = HEAD + f"""
  - id: a
    clause: "1"
    title: t
    then:
      x: {tagged}
"""
    e = only_error(load(text))
    assert e.pointer == "/cases/0/then/x" and e.line == line_of(text, "x: ")
    assert kind in e.message


def test_tag_on_a_whole_case_and_on_the_root():
    text = HEAD + """
  - !thing {id: a}
  - id: b
    clause: "1"
    title: t
    then: {}
"""
    res = load(text)
    e = only_error(res)
    assert e.pointer == "/cases/0" and e.line == line_of(text, "!thing")
    assert ids(res) == ["b"]
    res = load("!thing\nformat: hkk-case/1\ncases: []\n")
    assert res.errors[0].line == 1 and res.cases == []


def test_unquoted_date_is_an_error():
    text = HEAD + """
  - id: a
    clause: "1"
    title: t
    tags: [2024-01-01]
    then: {}
"""
    e = only_error(load(text))
    assert e.pointer == "/cases/0/tags/0" and e.line == line_of(text, "tags:")
    assert "quote" in e.message


def test_duplicate_mapping_key():
    text = HEAD + """
  - id: a
    clause: "1"
    title: t
    then: {}
    then: {players: {A: {hp: 1}}}
"""
    e = only_error(load(text))
    assert e.pointer == "/cases/0/then" and e.line == line_of(text, "then:", 2)
    assert "duplicate key" in e.message and f"line {line_of(text, 'then:')}" in e.message


def test_non_string_key():
    text = HEAD + """
  - id: a
    clause: "1"
    title: t
    given:
      cards:
        1: {kind: creature}
    then: {}
"""
    e = only_error(load(text))
    assert e.pointer == "/cases/0/given/cards/1" and e.line == line_of(text, "1: {kind")
    assert "keys must be strings" in e.message


def test_merge_keys_and_anchors_work():
    text = HEAD + """
  - id: a
    clause: "1"
    title: t
    given: &g
      players: {A: {hp: 5}}
    then: {}
  - id: b
    clause: "1"
    title: t
    given:
      <<: *g
      seed: 3
    when:
      - heal: {target: A, amount: "x"}
    then: {}
"""
    res = load(text)
    e = only_error(res)
    assert ids(res) == ["a"]
    assert e.pointer == "/cases/1/when/0/heal/amount" and e.line == line_of(text, "amount: \"x\"")


def test_empty_and_non_mapping_files():
    assert only_error(load("")).message.startswith("empty file")
    e = only_error(load("- 1\n- 2\n"))
    assert e.pointer == "" and e.line == 1


def test_not_utf8(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_bytes(b"format: hkk-case/1\ncases:\n  - id: \xff\n")
    res = load_files([p], catalog=ANY)
    e = only_error(res)
    assert e.line == 3 and "UTF-8" in e.message


# --------------------------------------------------------------------------
# format

def test_wrong_format():
    text = """
format: hkk-case/3
cases: []
"""
    e = only_error(load(text))
    assert e.pointer == "/format" and e.field == "format" and e.line == 1
    assert "hkk-case/3" in e.message and "hkk-case/1, hkk-case/2" in e.message
    e = only_error(load("cases: []\n"))
    assert e.pointer == "/format" and "missing format" in e.message


def test_wrong_format_drops_the_file():
    res = load(GOOD.replace("hkk-case/1", "hkk-case/9"))
    assert res.cases == [] and len(res.errors) == 1


def test_cases_not_a_list():
    e = only_error(load("format: hkk-case/1\ncases: {a: 1}\n"))
    assert e.pointer == "/cases" and e.line == 2


def test_unknown_top_level_field_drops_the_file_but_x_fields_are_fine():
    res = load(GOOD + "extra: 1\n")
    e = only_error(res)
    assert e.pointer == "/extra" and res.cases == []
    res = load(GOOD + "x-note: hi\n")
    assert res.errors == [] and len(res.cases) == 2


# --------------------------------------------------------------------------
# schema violations

def test_misspelled_case_field():
    text = HEAD + """
  - id: a
    clause: "1"
    titel: t
    then: {}
"""
    res = load(text)
    by_ptr = {e.pointer: e for e in res.errors}
    assert set(by_ptr) == {"/cases/0/titel", "/cases/0/title"}
    assert by_ptr["/cases/0/titel"].line == line_of(text, "titel:")
    assert "unknown field 'titel'" in by_ptr["/cases/0/titel"].message
    assert by_ptr["/cases/0/title"].line == line_of(text, "- id: a")
    assert "missing required field 'title'" in by_ptr["/cases/0/title"].message
    assert res.cases == []


def test_x_field_on_a_case_is_allowed():
    text = HEAD + """
  - id: a
    clause: "1"
    title: t
    x-author: someone
    then: {}
"""
    assert load(text).errors == []


def test_wrong_argument_type_pointer_and_field():
    text = HEAD + """
  - id: a
    clause: "1"
    title: t
    then: {}
  - id: b
    clause: "1"
    title: t
    when:
      - heal: {target: A, amount: 5}
      - heal:
          target: A
          amount: five
    then: {}
"""
    e = only_error(load(text))
    assert e.pointer == "/cases/1/when/1/heal/amount" and e.field == "amount"
    assert e.line == line_of(text, "amount: five")
    assert str(e) == f"t.yaml:{e.line}: /cases/1/when/1/heal/amount: {e.message}"


def test_unknown_argument_and_missing_argument():
    text = HEAD + """
  - id: a
    clause: "1"
    title: t
    when:
      - heal: {target: A, amont: 5}
    then: {}
"""
    res = load(text)
    by_ptr = {e.pointer: e for e in res.errors}
    assert "/cases/0/when/0/heal/amont" in by_ptr
    assert "/cases/0/when/0/heal/amount" in by_ptr
    assert all(e.line == line_of(text, "amont") for e in res.errors)


def test_unquoted_clause_number_gets_a_hint():
    text = HEAD + """
  - id: a
    clause: 3.18
    title: t
    then: {}
"""
    e = only_error(load(text))
    assert e.pointer == "/cases/0/clause" and e.line == line_of(text, "clause:")
    assert 'quote it' in e.message


def test_malformed_clause_ids():
    text = HEAD + """
  - id: a
    clause: "3.18."
    also: ["4.26", "rb7:Anti", "mk:5.10.G"]
    title: t
    then: {}
"""
    res = load(text)
    assert {e.pointer for e in res.errors} == {"/cases/0/clause", "/cases/0/also/1"}
    assert all("not a clause id" in e.message for e in res.errors)


def test_then_error_and_result_shapes():
    text = HEAD + """
  - id: a
    clause: "1"
    title: t
    when: [{heal: {target: A, amount: 1}}]
    then:
      error: {clause: "4.8", stp: 0}
  - id: b
    clause: "1"
    title: t
    then:
      result: won
"""
    res = load(text)
    ptrs = [e.pointer for e in res.errors]
    assert ptrs[0].startswith("/cases/0/then/error")
    assert ptrs[1] == "/cases/1/then/result"
    assert res.errors[1].line == line_of(text, "result: won")


# --------------------------------------------------------------------------
# steps

def test_unknown_verb():
    text = HEAD + """
  - id: a
    clause: "1"
    title: t
    when:
      - heal: {target: A, amount: 1}
      - hael: {target: A, amount: 1}
    then: {}
"""
    e = only_error(load(text))
    assert e.pointer == "/cases/0/when/1/hael" and e.field == "hael"
    assert e.line == line_of(text, "hael")
    assert "unknown verb 'hael'" in e.message and "heal" in e.message


def test_step_not_a_one_key_mapping():
    text = HEAD + """
  - id: a
    clause: "1"
    title: t
    when:
      - heal: {target: A, amount: 1}
        draw: {player: A}
      - just-a-string
    then: {}
"""
    res = load(text)
    assert [(e.pointer, e.line) for e in res.errors] == [
        ("/cases/0/when/0", line_of(text, "- heal")),
        ("/cases/0/when/1", line_of(text, "just-a-string"))]
    assert "one-key mapping" in res.errors[0].message


def test_project_verbs_are_known():
    text = HEAD + """
  - id: a
    clause: "1"
    title: t
    given:
      players: {A: {deck: [d1, d2]}}
      cards: {d1: {kind: instant}, d2: {kind: instant}}
    when:
      - shuffle: {player: A}
      - search: {player: A, card: d2}
      - resolve_conflict: {effects: [{id: e1, strong: true}, {id: e2}], policy: kodex}
      - pass: {player: A}
    then: {}
"""
    assert load(text).errors == []


# --------------------------------------------------------------------------
# card ids

def test_zone_lists_an_undefined_card():
    text = HEAD + """
  - id: a
    clause: "1"
    title: t
    given:
      players:
        A:
          hand: [c1]
        B:
          reserve:
            - c1x
      cards:
        c1: {kind: creature, damage: 1, hp: 1}
    then: {}
"""
    e = only_error(load(text))
    assert e.pointer == "/cases/0/given/players/B/reserve/0" and e.field == "0"
    assert e.line == line_of(text, "- c1x")
    assert "undefined card id 'c1x'" in e.message


def test_card_in_two_zones_or_twice():
    text = HEAD + """
  - id: a
    clause: "1"
    title: t
    given:
      players:
        A: {hand: [c1, c2, c1]}
        B:
          graveyard: [c2]
      cards: {c1: {kind: instant}, c2: {kind: instant}}
    then: {}
"""
    res = load(text)
    assert [(e.pointer, e.line) for e in res.errors] == [
        ("/cases/0/given/players/A/hand/2", line_of(text, "hand: [c1")),
        ("/cases/0/given/players/B/graveyard/0", line_of(text, "graveyard: [c2]"))]
    assert "listed twice" in res.errors[0].message
    assert "/players/A/hand/1" in res.errors[1].message


STEPS_TEXT = HEAD + """
  - id: a
    clause: "1"
    title: t
    given:
      players:
        A: {hand: [c1], reserve: [r1]}
        B: {guard_post: [g1]}
      cards:
        c1: {kind: instant}
        r1: {kind: creature}
        g1: {kind: creature}
    when:
      - play: {card: cX1}
      - sacrifice_for_components: {cards: [r1, cX2]}
      - attack: {attacks: [{attacker: cX3, target: B}, {attacker: r1, target: cX4}]}
      - strike_back: {defender: cX5, attacker: cX6}
      - damage: {target: cX7, amount: 1}
      - damage: {target: B, amount: 1}
      - exchange: {guard_post: [cX8], reserve: [cX9, r1]}
      - heal: {target: A, amount: 1, source: somewhere}
    then: {}
"""


def test_steps_name_undefined_cards():
    res = load(STEPS_TEXT)
    got = [(e.pointer, e.line) for e in res.errors]
    w = "/cases/0/when"
    assert got == [
        (f"{w}/0/play/card", line_of(STEPS_TEXT, "cX1")),
        (f"{w}/1/sacrifice_for_components/cards/1", line_of(STEPS_TEXT, "cX2")),
        (f"{w}/2/attack/attacks/0/attacker", line_of(STEPS_TEXT, "cX3")),
        (f"{w}/2/attack/attacks/1/target", line_of(STEPS_TEXT, "cX4")),
        (f"{w}/3/strike_back/defender", line_of(STEPS_TEXT, "cX5")),
        (f"{w}/3/strike_back/attacker", line_of(STEPS_TEXT, "cX6")),
        (f"{w}/4/damage/target", line_of(STEPS_TEXT, "cX7")),
        (f"{w}/6/exchange/guard_post/0", line_of(STEPS_TEXT, "cX8")),
        (f"{w}/6/exchange/reserve/0", line_of(STEPS_TEXT, "cX9")),
    ]
    assert all("undefined card id" in e.message for e in res.errors)
    assert res.errors[0].field == "card" and res.errors[1].field == "1"
    assert res.cases == []


def test_create_defines_an_id_from_that_step_on():
    text = HEAD + """
  - id: a
    clause: "96"
    title: t
    when:
      - move: {card: t1, to: hand}
      - create: {player: A, card: {id: t1, kind: creature, premade: true}, zone: reserve}
      - move: {card: t1, to: hand}
    then:
      cards: {t1: {zone: hand}}
      removed: [t1]
      players: {A: {hand: [t1]}}
"""
    e = only_error(load(text))
    assert e.pointer == "/cases/0/when/0/move/card"
    assert e.line == line_of(text, "move: {card: t1", 1)
    assert "created by a later step" in e.message


def test_create_of_an_existing_id():
    text = HEAD + """
  - id: a
    clause: "96"
    title: t
    given: {cards: {t1: {kind: instant}}}
    when:
      - create: {card: {id: t1, kind: creature}}
    then: {}
"""
    e = only_error(load(text))
    assert e.pointer == "/cases/0/when/0/create/card/id" and "already defined" in e.message


def test_then_names_undefined_cards():
    text = HEAD + """
  - id: a
    clause: "1"
    title: t
    given: {cards: {c1: {kind: instant}}, players: {A: {hand: [c1]}}}
    then:
      cards:
        c1: {zone: hand}
        cz: {zone: hand}
      removed: [cy]
      players:
        A: {graveyard: [cx]}
"""
    res = load(text)
    assert [(e.pointer, e.line) for e in res.errors] == [
        ("/cases/0/then/cards/cz", line_of(text, "cz:")),
        ("/cases/0/then/removed/0", line_of(text, "removed:")),
        ("/cases/0/then/players/A/graveyard/0", line_of(text, "graveyard: [cx]"))]


def test_attached_to_undefined():
    text = HEAD + """
  - id: a
    clause: "1"
    title: t
    given:
      cards:
        e1: {kind: enchantment, attached_to: nobody}
    then: {}
"""
    e = only_error(load(text))
    assert e.pointer == "/cases/0/given/cards/e1/attached_to"


def test_error_step_beyond_the_steps():
    text = HEAD + """
  - id: a
    clause: "1"
    title: t
    when: [{heal: {target: A, amount: 1}}]
    then:
      error: {clause: "3.18", step: 1}
  - id: b
    clause: "1"
    title: t
    then:
      error: true
"""
    res = load(text)
    assert [(e.pointer, e.line) for e in res.errors] == [
        ("/cases/0/then/error/step", line_of(text, "error: {clause")),
        ("/cases/1/then/error", line_of(text, "error: true"))]


# --------------------------------------------------------------------------
# one bad case, duplicate ids, catalog

def test_valid_cases_of_a_file_with_one_bad_case_still_load():
    text = GOOD + """
  - id: bad
    clause: "1"
    title: t
    when:
      - heal: {target: A, amount: -1}
    then: {}
  - id: third
    clause: "1"
    title: t
    then: {}
"""
    res = load(text)
    assert ids(res) == ["3.18/heal-stops-at-cap", "second", "third"]
    assert [c.index for c in res.cases] == [0, 1, 3]
    e = only_error(res)
    assert e.pointer == "/cases/2/when/0/heal/amount"


def test_duplicate_id_in_one_file():
    text = HEAD + """
  - id: same
    clause: "1"
    title: t
    then: {}
  - id: same
    clause: "2"
    title: t
    then: {}
"""
    res = load(text)
    e = only_error(res)
    assert e.pointer == "/cases/1/id" and e.line == line_of(text, "- id: same", 2)
    assert f"t.yaml:{line_of(text, '- id: same')}" in e.message
    assert [c.clause for c in res.cases] == ["1"]


def test_duplicate_ids_across_two_files(tmp_path):
    (tmp_path / "a.yaml").write_text(textwrap.dedent(GOOD).lstrip(), encoding="utf-8")
    sub = tmp_path / "sub"
    sub.mkdir()
    other = HEAD.lstrip() + """
  - id: fresh
    clause: "1"
    title: t
    then: {}
  - id: second
    clause: "1"
    title: t
    then: {}
"""
    (sub / "b.yml").write_text(other, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("ignored")
    res = load_files([tmp_path], catalog=ANY)
    assert res.files == [tmp_path / "a.yaml", sub / "b.yml"]
    assert ids(res) == ["3.18/heal-stops-at-cap", "second", "fresh"]
    e = only_error(res)
    assert e.file == str(sub / "b.yml") and e.pointer == "/cases/1/id"
    assert e.line == line_of(other, "- id: second")
    first_line = line_of(GOOD, "- id: second")
    assert f"first defined at {tmp_path / 'a.yaml'}:{first_line}" in e.message
    assert res.cases[0].file == str(tmp_path / "a.yaml")


def test_clause_not_in_catalog():
    catalog = {"3.18", "rb7:anti-magia"}           # "4.26" (an also) is missing
    res = load(GOOD, catalog=catalog)
    e = only_error(res)
    assert e.pointer == "/cases/0/also/0" and e.field == "0"
    assert e.line == line_of(GOOD, "also:")
    assert "'4.26' is not in the Kódex catalog" in e.message
    assert ids(res) == ["second"]
    res = load(GOOD, catalog={"4.26", "rb7:anti-magia"})
    e = only_error(res)
    assert e.pointer == "/cases/0/clause" and e.line == line_of(GOOD, 'clause: "3.18"')


def test_catalog_false_skips_and_missing_catalog_module_is_skipped(monkeypatch):
    assert load(GOOD, catalog=False).errors == []
    monkeypatch.setitem(sys.modules, "conformance.catalog", None)   # import fails
    assert load_text(textwrap.dedent(GOOD), catalog=None).errors == []


def test_default_catalog_is_the_project_catalog(monkeypatch):
    pytest.importorskip("conformance.catalog")
    res = load(GOOD.replace('"3.18"', '"999.999"'), catalog=None)
    assert [e.pointer for e in res.errors] == ["/cases/0/clause"]


def test_default_paths_are_the_corpus(monkeypatch, tmp_path):
    monkeypatch.setattr(loader, "CORPUS_DIR", tmp_path)
    (tmp_path / "x.yaml").write_text(textwrap.dedent(GOOD).lstrip(), encoding="utf-8")
    res = load_files(catalog=ANY)
    assert res.files == [tmp_path / "x.yaml"] and len(res.cases) == 2


def test_the_project_corpus_loads():
    res = load_files(catalog=ANY)
    assert res.files, "no corpus files"
    assert res.errors == [], "\n".join(map(str, res.errors))


# --------------------------------------------------------------------------
# the pytest plugin

@pytest.mark.parametrize("text, is_case_file", [
    ("format: hkk-case/1\ncases: []\n", True),
    ("cases:\n  - id: x\n", True),
    ("title: t\ncases: []\n", True),                      # the key need not come first
    ("format: hkk-case/9\n", True),                         # the loader reports the version
    ("format: other/1\nrules: [1, 2]\n", False),
    ("other: {cases: [], format: hkk-case/1}\n", False),    # only the top level counts
    ("? [a, b]\n: {cases: 1}\ncases: []\n", True),        # a complex key is skipped whole
    ("? {x: [1, {y: 2}]}\n: 1\nnot: cases\n", False),
    ("- cases\n- format\n", False),                        # a list
    ("", False),
    ("just text\n", False),
    ("a: 1\n---\nb: 2\n", True),                          # two documents: the loader's error
    ("a: 1\nb: [unclosed\n", True),                        # unparsable: the loader's error
    ("cases: [\n", True),
    ("? *nope\n: 1\n", True),                              # an alias key: the loader decides
    ("format: *nope\n", True),                              # (here: an undefined alias)
    ("a: &x 1\nb: *x\n", False),                           # an alias elsewhere says nothing
    ("{}\n", False),
])
def test_plugin_recognises_case_files_by_their_top_level(tmp_path, text, is_case_file):
    from conformance.pytest_plugin import looks_like_case_file
    f = tmp_path / "f.yaml"
    f.write_text(text, encoding="utf-8")
    assert looks_like_case_file(f) is is_case_file


def test_plugin_recognises_the_corpus_and_nothing_else_of_the_kit():
    from conformance.pytest_plugin import looks_like_case_file
    root = Path(__file__).resolve().parents[1]
    corpus = sorted((root / "conformance" / "corpus").glob("*.yaml"))
    others = [p for d in ("model", "conformance", "properties", "tests") for p in (root / d).rglob("*.yaml")
              if "corpus" not in p.parts]
    assert corpus and len(others) > 5
    assert all(looks_like_case_file(p) for p in corpus)
    assert not [p for p in others if looks_like_case_file(p)]


PLUGIN_CORPUS = HEAD.lstrip() + """
  - id: "3.18/heal-stops-at-cap"
    clause: "3.18"
    title: "Healing never lifts Ep above 20"
    given: {players: {A: {hp: 18}}}
    when: [{heal: {target: A, amount: 5}}]
    then: {players: {A: {hp: 20}}}
  - id: "3.18/heal-wrong-expectation"
    clause: "3.18"
    title: "A deliberately wrong expectation"
    given: {players: {A: {hp: 18}}}
    when: [{heal: {target: A, amount: 5}}]
    then: {players: {A: {hp: 23}}}
  - id: "3.18/bad-verb"
    clause: "3.18"
    title: t
    when: [{hael: {target: A, amount: 5}}]
    then: {}
"""


def test_pytest_plugin(tmp_path):
    corpus = tmp_path / "conformance" / "corpus"
    corpus.mkdir(parents=True)
    (corpus / "cases.yaml").write_text(PLUGIN_CORPUS, encoding="utf-8")
    (corpus / "other.yaml").write_text("just: some yaml\n", encoding="utf-8")
    (corpus / "broken.yaml").write_text("format: hkk-case/1\ncases: [\n", encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = conformance/corpus\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # installed, the plugin comes through its pytest11 entry point; from a bare checkout, by -p
    from importlib.metadata import entry_points
    installed = any(ep.name == "kodex_corpus" for ep in entry_points(group="pytest11"))
    plugin = [] if installed else ["-p", "conformance.pytest_plugin"]
    run = subprocess.run([sys.executable, "-m", "pytest", *plugin,
                          "-p", "no:cacheprovider", "-rA", "-q"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    out = run.stdout
    assert run.returncode == 1, out + run.stderr
    assert "PASSED conformance/corpus/cases.yaml::3.18/heal-stops-at-cap" in out
    assert "FAILED conformance/corpus/cases.yaml::3.18/heal-wrong-expectation" in out
    wrong = out.split("3.18/heal-wrong-expectation", 1)[1]
    assert "A deliberately wrong expectation" in wrong
    line = line_of(PLUGIN_CORPUS, 'id: "3.18/heal-wrong')
    assert f"conformance/corpus/cases.yaml:{line}" in wrong
    assert "/players/A/hp" in wrong and "23" in wrong and "20" in wrong
    line = line_of(PLUGIN_CORPUS, "hael")
    assert f"cases.yaml::input-error:{line}:/cases/2/when/0/hael" in out
    assert "broken.yaml::input-error:" in out
    assert "other.yaml" not in out
    assert "2 passed" not in out and "1 passed" in out

    sel = subprocess.run([sys.executable, "-m", "pytest", *plugin,
                          "-p", "no:cacheprovider", "-q", "-k", "heal-stops", "--co"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert "cases.yaml::3.18/heal-stops-at-cap" in sel.stdout
    assert "heal-wrong" not in sel.stdout


# --------------------------------------------------------------------------
# the counting composer (limits: tests/test_hostile_inputs.py)

def _same_tree(a, b) -> bool:
    import yaml
    if type(a) is not type(b) or a.tag != b.tag or a.start_mark.line != b.start_mark.line:
        return False
    if isinstance(a, yaml.ScalarNode):
        return a.value == b.value and a.style == b.style
    if isinstance(a, yaml.SequenceNode):
        return len(a.value) == len(b.value) and all(map(_same_tree, a.value, b.value))
    return len(a.value) == len(b.value) and all(
        _same_tree(k1, k2) and _same_tree(v1, v2) for (k1, v1), (k2, v2) in zip(a.value, b.value))


@pytest.mark.parametrize("text", [
    "a: &x [1, {b: 2}]\nc: {d: *x}\n", "- 1\n- [2, [3, {d: e}]]\n", "x\n", "", "{}\n",
    "a: &m {b: 1}\nc: {<<: *m, d: 2}\n", "? [complex]\n: key\n",
])
def test_counting_composer_builds_the_same_tree_as_pyyaml(text):
    import yaml
    ours = loader.Loader(text)
    try:
        mine = loader._compose(ours)
    finally:
        ours.dispose()
    theirs = yaml.compose(text, Loader=loader.Loader)
    assert (mine is None and theirs is None) or _same_tree(mine, theirs)


def test_counting_composer_on_the_corpus():
    import yaml
    for path in sorted(loader.CORPUS_DIR.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        ours = loader.Loader(text)
        try:
            mine = loader._compose(ours)
        finally:
            ours.dispose()
        assert _same_tree(mine, yaml.compose(text, Loader=loader.Loader)), path.name


@pytest.mark.parametrize("text, needle", [
    ("a: *nope\n", "undefined alias"),
    ("a: &x 1\nb: &x 2\n", "duplicate anchor"),
    ("a: 1\n---\nb: 2\n", "single document"),
])
def test_counting_composer_errors_like_pyyaml(text, needle):
    e = only_error(load(text))
    assert "YAML syntax error" in e.message and needle in e.message
