"""Zone and phase names inside the engine are the modules' own strings (docs/engine-semantics.md).

The zone mover (model/zones.py `_ZONE_OF_DEST`) and the state reader (model/state.py `from_given`)
replace a name read from a case with the module's own string, as an enum member would be. The
`is` mutants that `kodex strength` declares equivalent (properties/strength_equivalent.yaml) rely
on it, so it is checked here over the whole corpus, with every input string first made a fresh,
uninterned object (as the YAML loader and the protocol's JSON build them).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance.loader import load_files
from model.engine import apply
from model.errors import InputProblem
from model.ruleset import load_ruleset
from model.state import PHASES, ZONES, from_given

ROOT = Path(__file__).resolve().parent.parent
_ZONE_OBJECTS = {id(z) for z in ZONES}
_PHASE_OBJECTS = {id(p) for p in PHASES}


def _fresh(value: Any) -> Any:
    """A deep copy whose strings are new objects (never the interned literals of model/)."""
    if isinstance(value, str):
        return "".join(list(value)) if len(value) > 1 else value
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    if isinstance(value, dict):
        return {_fresh(k): _fresh(v) for k, v in value.items()}
    return value


def _check(state, where: str) -> None:
    for cid, (player, zone) in state.where.items():
        assert id(zone) in _ZONE_OBJECTS, f"{where}: {cid} is in {zone!r}, not the module's own string"
    assert id(state.phase) in _PHASE_OBJECTS, f"{where}: phase {state.phase!r} is not the module's own string"


def test_fresh_strings_are_not_the_literals():
    # the check below would be vacuous if copying kept the interned objects
    literal = "graveyard"
    assert _fresh(literal) is not literal and _fresh(literal) == literal


def test_a_zone_named_by_a_step_is_stored_as_the_module_s_own():
    rules = load_ruleset("kodex")
    state = from_given(_fresh({"turn": {"phase": "main2"}, "players": {"A": {"reserve": ["c1"]}},
                               "cards": {"c1": {"kind": "creature", "damage": 1, "hp": 2}}}), rules)
    _check(state, "given")
    out = apply(state, _fresh({"move": {"card": "c1", "to": "graveyard"}}), rules)
    assert out.refusal is None
    assert out.state.where["c1"] == ("A", "graveyard")
    _check(out.state, "after the move")


def test_every_state_of_the_corpus_holds_only_canonical_names():
    loaded = load_files([ROOT / "conformance" / "corpus"])
    assert not loaded.errors
    checked = 0
    for case in loaded.cases:
        for name in case.rulesets or ["kodex"]:
            rules = load_ruleset(name)
            try:
                state = from_given(_fresh(case.given), rules)
            except InputProblem:
                continue
            _check(state, f"{case.id} given")
            for i, step in enumerate(case.when):
                try:
                    out = apply(state, _fresh(step), rules)
                except InputProblem:
                    break
                state = out.state
                _check(state, f"{case.id} step {i}")
                checked += 1
    assert checked > 3000
