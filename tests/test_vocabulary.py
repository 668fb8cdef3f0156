"""The closed vocabularies (conformance/vocabulary.py, docs/spec/hkk-vocabulary.md):
`kodex check` rejects unknown names with file, line, pointer and a did-you-mean; the
schema's enums are generated from the module; the engine's names are all in it; the
format version is announced in hello."""
from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from conformance import vocabulary as vocab
from conformance.loader import load_files, load_text
from conformance.protocol import ProtocolClient, ProtocolError

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "model"


def case_file(card: str = "{kind: creature, damage: 1, hp: 1}", when: str = "[]",
              then: str = "{players: {A: {hp: 20}}}") -> str:
    return textwrap.dedent(f"""\
        format: hkk-case/1
        cases:
          - id: "3.18/v"
            clause: "3.18"
            title: "t"
            given:
              players:
                A: {{reserve: [c1]}}
              cards:
                c1: {card}
            when: {when}
            then: {then}
        """)


def errors_of(text: str) -> list[str]:
    return [f"{e.line}|{e.pointer}|{e.message}" for e in load_text(text, "t.yaml", catalog=False).errors]


def kodex_check(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    f = tmp_path / "case.yaml"
    f.write_text(text, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "conformance", "check", str(f)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


# --------------------------------------------------------------------------
# kodex check

def test_keyword_block_is_an_input_error_of_kodex_check(tmp_path):
    text = case_file("{kind: creature, damage: 1, hp: 1, abilities: [{keyword: block, x: 2}]}")
    res = kodex_check(tmp_path, text)
    assert res.returncode == 2, res.stdout + res.stderr
    out = " ".join(res.stdout.split())
    assert "case.yaml:10:" in out                                  # file and line
    assert "/cases/0/given/cards/c1/abilities/0/keyword" in out    # JSON pointer
    assert "unknown keyword 'block'" in out and "did you mean 'blocking'" in out
    assert "Traceback" not in res.stdout + res.stderr


def test_the_right_keyword_passes_kodex_check(tmp_path):
    text = case_file("{kind: creature, damage: 1, hp: 1, abilities: [{keyword: blocking, x: 2}]}")
    res = kodex_check(tmp_path, text)
    assert res.returncode == 0, res.stdout


@pytest.mark.parametrize("card,when,then,pointer,needle", [
    ("{kind: creature, damage: 1, hp: 1, counters: {posion: 1}}", "[]", "{}",
     "/cases/0/given/cards/c1/counters/posion", "unknown counter 'posion' (did you mean 'poison'?)"),
    ("{kind: creature, damage: 1, hp: 1}", "[{put_counter: {card: c1, counter: musle}}]", "{}",
     "/cases/0/when/0/put_counter/counter", "unknown counter 'musle' (did you mean 'muscle'?)"),
    ("{kind: creatur, damage: 1, hp: 1}", "[]", "{}",
     "/cases/0/given/cards/c1/kind", "unknown card kind 'creatur' (did you mean 'creature'?)"),
    ("{kind: creature, damage: 1, hp: 1}", "[]", "{events: [{event: heald, target: A}]}",
     "/cases/0/then/events/0/event", "unknown event 'heald' (did you mean 'healed'?)"),
    ("{kind: creature, damage: 1, hp: 1}", "[]", "{events: [{event: healed, amont: 2}]}",
     "/cases/0/then/events/0/amont", "unknown field 'amont' of event 'healed' (did you mean 'amount'?)"),
    ("{kind: creature, damage: 1, hp: 1}", "[]", "{cards: {c1: {wunds: 0}}}",
     "/cases/0/then/cards/c1/wunds", "unknown card field 'wunds' (did you mean 'wounds'?)"),
    ("{kind: creature, damage: 1, hp: 1}", "[]", "{players: {A: {hitpoints: 3}}}",
     "/cases/0/then/players/A/hitpoints", "unknown player field 'hitpoints'"),
    ("{kind: creature, damage: 1, hp: 1}", "[]", "{evnts: []}",
     "/cases/0/then/evnts", "unknown field 'evnts' in then (did you mean 'events'?)"),
    ("{kind: creature, damage: 1, hp: 1, abilities: [{keyword: fly}]}", "[]", "{}",
     "/cases/0/given/cards/c1/abilities/0/keyword", "another spelling of 'flying': write 'flying'"),
    ("{kind: creature, damage: 1, hp: 1, abilities: [{keyword: life, y: 2}]}", "[]", "{}",
     "/cases/0/given/cards/c1/abilities/0/y", "unknown field 'y' of keyword 'life'"),
    ("{kind: creature, damage: 1, hp: 1, abilities: [{keyword: immunity, to: fier}]}", "[]", "{}",
     "/cases/0/given/cards/c1/abilities/0/to", "unknown immunity 'fier' (did you mean 'fire'?)"),
    ("{kind: creature, damage: 1, hp: 1}",
     "[{create: {card: {id: t1, kind: creature, counters: {sleeep: 1}}}}]", "{}",
     "/cases/0/when/0/create/card/counters/sleeep", "did you mean 'sleep'?"),
])
def test_unknown_names_are_input_errors(card, when, then, pointer, needle):
    errs = errors_of(case_file(card, when, then or "{}"))
    hits = [e for e in errs if e.split("|")[1] == pointer]
    assert hits, errs
    assert needle in hits[0], hits
    assert int(hits[0].split("|")[0]) > 1                          # a real line


def test_an_activated_ability_of_the_cards_own_needs_effects():
    ok = "{kind: creature, damage: 1, hp: 1, abilities: [{keyword: zap, cost: {vp: 1}, effects: [{draw: {player: A}}]}]}"
    assert errors_of(case_file(ok)) == []
    bad = "{kind: creature, damage: 1, hp: 1, abilities: [{keyword: zap, cost: {vp: 1}}]}"
    errs = errors_of(case_file(bad))
    assert any("unknown keyword 'zap'" in e and "must have `effects`" in e for e in errs), errs


def test_extension_counters_are_accepted_and_do_nothing_by_themselves():
    text = case_file(when="[{put_counter: {card: c1, counter: x-charge, count: 2}}]",
                     then="{cards: {c1: {counters: {x-charge: 2}, hp: 1}}}")
    res = load_text(text, "t.yaml", catalog=False)
    assert res.errors == [] and len(res.cases) == 1


def v2_trigger_file(event: str) -> str:
    return textwrap.dedent(f"""\
        format: hkk-case/2
        cases:
          - id: "133.0/v"
            clause: "133.0"
            title: "t"
            given:
              players:
                A: {{table: [w1]}}
              cards:
                w1: {{kind: building, hp: 4, abilities: [{{keyword: echo, trigger: {{event: {event}}}, effects: [{{gain_vp: {{player: A, amount: 1}}}}]}}]}}
            when: []
            then: {{}}
        """)


@pytest.mark.parametrize("event", vocab.AUTOMATIC_RECORDS)
def test_a_trigger_may_not_name_a_record_of_automatic_abilities(event):
    # hkk-reactions.md: `triggered`, `missed`, `made_up` set no automatic ability off
    errs = errors_of(v2_trigger_file(event))
    pointer = "/cases/0/given/cards/w1/abilities/0/trigger/event"
    hits = [e for e in errs if e.split("|")[1] == pointer]
    assert hits and f"'{event}' is not one of" in hits[0], errs
    assert hits[0].split("|")[0] == "10"                           # the line of the card


def test_a_trigger_names_any_other_event():
    assert vocab.AUTOMATIC_RECORDS == ("triggered", "missed", "made_up")
    for event in ("damaged", "decision_pending", "queued", "moved"):
        assert errors_of(v2_trigger_file(event)) == [], event


def test_a_card_has_one_or_two_colours():
    # hkk-effects.md, play conditions (rb7:ketszinu-lapok): at most two
    for colors in ("[red]", "[red, green]"):
        assert errors_of(case_file(f"{{kind: creature, damage: 1, hp: 1, colors: {colors}}}")) == []
    errs = errors_of(case_file("{kind: creature, damage: 1, hp: 1, colors: [red, green, blue]}"))
    hits = [e for e in errs if e.split("|")[1] == "/cases/0/given/cards/c1/colors"]
    assert hits and "is too long" in hits[0], errs
    # a {colors} play condition names any number of colours
    cond = "{kind: creature, damage: 1, hp: 1, condition: [{colors: [red, green, blue]}]}"
    assert errors_of(case_file(cond)) == []


def test_the_whole_corpus_still_loads():
    res = load_files()
    assert res.errors == [], [str(e) for e in res.errors[:5]]
    assert len(res.cases) > 1000


# --------------------------------------------------------------------------
# the schema is generated from the vocabulary and closed

def test_committed_schema_equals_the_generated_one():
    assert vocab.SCHEMA_PATH.read_text(encoding="utf-8") == vocab.render(vocab.generated_schema()), \
        "run: python -m conformance.vocabulary"


def test_generation_is_a_fixed_point_and_valid():
    s = vocab.generated_schema()
    assert vocab.generated_schema(s) == s
    Draft202012Validator.check_schema(s)
    d = s["$defs"]
    assert d["card"]["properties"]["kind"]["enum"] == list(vocab.KINDS)
    assert d["event"]["properties"]["event"]["enum"] == list(vocab.EVENTS)
    assert list(d["counters"]["properties"]) == list(vocab.COUNTERS)
    assert d["counters"]["additionalProperties"] is False


def _objects(node, path=""):
    if isinstance(node, dict):
        if node.get("type") == "object":
            yield path, node
        for k, v in node.items():
            yield from _objects(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _objects(v, f"{path}/{i}")


def test_schema_objects_are_closed():
    """Every object with named properties is closed: additionalProperties false, or
    propertyNames / a branch per name that lists them."""
    s = vocab.generated_schema()
    open_ones = []
    for path, node in _objects(s):
        if "properties" not in node:
            continue
        closed = node.get("additionalProperties") is False or "propertyNames" in node \
            or ("allOf" in node and all("propertyNames" in b.get("then", {}) for b in node["allOf"]))
        if not closed:
            open_ones.append(path)
    assert open_ones == []


def test_schema_rejects_what_check_rejects():
    v = Draft202012Validator(vocab.generated_schema())
    import yaml
    for card in ("{kind: creature, abilities: [{keyword: block, x: 2}]}",
                 "{kind: creature, counters: {posion: 1}}", "{kind: dragon}"):
        doc = yaml.safe_load(case_file(card))
        assert list(v.iter_errors(doc)), card
    assert not list(v.iter_errors(yaml.safe_load(case_file())))


# --------------------------------------------------------------------------
# the engine's names are all in the vocabulary

def _model_source() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(MODEL.glob("*.py")))


def test_every_event_the_engine_emits_is_in_the_vocabulary():
    src = _model_source()
    names = set(re.findall(r"emit\(\s*\"([a-z_]+)\"", src))
    names |= {"vp_spent", "components_spent", "max_hp_changed", "max_vp_changed"}  # built names
    assert names, "no emit() found: the scan is broken"
    events = vocab.vocabulary(2)["events"]          # every version's (hkk-case/2 is the largest)
    assert names <= set(events), sorted(names - set(events))


def _emit_calls(src: str):
    """(event name, top-level keyword names) of every emit("name", ...) call."""
    for m in re.finditer(r"emit\(\s*\"([a-z_]+)\"", src):
        depth, i, top = 1, m.end(), []
        while depth and i < len(src):
            ch = src[i]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            top.append(ch if depth == 1 or (depth == 2 and ch == "{") else " ")
            i += 1
        args = "".join(top)
        fields = set(re.findall(r"(?<![=!<>])\b([a-z_]+)=(?!=)", args))
        fields |= set(re.findall(r"\*\*\{\"([a-z_]+)\"", src[m.end():i]))
        yield m.group(1), fields


def test_every_event_field_the_engine_emits_is_in_the_vocabulary():
    calls = list(_emit_calls(_model_source()))
    assert len(calls) > 50
    every = {"clause"}        # every event may name its clause (vocab.EVENT_CLAUSE_DOC, change 26)
    events = vocab.vocabulary(2)["events"]
    missing = [(name, sorted(f - set(events[name].fields) - every)) for name, f in calls
               if f - set(events[name].fields) - every]
    assert missing == []
    assert any(name == "moved" and "from" in f and "cause" in f for name, f in calls)


def test_every_move_cause_of_the_engine_is_in_the_vocabulary():
    src = _model_source()
    causes = set(re.findall(r"Cause\(\"([a-z_]+)\"", src)) | {"draw", "opening_hand", "return",
                                                              "shuffle", "search", "mill", "discard"}
    assert causes <= set(vocab.MOVE_CAUSES), sorted(causes - set(vocab.MOVE_CAUSES))


def test_every_keyword_the_engine_reads_is_in_the_vocabulary():
    src = _model_source()
    # a word boundary first: continuous._entries(state, frozen, "number") reads an entry kind, not a keyword
    used = set(re.findall(r"\b(?:entries|has|ability_entries|has_ability)\([^()]*?,\s*\"([a-z_]+)\"\)", src))
    assert len(used) > 10, used
    assert used <= set(vocab.KEYWORDS), sorted(used - set(vocab.KEYWORDS))


def test_every_counter_the_engine_reads_is_in_the_vocabulary():
    src = _model_source()
    used = set(re.findall(r"counter\(\"([a-z_]+)\"\)", src))
    used |= set(re.findall(r"counters\[\"([a-z_]+)\"\]", src))
    assert len(used) > 5, used
    assert used <= set(vocab.COUNTERS), sorted(used - set(vocab.COUNTERS))


# --------------------------------------------------------------------------
# format versions in hello

FAKE = textwrap.dedent("""\
    import json, sys
    formats = json.loads(sys.argv[1])
    for line in sys.stdin:
        req = json.loads(line)
        if req["cmd"] == "hello":
            print(json.dumps({"seen_format": req.get("format")}), file=sys.stderr, flush=True)
            reply = {"ok": True, "implementation": {"name": "fmt"}, "rulesets": ["kodex"]}
            if formats is not None:
                reply["formats"] = formats
            print(json.dumps(reply), flush=True)
        elif req["cmd"] == "bye":
            break
""")


def _fake(tmp_path, formats) -> str:
    script = tmp_path / "fmt_impl.py"
    script.write_text(FAKE, encoding="utf-8")
    return " ".join(shlex.quote(x) for x in (sys.executable, str(script), json.dumps(formats)))


def test_hello_sends_the_format_and_accepts_a_listing_implementation(tmp_path):
    log = tmp_path / "log"
    with ProtocolClient(_fake(tmp_path, ["hkk-case/2", "hkk-case/1"]), stderr_path=log) as c:
        assert c.formats == ["hkk-case/2", "hkk-case/1"]
    assert '"seen_format": "hkk-case/1"' in log.read_text(encoding="utf-8")


def test_hello_without_formats_is_taken_as_hkk_case_1(tmp_path):
    with ProtocolClient(_fake(tmp_path, None), stderr_path=tmp_path / "log") as c:
        assert c.formats == ["hkk-case/1"]


def test_hello_with_other_formats_only_is_refused(tmp_path):
    with pytest.raises(ProtocolError, match="hkk-case/2"):
        ProtocolClient(_fake(tmp_path, ["hkk-case/2"]), stderr_path=tmp_path / "log")


def test_kodex_serve_hello_lists_its_formats():
    from conformance.serve import hello_reply
    assert hello_reply({"cmd": "hello", "protocol": 1})["formats"] == ["hkk-case/1", "hkk-case/2"]
    assert hello_reply({"cmd": "hello", "protocol": 1, "format": "hkk-case/1"})["ok"] is True
    bad = hello_reply({"cmd": "hello", "protocol": 1, "format": "hkk-case/9"})
    assert bad["ok"] is False and "hkk-case/9" in bad["error"]
