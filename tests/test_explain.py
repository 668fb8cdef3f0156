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


# ------------------------------------------------------------------ hkk-case/2 (issue 26, 28)

QUEUE = ROOT / "conformance" / "corpus" / "reactions-queue.yaml"

# rb7:harci-fazis.IV/two-creatures-kill-each-other without its then: in hkk-case/2 the combat goes
# in rounds (both pass: the next sub-phase), the two declarations take effect together and both
# creatures die; the same steps read as hkk-case/1 mean something else (a pass is not a round's)
MUTUAL_KILL = """\
given:
  turn: {active: A, phase: combat, combat_step: II}
  players:
    A: {vp: 3, guard_post: [a1]}
    B: {vp: 3, guard_post: [b1]}
  cards:
    a1: {kind: creature, damage: 1, hp: 3, abilities: [{keyword: direct_damage, x: 3}]}
    b1: {kind: creature, damage: 1, hp: 2, abilities: [{keyword: direct_damage, x: 3}]}
when:
  - attack: {player: A, attacks: [{attacker: a1, target: b1}]}
  - pass: {player: A}
  - pass: {player: B}
  - activate: {player: A, card: a1, ability: direct_damage, x: 3, targets: [b1]}
  - activate: {player: B, card: b1, ability: direct_damage, x: 3, targets: [a1]}
  - pass: {player: A}
  - pass: {player: B}
"""


def _refused(acc):
    return next((s["refused"] for s in acc["steps"] if "refused" in s), None)


def test_a_hkk_case_2_file_is_explained_in_its_own_format(capsys):
    rc, out, err = _explain([str(QUEUE), "-k", "4.21.1/waiting-creature-is-in-no-zone", "--json"],
                            capsys)
    assert rc == 0, err
    (acc,) = json.loads(out)["situations"]
    assert acc["format"] == "hkk-case/2" and acc["check"]["holds"]
    assert ("queued", "4.21.1") in [(ev["event"], ev.get("clause")) for ev in _events(acc)]
    assert {"path": "/cards/a1/zone", "before": "hand", "after": "queue"} in acc["changes"]
    rc, out, _ = _explain([str(QUEUE), "-k", "4.21.1/waiting-creature-is-in-no-zone"], capsys)
    assert rc == 0 and 'queued entry="q1"' in out and "· hkk-case/2" in out and "then holds" in out
    # every hkk-case/2 case of the corpus: its then holds when explained (file and corpus mode)
    from conformance.loader import load_files
    v2 = sorted({c.file for c in load_files().cases if c.format == "hkk-case/2"})
    assert len(v2) >= 5
    rc, out, err = _explain([*v2, "--json"], capsys)
    accs = json.loads(out)["situations"]
    assert rc == 0, err
    assert len(accs) > 250 and {a["format"] for a in accs} == {"hkk-case/2"}
    assert [a["id"] for a in accs if not a["check"]["holds"]] == []
    rc, out, err = _explain(["-k", "rb7:kijatszasi-sorrend/borun-the-bell-waiting-on-the-queue",
                             "--json"], capsys)
    assert rc == 0 and json.loads(out)["situations"][0]["check"]["holds"], err


def test_a_hkk_case_2_situation_on_stdin_gets_the_hkk_case_2_answer(capsys, monkeypatch):
    rc, out, err = _explain(["-", "--format", "hkk-case/2", "--json"], capsys, MUTUAL_KILL,
                            monkeypatch)
    assert rc == 0, err
    (acc,) = json.loads(out)["situations"]
    assert acc["format"] == "hkk-case/2" and _refused(acc) is None
    evs = [(ev["event"], ev.get("card") or ev.get("step")) for ev in _events(acc)]
    assert ("combat_step", "IV") in evs and ("combat_step", "V") in evs
    assert ("died", "a1") in evs and ("died", "b1") in evs
    assert {"path": "/players/A/graveyard", "before": [], "after": ["a1"]} in acc["changes"]
    # `format:` beside given and when says the same
    rc, out, _ = _explain(["-", "--json"], capsys, "format: hkk-case/2\n" + MUTUAL_KILL, monkeypatch)
    (same,) = json.loads(out)["situations"]
    assert rc == 0 and same["format"] == "hkk-case/2" and same["changes"] == acc["changes"]
    # the default is hkk-case/1, where the same steps mean something else: no round, no IV
    rc, out, _ = _explain(["-", "--json"], capsys, MUTUAL_KILL, monkeypatch)
    (v1,) = json.loads(out)["situations"]
    assert rc == 0 and v1["format"] == "hkk-case/1"
    assert _refused(v1)["step"] == 3 and ("died", "b1") not in [
        (ev["event"], ev.get("card")) for ev in _events(v1)]
    rc, out, _ = _explain(["-"], capsys, MUTUAL_KILL, monkeypatch)
    assert "<stdin>:1 · hkk-case/1" in out


def test_a_files_own_format_wins_over_format_and_an_unknown_one_is_refused(capsys, monkeypatch):
    v1 = ROOT / "conformance" / "corpus" / "reactions-combat-v1.yaml"
    rc, out, err = _explain([str(v1), "--format", "hkk-case/2", "--json"], capsys)
    accs = json.loads(out)["situations"]
    assert rc == 0, err
    assert {a["format"] for a in accs} == {"hkk-case/1"} and all(a["check"]["holds"] for a in accs)
    rc, _out, err = _explain(["-"], capsys, "format: hkk-case/9\n" + MUTUAL_KILL, monkeypatch)
    assert rc == 2 and "<stdin>:1: /format: unsupported format 'hkk-case/9'" in err
    assert cli.main(["explain", "-", "--format", "hkk-case/3"]) == 2
    assert "unknown case format 'hkk-case/3' (did you mean 'hkk-case/2'?)" in capsys.readouterr().err
