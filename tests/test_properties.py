"""The Hypothesis properties of the engine (quick profile): the state machine, random cases,
valid generated states, determinism, atomic refusal, the dict-level checks, the driver and
`kodex fuzz` (also against an implementation that differs from the reference)."""
from __future__ import annotations

import copy
from collections import Counter
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from model.engine import apply, run_case
from model.errors import InputProblem
from model.ruleset import load_ruleset
from model.state import from_given
from model.view import to_dict
from properties import fuzz
from properties.driver import drive, play_random, random_game
from properties.fuzz import QUICK
from properties.invariants import INVARIANTS, check, check_dict, check_step, check_steps
from properties.machine import EngineMachine, run_machine
from properties.strategies import (ALL_VERBS, RandomChooser, build_case, cases, gen_step,
                                   given_states, steps_for)

ROOT = Path(__file__).resolve().parent.parent
RULES = load_ruleset("kodex")


def _no_violations(violations) -> None:
    assert not violations, "\n".join(map(str, violations))


# ---------------------------------------------------------------------------
# the machine and the properties
# ---------------------------------------------------------------------------

def test_state_machine_quick() -> None:
    run_machine(settings(QUICK), EngineMachine)


@settings(QUICK)
@given(cases())
def test_random_cases_keep_every_invariant(case) -> None:
    given_, when = case
    _no_violations(check_steps(given_, when).violations)


@settings(QUICK, max_examples=30)
@given(given_states())
def test_generated_states_are_valid(given_) -> None:
    from conformance.loader import load_text
    state = from_given(given_, RULES)
    _no_violations(check(state, RULES))
    _no_violations(check_dict(to_dict(state, RULES)))
    doc = {"format": "hkk-case/1",
           "cases": [{"id": "x/generated", "clause": "4.5.2", "title": "generated", "given": given_,
                      "then": {}}]}
    res = load_text(yaml.safe_dump(doc, sort_keys=False), catalog=False)
    assert not res.errors, [str(e) for e in res.errors][:3]


def test_generated_cases_load_as_hkk_case_files() -> None:
    from conformance.loader import load_text
    doc = {"format": "hkk-case/1", "cases": []}
    for seed in range(40):
        given_, when = build_case(RandomChooser(seed), max_steps=12)
        doc["cases"].append({"id": f"x/generated-{seed}", "clause": "4.5.2", "title": "generated",
                             "given": given_, "when": when, "then": {}})
    res = load_text(yaml.safe_dump(doc, sort_keys=False), catalog=False)
    assert not res.errors, [str(e) for e in res.errors][:3]
    assert len(res.cases) == 40


def test_generated_states_cover_every_zone_and_kind() -> None:
    zones, kinds, flags = set(), set(), set()
    for seed in range(80):
        g = build_case(RandomChooser(seed), max_steps=0)[0]
        for p in g["players"].values():
            zones.update(z for z in ("deck", "hand", "reserve", "guard_post", "table", "graveyard", "void")
                         if p.get(z))
        for c in g["cards"].values():
            kinds.add(c["kind"])
            flags.update(k for k in ("premade", "standalone_token", "counters", "abilities", "wounds",
                                     "attached_to") if c.get(k))
        if g.get("removed"):
            zones.add("removed")
    assert zones == {"deck", "hand", "reserve", "guard_post", "table", "graveyard", "void", "removed"}
    assert kinds == {"creature", "instant", "sorcery", "enchantment", "item", "building", "skill",
                     "body_part", "location"}
    assert flags == {"premade", "standalone_token", "counters", "abilities", "wounds", "attached_to"}


def test_generated_steps_are_well_formed_and_cover_the_verbs() -> None:
    seen = set()
    for seed in range(120):
        ch = RandomChooser(seed)
        given_ = build_case(ch, max_steps=0)[0]
        state = from_given(given_, RULES)
        for _ in range(12):
            step = gen_step(state, ch)
            seen.add(next(iter(step)))
            try:
                out = apply(state, step, RULES)
            except InputProblem as exc:  # pragma: no cover - a generator bug
                pytest.fail(f"malformed step {step}: {exc}")
            if out.refusal is None:
                state = out.state
    assert set(ALL_VERBS) <= seen
    assert "choose" in seen


# ---------------------------------------------------------------------------
# step invariants
# ---------------------------------------------------------------------------

@settings(QUICK)
@given(st.data())
def test_refusal_is_atomic_and_apply_is_pure(data) -> None:
    state = from_given(data.draw(given_states()), RULES)
    for _ in range(4):
        step = data.draw(steps_for(state))
        before = to_dict(state, RULES)
        snapshot = copy.deepcopy(state)
        out = apply(state, step, RULES)
        assert to_dict(state, RULES) == before and state == snapshot, "apply changed its input"
        if out.refusal is not None:
            assert to_dict(out.state, RULES) == before
        else:
            state = out.state


def test_refused_create_changes_nothing() -> None:
    # create is an effect (4.24.2): a rule's stop is reported, not refused, and makes no card
    state = from_given({"players": {"A": {"hand": ["h"]}}, "cards": {"h": {"kind": "instant"}}}, RULES)
    out, viol = check_step(state, {"create": {"player": "A", "card": {"id": "x", "kind": "item"},
                                              "zone": "guard_post"}}, RULES)
    assert out.refusal is None
    assert [e["clause"] for e in out.events if e["event"] == "effect_prevented"] == ["5.4.1"]
    assert "x" not in out.state.cards
    _no_violations(viol)


@settings(QUICK, max_examples=25)
@given(cases(max_steps=10))
def test_same_seed_and_steps_give_the_same_game(case) -> None:
    given_, when = case
    a, b = run_case(given_, when), run_case(given_, when)
    assert (a.state, a.events, a.refused, a.result) == (b.state, b.events, b.refused, b.result)


def test_shuffles_follow_the_seed() -> None:
    deck = [f"d{i}" for i in range(12)]
    given_ = {"players": {"A": {"deck": deck}}, "cards": {d: {"kind": "instant"} for d in deck}}
    when = [{"shuffle": {"player": "A"}}, {"shuffle": {"player": "A"}}]
    rep = check_steps({**given_, "seed": 5}, when)
    _no_violations(rep.violations)
    decks = {s: tuple(run_case({**given_, "seed": s}, when).state["players"]["A"]["deck"]) for s in range(4)}
    assert decks[1] == tuple(run_case({**given_, "seed": 1}, when).state["players"]["A"]["deck"])
    assert len(set(decks.values())) > 1


# ---------------------------------------------------------------------------
# the checks themselves: each invariant fires on a state that breaks it
# ---------------------------------------------------------------------------

def _state(**players) -> dict:
    base = {"hp": 20, "max_hp": 20, "vp": 0, "max_vp": 20, "components": 0}
    return {"players": {p: {**base, **players.get(p, {})} for p in ("A", "B")}, "cards": {}, "removed": []}


def _names(violations) -> set[str]:
    return {v.invariant for v in violations}


def test_check_dict_fires_on_each_state_invariant() -> None:
    s = _state(A={"hp": 21})
    assert _names(check_dict(s)) == {"hp_vp_cap"}
    s = _state(B={"vp": 3, "max_vp": 2})
    assert _names(check_dict(s)) == {"hp_vp_cap"}
    s = _state(A={"components": -1})
    assert _names(check_dict(s)) == {"non_negative"}
    s = _state(A={"deck": ["p"]})
    s["cards"]["p"] = {"kind": "creature", "owner": "A", "premade": True}
    assert _names(check_dict(s)) == {"premade_zones"}
    s = _state(A={"void": ["p"]})
    s["cards"]["p"] = {"kind": "creature", "owner": "A", "premade": True}
    assert _names(check_dict(s)) == {"premade_zones"}
    assert _names(check_dict(s, ruleset="kodex-4.15.1")) == set()
    s = _state(A={"hand": ["t"]})
    s["cards"]["t"] = {"kind": "creature", "owner": "A", "standalone_token": True}
    assert _names(check_dict(s)) == {"token_zones"}
    s = _state(A={"hand": ["c"], "graveyard": ["c"]})
    s["cards"]["c"] = {"kind": "creature", "owner": "A"}
    assert _names(check_dict(s)) == {"conservation"}
    s = _state(B={"graveyard": ["c"]})
    s["cards"]["c"] = {"kind": "creature", "owner": "A"}
    assert _names(check_dict(s)) == {"ownership"}
    s = _state(A={"guard_post": ["c"]})
    s["cards"]["c"] = {"kind": "creature", "owner": "A", "active": False}
    assert _names(check_dict(s)) == {"guard_post_active"}


def test_check_dict_compares_before_and_after() -> None:
    before = _state(A={"void": ["v"], "hand": ["h"]})
    before["cards"] = {"v": {"kind": "instant", "owner": "A"}, "h": {"kind": "instant", "owner": "A"}}
    after = copy.deepcopy(before)
    after["players"]["A"]["void"] = []
    after["players"]["A"]["hand"] = ["h", "v"]
    assert _names(check_dict(after, before=before)) == {"void_final"}
    gone = copy.deepcopy(before)
    gone["players"]["A"]["hand"] = []
    assert _names(check_dict(gone, before=before)) == {"conservation"}
    lost = copy.deepcopy(before)
    del lost["cards"]["h"]
    lost["players"]["A"]["hand"] = []
    assert "conservation" in _names(check_dict(lost, before=before))


def test_every_invariant_is_documented() -> None:
    import properties.invariants as inv
    for name in INVARIANTS:
        assert f"`{name}`" in inv.__doc__


# ---------------------------------------------------------------------------
# the driver
# ---------------------------------------------------------------------------

def test_driver_plays_legal_reproducible_games() -> None:
    given_, when = random_game(3, 120)
    assert (given_, when) == random_game(3, 120)
    assert next(iter(when[0])) == "start_game"
    res = run_case(given_, when)
    assert res.refused is None
    states = play_random(3, 120)
    assert len(states) == len(when) + 1
    assert to_dict(states[-1], RULES) == res.state
    for before, after in zip(states, states[1:]):
        _no_violations(check(after, RULES, before=before))


def test_random_play_with_reactions_keeps_every_invariant() -> None:
    """hkk-case/2 games (reaction cards, plays waiting on the queue, further cards, automatic
    abilities, alternation): every step keeps every invariant — the queue empties, nothing on it is
    in a zone, a prevented card's further cards go back, no card is lost — and replays the same."""
    stats: dict = {}
    findings = fuzz.fuzz_driver(24, 150, 7, stats=stats, versions=(2,))
    assert not findings, [str(v) for f in findings for v in f.violations[:3]]
    seen = Counter()
    for seed in range(24):
        drive(seed + 7, 150, version=2, keep_states=False,
              on_step=lambda st, step, out, i: seen.update(e["event"] for e in out.events))
    # the games really use the queue: plays wait, reactions prevent, further cards come back,
    # automatic abilities fire
    assert min(seen[e] for e in ("queued", "resolved", "prevented", "returned", "triggered")) > 0, seen


def test_driver_v2_games_are_reproducible_and_replay() -> None:
    given_, when, _ = drive(5, 120, version=2, keep_states=False)
    assert (given_, when) == drive(5, 120, version=2, keep_states=False)[:2]
    assert run_case(given_, when, version=2).refused is None


def test_driver_games_end() -> None:
    ended = sum(1 for seed in range(4) if play_random(seed, 400)[-1].result is not None)
    assert ended >= 2


# ---------------------------------------------------------------------------
# kodex fuzz
# ---------------------------------------------------------------------------

def test_fuzz_quick_finds_nothing_in_the_reference(tmp_path: Path) -> None:
    out = tmp_path / "fuzz.json"
    rc = fuzz.main(["--profile", "quick", "--examples", "20", "--random-cases", "20", "--games", "2",
                    "--seed", "1", "--json", str(out), "-q"])
    assert rc == 0, out.read_text()


def test_fuzz_against_the_reference_itself(tmp_path: Path) -> None:
    cmd = f"{sys.executable} -m conformance serve"
    rc = fuzz.main(["--profile", "quick", "--examples", "15", "--impl", cmd, "--out", str(tmp_path),
                    "--stderr", str(tmp_path / "impl.log"), "-q"])
    assert rc == 0
    assert not list(tmp_path.glob("*.yaml"))


BROKEN_IMPL = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    from conformance import serve
    _orig = serve.run_reply
    def run_reply(seq, case, ruleset_default="kodex"):
        reply = _orig(seq, case, ruleset_default)
        if reply.get("state") and any("heal" in s for s in case.get("when") or []):
            reply["state"]["players"]["A"]["hp"] -= 1
        return reply
    serve.run_reply = run_reply
    sys.exit(serve.serve())
""")


def test_fuzz_shrinks_a_difference_into_a_case(tmp_path: Path) -> None:
    from conformance.loader import load_files
    from conformance.matching import first_difference, observed_view
    script = tmp_path / "broken_impl.py"
    script.write_text(BROKEN_IMPL.format(root=str(ROOT)), encoding="utf-8")
    out = tmp_path / "found"
    rc = fuzz.main(["--profile", "quick", "--examples", "40", "--verbs", "heal,gain_vp",
                    "--impl", f"{sys.executable} {script}", "--out", str(out),
                    "--stderr", str(tmp_path / "impl.log"), "-q"])
    assert rc == 1
    files = list(out.glob("*.yaml"))
    assert len(files) == 1
    loaded = load_files([files[0]])
    assert not loaded.errors, [str(e) for e in loaded.errors]
    (case,) = loaded.cases
    raw = yaml.safe_load(files[0].read_text(encoding="utf-8"))["cases"][0]
    assert len(raw["when"]) <= 2 and any("heal" in s for s in raw["when"])   # shrunk
    assert raw["x-difference"]["path"].startswith("/players/A")
    res = run_case(raw.get("given"), raw.get("when"))
    view = observed_view(res.state, res.events, res.result, res.refused)
    assert first_difference(raw["then"], view, len(raw["when"])) is None   # the reference passes it


def test_a_game_collects_less_often_and_hands_the_thresholds_back() -> None:
    """properties/driver.py raises the cycle collector's first threshold during a game only: the
    caller's thresholds come back after the game, and after a game that raised."""
    import gc

    from properties import driver

    before = gc.get_threshold()
    seen = []

    def stepper(state, step, rules, i):
        seen.append(gc.get_threshold()[0])
        if i == 3:
            raise RuntimeError("a stepper that breaks")
        return apply(state, step, rules)

    given, when = random_game(5, 3)
    assert when and gc.get_threshold() == before
    with pytest.raises(RuntimeError, match="breaks"):
        driver.drive(5, 10, stepper=stepper)
    assert seen and set(seen) == {max(before[0], driver.GC_GEN0_DURING_GAME)}
    assert gc.get_threshold() == before
    gc.set_threshold(0)                       # collection off: left off
    try:
        driver.drive(5, 2, stepper=stepper)
        assert set(seen[-2:]) == {0}
    finally:
        gc.set_threshold(*before)
