"""``kodex explain`` (conformance/explain.py): a situation step by step, each event with the
clause that produced it; situations without ``then`` from a file or standard input; errors on
the input's own lines; warnings; every difference of a ``then``; the readings per ruleset."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from conformance import cli
from conformance.catalog import load_catalog

ROOT = Path(__file__).resolve().parents[1]
TIMING = ROOT / "conformance" / "corpus" / "timing-windows.yaml"

SITUATION = """\
# a judge's question: a 3/3 creature with regeneration is dealt 3 damage; can A save it?
given:
  turn: {active: A, phase: main1}
  players:
    A: {vp: 4, reserve: [r1]}
  cards:
    r1: {kind: creature, damage: 3, hp: 3, abilities: [{keyword: regeneration, x: 2}]}
when:
  - damage: {target: r1, amount: 3}
  - activate: {card: r1, ability: regeneration, x: 1, by: A}
"""


def _explain(argv, capsys, stdin: str | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8"))))
    rc = cli.main(["explain", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _events(acc):
    return [ev for s in acc["steps"] for ev in s["events"]] + acc["end_of_run"]


def test_json_on_the_timing_window_cases_every_event_names_a_catalog_clause(capsys):
    rc, out, _err = _explain([str(TIMING), "--json"], capsys)
    assert rc == 0
    data = json.loads(out)
    assert data["schema"] == "hkk-explain/1"
    catalog = load_catalog()
    assert len(data["situations"]) > 50
    seen = 0
    for acc in data["situations"]:
        for ev in _events(acc):
            named = ([ev["clause"]] if "clause" in ev else []) + ev.get("clauses", [])
            assert named, (acc["id"], ev)
            assert all(c in catalog for c in named), (acc["id"], ev)
            assert [w["clause"] for w in ev["explained"]] == (ev.get("clauses") or [ev["clause"]])
            seen += 1
        assert acc["check"]["holds"], acc["id"]
    assert seen > 300


def test_a_situation_without_then_from_stdin(capsys, monkeypatch):
    rc, out, err = _explain(["-", "--json"], capsys, SITUATION, monkeypatch)
    assert rc == 0, err
    (acc,) = json.loads(out)["situations"]
    assert acc["filled"] == ["id", "clause", "title", "then"] and acc["check"] is None
    assert acc["clause"] is None and acc["file"] == "<stdin>" and acc["line"] == 2
    kinds = [(ev["event"], ev["clause"]) for ev in _events(acc)]
    assert ("dying", "136.8") in kinds and ("saved", "136.8") in kinds
    assert ("ability_activated", "136.6") in kinds
    assert {"path": "/players/A/vp", "before": 4, "after": 2} in acc["changes"]
    assert {"path": "/cards/r1/hp", "before": 3, "after": 1,          # a computed value: its clause
            "clause": "rb7:sebzes-eletpont-alap-aktualis"} in acc["changes"]
    # and as text: the step, the event, the clause with its Hungarian text
    rc, out, _ = _explain(["-"], capsys, SITUATION, monkeypatch)
    assert rc == 0
    assert "step 2: activate" in out and "136.8 — " in out and "életmentő cselekvésként" in out
    assert "not given, filled in: id, clause, title, then" in out


def test_input_errors_name_the_inputs_own_line_and_a_near_field(capsys, monkeypatch, tmp_path):
    bad = SITUATION.replace("x: 1, by: A", "amount: 1, by: A")
    rc, _out, err = _explain(["-"], capsys, bad, monkeypatch)
    assert rc == 2
    assert "<stdin>:10: /when/1/activate/amount: unknown field 'amount'" in err
    f = tmp_path / "s.yaml"
    f.write_text("given: {players: {A: {hpp: 3}}}\n", encoding="utf-8")
    rc, _out, err = _explain([str(f)], capsys)
    assert rc == 2 and f"{f}:1: /given/players/A/hpp: unknown field 'hpp' (did you mean 'hp'?)" in err
    f.write_text("given: [\n", encoding="utf-8")
    rc, _out, err = _explain([str(f)], capsys)
    assert rc == 2 and "not valid YAML" in err and "Traceback" not in err
    rc, _out, err = _explain([str(tmp_path / "missing.yaml")], capsys)
    assert rc == 2 and "no such file" in err
    rc, _out, err = _explain([], capsys)
    assert rc == 2 and "name a situation" in err
    rc, _out, err = _explain(["-k", "no-such-case-anywhere"], capsys)
    assert rc == 2 and "no situation matches" in err
    rc, _out, err = _explain(["-k", "4.8.4", "--ruleset", "nope"], capsys)
    assert rc == 2 and "unknown ruleset 'nope'" in err


def test_then_that_does_not_hold_lists_every_difference(capsys, tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text(SITUATION + "then:\n  players:\n    A: {vp: 0, hp: 19}\n  cards:\n    r1: {hp: 3}\n",
                 encoding="utf-8")
    rc, out, _ = _explain([str(f), "--json"], capsys)
    assert rc == 1
    (acc,) = json.loads(out)["situations"]
    assert [d["path"] for d in acc["check"]["differences"]] == [
        "/players/A/vp", "/players/A/hp", "/cards/r1/hp"]
    rc, out, _ = _explain([str(f)], capsys)
    assert rc == 1 and "then does NOT hold: 3 differences" in out


def test_warnings_for_an_empty_then_and_an_effect_that_reaches_nothing(capsys, tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text(SITUATION + "then: {}\n", encoding="utf-8")
    rc, out, _ = _explain([str(f), "--json"], capsys)
    (acc,) = json.loads(out)["situations"]
    assert rc == 0 and any("then: {} checks nothing" in w for w in acc["warnings"])
    rc, out, _ = _explain(["-k", "99.5/timed-effect-of-a-sorcery-reaches-nothing*", "--json"], capsys)
    if rc == 2:           # the corpus case's id: found by its then (a lasting effect reaching nothing)
        rc, out, _ = _explain([str(ROOT / "conformance/corpus/strength-effects-2.yaml"), "--json"], capsys)
    accs = json.loads(out)["situations"]
    fizzle = [a for a in accs if any("'fizzle'" in w and "reaches nothing" in w for w in a["warnings"])]
    assert fizzle, "the effect 'fizzle' (affects: []) is not warned about"
    assert not any("reaches nothing" in w for a in accs if a not in fizzle for w in a["warnings"]
                   if "'fizzle'" in w)


def test_a_conflict_in_force_in_given_is_shown_with_its_clause(capsys):
    rc, out, _ = _explain(["-k", "99.1/prevailing-prohibition-lifts-requirement", "--json"], capsys)
    assert rc == 0
    (acc,) = json.loads(out)["situations"]
    (c,) = acc["given_conflicts"]
    assert c["winner"] == "c1#0" and c["clause"] == "102.1"
    assert c["explained"][0]["readings"][0]["conflict"] == "priority-flat-vs-ordered"
    rc, out, _ = _explain(["-k", "99.1/prevailing-prohibition-lifts-requirement"], capsys)
    assert "decided before the first step (no event)" in out


def test_all_rulesets_shows_where_the_readings_disagree(capsys):
    rc, out, _ = _explain(["-k", "4.15.1/", "--all-rulesets", "--json"], capsys)
    assert rc in (0, 1)
    accs = json.loads(out)["situations"]
    split = [a for a in accs if len(a["rulesets"]) > 1]
    assert split, "no 4.15.1 case differs between the rulesets"
    groups = split[0]["rulesets"]
    void = next(g for g in groups if "kodex-4.15.1" in g["rulesets"])
    assert "kodex-4.15.1" in void["rulesets"] and "kodex" not in void["rulesets"]
    assert void["differs_by"] == ["premade-bound-for-deck: void"]
    rc, out, _ = _explain(["-k", "4.8.4/void-to-hand-refused", "--all-rulesets"], capsys)
    assert "every ruleset gives the same outcome" in out


def test_a_ruleset_parameter_behind_a_clause_is_named(capsys):
    rc, out, _ = _explain(["-k", "136.7/at-most-four-ep-a-turn"], capsys)
    assert rc == 0
    assert "regeneration_per_turn = 4" in out and "REFUSED" in out


@pytest.mark.parametrize("written", ["136.8.", "136.8"])
def test_clause_as_the_kodex_writes_it(capsys, written):
    assert cli.main(["clause", written]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("136.8")
