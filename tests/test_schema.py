"""The JSON Schema of hkk-case/1 files and the verb list (conformance/verbs.py)
against docs/spec/hkk-case-format.md and the kit's additions in docs/spec/hkk-verbs.md
and docs/spec/hkk-reactions.md (the contract; docs/engine-semantics.md copies none of it)."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from conformance.verbs import (ALL_VERBS, COMMON_ARGS, PROJECT_VERBS, SPEC_VERBS,
                               step_args_schema, verbs_of)

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_FILE = ROOT / "conformance" / "schema" / "hkk-case-1.schema.json"
SPEC = (ROOT / "docs" / "spec" / "hkk-case-format.md").read_text(encoding="utf-8")
# where the kit's verbs and added arguments are documented: the contract's pages
VERBS_MD = (ROOT / "docs" / "spec" / "hkk-verbs.md").read_text(encoding="utf-8")
ADDITIONS = "\n".join((VERBS_MD, (ROOT / "docs" / "spec" / "hkk-reactions.md")
                                  .read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def schema() -> dict:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def validator(schema):
    return Draft202012Validator(schema)


def yaml_blocks(md: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", md, flags=re.S)


def spec_example() -> dict:
    return yaml.safe_load(yaml_blocks(SPEC)[0])


def errors(validator, doc) -> list:
    return list(validator.iter_errors(doc))


# --------------------------------------------------------------------------
# the schema itself

def test_schema_is_a_valid_draft_2020_12_schema(schema):
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"]
    assert schema["title"] and schema["description"]


def test_spec_example_case_file_validates(validator):
    doc = spec_example()
    assert doc["format"] == "hkk-case/1"
    assert errors(validator, doc) == []


def test_spec_example_state_validates_as_given(schema):
    given = yaml.safe_load(yaml_blocks(SPEC)[1])["given"]
    sub = {**schema, "$ref": "#/$defs/given"}
    for key in ("type", "properties", "required", "patternProperties", "additionalProperties"):
        sub.pop(key, None)
    assert list(Draft202012Validator(sub).iter_errors(given)) == []


def test_unknown_verb_is_rejected(validator):
    doc = spec_example()
    doc["cases"][0]["when"] = [{"heel": {"target": "A", "amount": 5}}]
    errs = errors(validator, doc)
    assert errs
    assert any("propertyNames" in e.schema_path and e.instance == "heel"
               for e in _leaves(errs))


def test_misspelled_case_field_is_rejected(validator):
    doc = spec_example()
    doc["cases"][0]["titel"] = doc["cases"][0].pop("title")
    msgs = [e.message for e in errors(validator, doc)]
    assert any("'title' is a required property" in m for m in msgs)
    assert any("'titel'" in m for m in msgs)


def test_extension_fields_are_allowed_at_case_level(validator):
    doc = spec_example()
    doc["cases"][0]["x-note"] = {"anything": [1, 2]}
    assert errors(validator, doc) == []


def test_wrong_format_and_missing_cases(validator):
    assert errors(validator, {"format": "hkk-case/2", "cases": []})
    assert errors(validator, {"format": "hkk-case/1"})


@pytest.mark.parametrize("clause,ok", [
    ("3.18", True), ("4.24.3.1", True), ("102", True), ("rb7:anti-magia", True),
    ("rb7:harci-fazis.VII", True), ("mk:5.10", True), ("mk:5.10.G", True), ("mk:5.07.E.1", True),
    ("3.", False), ("3.18a", False), ("rb7:Anti", False), ("mk:5.10.g", False), ("mk:5", False),
    ("rb7:x.IIII2", False), ("", False),
])
def test_clause_id_pattern(validator, clause, ok):
    doc = spec_example()
    doc["cases"][0]["clause"] = clause
    doc["cases"][0]["also"] = [clause]
    assert (errors(validator, doc) == []) == ok


def test_unquoted_clause_number_is_rejected(validator):
    doc = spec_example()
    doc["cases"][0]["clause"] = 3.18
    assert errors(validator, doc)


def test_step_shapes(validator):
    doc = spec_example()
    case = doc["cases"][0]
    case["when"] = [{"heal": {"target": "A", "amount": 5, "source": "c1", "by": "B"}},
                    {"advance": {"to": "combat"}},
                    {"shuffle": {"player": "A"}},
                    {"resolve_conflict": {"effects": [{"id": "e1", "strong": True}]}},
                    {"attack": {"attacks": [{"attacker": "c1", "target": "B"}]}},
                    {"create": {"card": {"id": "t1", "kind": "creature"}, "zone": "reserve"}}]
    assert errors(validator, doc) == []
    for bad in ({"heal": {"target": "A"}},                       # amount required
                {"heal": {"target": "A", "amount": 2, "x": 1}},  # unknown argument
                {"heal": {"target": "A", "amount": "five"}},
                {"advance": {"to": "lunch"}},
                {"create": {"card": {"kind": "creature"}}},      # created card needs an id
                {"heal": {"target": "A", "amount": 1}, "draw": {}},  # two verbs
                {},
                {"draw": {"by": "C"}}):
        case["when"] = [bad]
        assert errors(validator, doc), bad


def test_given_fields(validator):
    doc = spec_example()
    given = doc["cases"][0]["given"]
    given.update({
        "turn": {"active": "B", "phase": "combat"}, "seed": 7,
        "pending": {"player": "A", "choice": "discard", "count": 1, "options": ["c1"]},
        "cards": {"c1": {"kind": "creature", "damage": 2, "hp": 3, "counters": {"poison": 1},
                         "abilities": [{"keyword": "immunity", "to": "fire"}],
                         "bonus": {"damage": 1, "hp": 1}, "cost": {"vp": 3, "nekron": 1},
                         "effects": [{"draw": {"player": "A", "count": 1}}],
                         "premade": True, "standalone_token": False}},
    })
    assert errors(validator, doc) == []
    # a returned state can be given back: returned-only fields are accepted there
    back = copy.deepcopy(doc)
    back["cases"][0]["given"]["cards"]["c1"].update({"player": "A", "zone": "reserve",
                                                     "base_hp": 3, "dying": False})
    back["cases"][0]["given"]["ruleset"] = "kodex"
    back["cases"][0]["given"]["pending"].update({"step": {"discard": {"player": "A"}},
                                                 "by": "A", "then": []})
    assert errors(validator, back) == []
    for path, value in ((("cards", "c1", "dmg"), 2), (("players", "A", "hitpoints"), 3),
                        (("players", "C"), {}), (("turn", "phase"), "lunch"),
                        (("cards", "c1", "kind"), "dragon"), (("cards", "c1", "owned_by"), "A"),
                        (("pending", "answer"), "x")):
        bad = copy.deepcopy(doc)
        node = bad["cases"][0]["given"]
        for seg in path[:-1]:
            node = node.setdefault(seg, {})
        node[path[-1]] = value
        assert errors(validator, bad), path


def test_then_shapes(validator):
    doc = spec_example()
    then = doc["cases"][0]["then"]
    for good in ({"error": True}, {"error": {"clause": "4.17.5"}},
                 {"error": {"clause": "4.8", "step": 0}}, {"error": {"clause": "hkk-case/1"}},
                 {"result": "ongoing"}, {"result": {"winner": "A"}}, {"result": {"draw": True}},
                 {"events": [{"event": "healed", "target": "A"}]}, {"removed": ["c1"]},
                 {"turn": {"phase": "end"}}, {"cards": {"c1": {"zone": "hand", "max_hp": 3}}}):
        doc["cases"][0]["then"] = {**then, **good}
        assert errors(validator, doc) == [], good
    for bad in ({"error": "yes"}, {"error": {"clause": 4.8}}, {"error": {"step": -1}},
                {"error": {"clauses": "4.8"}}, {"result": "won"}, {"result": {"winner": "C"}},
                {"result": {"draw": False}}, {"events": [{"target": "A"}]},
                {"events": {"event": "healed"}}, {"removed": "c1"},
                {"anything": {"else": [1]}},                        # then is closed
                {"events": [{"event": "heald"}]},                   # unknown event
                {"events": [{"event": "healed", "player": "A"}]},   # not a field of healed
                {"cards": {"c1": {"dmg": 2}}},                      # unknown card field
                {"players": {"A": {"hitpoints": 2}}}):
        doc["cases"][0]["then"] = {**then, **bad}
        assert errors(validator, doc), bad


# --------------------------------------------------------------------------
# the verb list as data, and the schema built from it

SCHEMAS = {1: SCHEMA_FILE, 2: ROOT / "conformance" / "schema" / "hkk-case-2.schema.json"}


@pytest.mark.parametrize("version", sorted(SCHEMAS))
def test_schema_verbs_are_exactly_the_verbs_of_the_version(version):
    step = json.loads(SCHEMAS[version].read_text(encoding="utf-8"))["$defs"]["step"]
    assert step["propertyNames"]["enum"] == list(verbs_of(version))
    assert set(step["properties"]) == set(verbs_of(version))
    assert list(ALL_VERBS) == list(SPEC_VERBS) + list(PROJECT_VERBS)
    assert set(verbs_of(1)) < set(verbs_of(2)) == set(ALL_VERBS)


@pytest.mark.parametrize("version, name", [(v, n) for v in sorted(SCHEMAS) for n in verbs_of(v)])
def test_schema_verb_definition_matches_verbs_py(version, name):
    verb = ALL_VERBS[name]
    d = json.loads(SCHEMAS[version].read_text(encoding="utf-8"))["$defs"][f"verb_{name}"]
    assert d == step_args_schema(verb, version)
    names = {a.name for a in verb.args if a.since <= version} | \
        {n for n, a in COMMON_ARGS.items() if a.since <= version}
    assert set(d["properties"]) == names <= verb.allowed
    assert d.get("required", []) == list(verb.required)


def _spec_verb_table(md: str, start: str, end: str | None) -> dict[str, set[str]]:
    """{verb: argument names} from the markdown tables between two headings."""
    body = md.split(start, 1)[1]
    if end:
        body = body.split(end, 1)[0]
    out: dict[str, set[str]] = {}
    for row in re.findall(r"^\| *(`[^|]*`) *\| *([^|]*)\|", body, flags=re.M):
        verbs = re.findall(r"`([a-z_]+)`", row[0])
        args_text = row[1]
        while True:                         # drop parenthesised remarks
            new = re.sub(r"\([^()]*\)", "", args_text)
            if new == args_text:
                break
            args_text = new
        names = []
        for m in re.finditer(r"`([^`]*)`|([^`]+)", args_text):
            if m.group(2) is not None:
                if ":" in m.group(2):       # a description follows
                    break
                continue
            names.append(m.group(1).split(":")[0].strip())
        for v in verbs:
            out[v] = set(names)
    return out


def test_spec_verbs_and_arguments_match_the_spec_tables():
    table = _spec_verb_table(SPEC, "## The steps (`when`)", "## Expectations")
    assert set(table) == set(SPEC_VERBS)
    for name, args in table.items():
        extra = set(SPEC_VERBS[name].arg_names) - args
        assert args <= set(SPEC_VERBS[name].arg_names), name
        for arg in extra:   # an added argument must be documented as an addition
            assert f"`{name}.{arg}`" in ADDITIONS, \
                f"{name}.{arg} is not documented in docs/spec/hkk-verbs.md or hkk-reactions.md"


def test_project_verbs_match_the_spec_table_of_added_verbs():
    table = _spec_verb_table(VERBS_MD, "## Verbs the kit added", "\n## ")
    assert set(table) == set(PROJECT_VERBS)
    for name, args in table.items():
        assert args == set(PROJECT_VERBS[name].arg_names), name
    assert not set(SPEC_VERBS) & set(PROJECT_VERBS)


def test_card_fields_of_the_spec_are_in_the_schema(schema):
    body = SPEC.split("Card fields:", 1)[1].split("## The steps", 1)[0]
    fields = set()
    for cell in re.findall(r"^\| *([^|]*)\|", body, flags=re.M):
        fields |= set(re.findall(r"`([a-z_]+)`", cell))
    fields.discard("field")
    assert {"kind", "cost", "damage", "hp", "attached_to", "abilities"} <= fields
    props = set(schema["$defs"]["card"]["properties"])
    assert fields <= props
    assert {"bonus", "id"} <= props                     # additions
    # returned-only fields are accepted (and ignored) in given, so a returned state can
    # be given back (docs/spec/hkk-rules.md, "A returned card")
    for name in ("player", "zone", "base_hp", "dying", "attacking"):
        assert "returned only" in schema["$defs"]["card"]["properties"][name]["description"]


def test_player_and_state_fields_of_the_spec_are_in_the_schema(schema):
    given = yaml.safe_load(yaml_blocks(SPEC)[1])["given"]
    assert set(given["players"]["A"]) <= set(schema["$defs"]["player_state"]["properties"])
    gprops = set(schema["$defs"]["given"]["properties"])
    assert {"turn", "players", "cards", "seed", "pending"} <= gprops
    assert "returned only" in schema["$defs"]["given"]["properties"]["ruleset"]["description"]
    assert {"step", "by", "then"} <= set(schema["$defs"]["given"]["properties"]["pending"]
                                         ["properties"])


def _leaves(errs):
    for e in errs:
        yield e
        yield from _leaves(e.context or [])
