"""The shape of the data the engine reads for lasting and replacing effects, delayed resources and
the combat sub-phases: card fields `continuous` and `replace`, state fields `lasting` and
`delayed`, `turn.combat_step`. Input errors name the field (a JSON pointer into `given`).

The rules these data carry out: model/continuous.py (99.4, 99.5, 99.1), model/numbers.py (102,
mk:5.11), model/replacement.py (mk:5.12), model/delayed.py (114), model/combat_steps.py
(rb7:harci-fazis I–VII). This module only checks shapes.
"""
from __future__ import annotations

from typing import Any

from .errors import InputProblem
from .priority import ABILITY_KINDS

PLAYERS = ("A", "B")
COST_KEYS = ("vp", "components", "builders", "sacrifice", "nekron")
# a card's summoning cost, part by part, as numbers (99.7, mk:5.01.C); never below 0
COST_NUMBERS = tuple(f"cost_{k}" for k in COST_KEYS)
# the use cost of a card's activated abilities, part by part (99.0; 99.3 fixes some: model/activation_costs.py)
ABILITY_COST_NUMBERS = tuple(f"ability_cost_{k}" for k in COST_KEYS)
# the ruleset's numbers a card may change: per creature, per player ("ha egy kártya mást nem diktál")
CARD_RULE_NUMBERS = ("regeneration_cap",)                     # 136.7
PLAYER_RULE_NUMBERS = ("guard_post_size", "draw_per_turn")   # 5.4.3, rb7:huzasi-fazis
NUMBERS = (("damage", "hp", "max_hp", "max_vp") + COST_NUMBERS  # of a card (damage, hp, cost_*); of a player
           + CARD_RULE_NUMBERS + PLAYER_RULE_NUMBERS + ABILITY_COST_NUMBERS)
AMOUNT_NUMBERS = ("spell_damage", "spell_healing", "damage_taken", "spell_discard", "spell_draw")
# on a discard / draw step: its count is not a spell effect's to modify (again) — the spell's
# modifier was applied (a rest, a decision), or a keyword ability's number sets it (134.10)
COUNTED_MARK = "_counted"
PROHIBITIONS = ("attack", "heal", "draw", "be_passivated", "play")
# the characteristics of a spell (111, model/spells.py) and the clause of each; `prohibit: play`
# names those of the spells it forbids (`spells: [...]`)
CHARACTERISTICS = {"damaging": "111.1.0", "healing": "111.2.0", "discarding": "111.3.0",
                   "exiling": "111.4.0", "drawing": "111.5.0", "searching": "111.6.0",
                   "targeting": "111.7"}
REQUIREMENTS = ("attack",)
SCOPES = ("self", "attached", "own_creatures", "opponent_creatures", "all_creatures",
          "controller", "opponent", "players")
PLAYER_SCOPES = ("controller", "opponent", "players")
# a scope as a mapping (99.6): the cards of these zones (default: the table's) of the entry's
# controller / the opponent / both, optionally of one kind and one colour
ZONE_SCOPE_FIELDS = ("zones", "player", "kind", "color")
SCOPE_ZONES = ("hand", "deck", "graveyard", "void", "reserve", "guard_post", "table")
TABLE_SCOPE_ZONES = ("reserve", "guard_post", "table")
UNTIL = ("end_of_turn", "end_of_phase")
ENTRY_KINDS = ("number", "grant", "lose", "prohibit", "require")
_ENTRY_FIELDS = {"id", "number", "add", "set", "limit", "grant", "lose", "prohibit", "require",
                 "scope", "strong", "ability", "prohibiting", "settles", "spells"}
LASTING_FIELDS = {"id", "source", "by", "effect", "affects", "until", "turns_left", "created"}

REPLACEABLE = ("damage", "heal", "draw", "discard", "mill", "gain_vp", "destroy", "sacrifice",
               "put_counter")
_REPLACER_FIELDS = {"id", "event", "scope", "instead", "strong", "ability", "prohibiting", "settles"}
COMBAT_STEPS = ("I", "II", "III", "IV", "V", "VI", "VII")
DELAYED_AT = ("end_of_turn", "next_preparation", "end_of_phase")
_DELAYED_FIELDS = {"id", "at", "trigger", "step", "by", "source", "created"}


# ---------------------------------------------------------------------------
# checking entries (input errors name the field)
# ---------------------------------------------------------------------------

def check_entry(e: Any, where: str, lasting: bool = False) -> None:
    if not isinstance(e, dict):
        raise InputProblem(f"{where}: a continuous effect is a mapping")
    unknown = set(e) - _ENTRY_FIELDS
    if unknown:
        raise InputProblem(f"{where}: unknown field(s) {sorted(unknown)}")
    kinds = [k for k in ENTRY_KINDS if k in e]
    if len(kinds) != 1:
        raise InputProblem(f"{where}: exactly one of {', '.join(ENTRY_KINDS)}")
    k = kinds[0]
    if k == "number":
        if e["number"] not in NUMBERS + AMOUNT_NUMBERS:
            raise InputProblem(f"{where}/number: one of {', '.join(NUMBERS + AMOUNT_NUMBERS)}")
        ops = [o for o in ("add", "set") if o in e]
        if len(ops) != 1:
            raise InputProblem(f"{where}: a number effect has exactly one of add, set")
        if not is_int(e[ops[0]]):
            raise InputProblem(f"{where}/{ops[0]}: an integer")
        if e["number"] in AMOUNT_NUMBERS and "set" in e:
            raise InputProblem(f"{where}/set: {e['number']} is only modified (add)")
        if "limit" in e and ("set" in e or not is_int(e["limit"])):
            raise InputProblem(f"{where}/limit: an integer, on an `add` only (mk:5.11.A)")
    elif k == "grant":
        if not isinstance(e["grant"], list) or not all(isinstance(a, dict) and "keyword" in a
                                                       for a in e["grant"]):
            raise InputProblem(f"{where}/grant: a list of ability entries")
    elif k == "lose":
        if not isinstance(e["lose"], list) or not all(isinstance(a, str) for a in e["lose"]):
            raise InputProblem(f"{where}/lose: a list of keyword names")
    elif k == "prohibit" and e["prohibit"] not in PROHIBITIONS:
        raise InputProblem(f"{where}/prohibit: one of {', '.join(PROHIBITIONS)}")
    if (e.get("prohibit") == "play") != ("spells" in e):
        raise InputProblem(f"{where}/spells: the characteristics of the spells a `prohibit: play` forbids, "
                           "on that entry only")
    if "spells" in e and not (isinstance(e["spells"], list) and e["spells"]
                              and all(c in CHARACTERISTICS for c in e["spells"])):
        raise InputProblem(f"{where}/spells: a non-empty list of {', '.join(CHARACTERISTICS)}")
    elif k == "require" and e["require"] not in REQUIREMENTS:
        raise InputProblem(f"{where}/require: one of {', '.join(REQUIREMENTS)}")
    scope = e.get("scope", "self")
    _check_scope(scope, where)
    if lasting and isinstance(scope, dict) and set(scope.get("zones") or TABLE_SCOPE_ZONES) - set(TABLE_SCOPE_ZONES):
        raise InputProblem(f"{where}/scope/zones: a timed effect reaches only the permanents in play "
                           "when it comes into being (99.5), never hand, deck, graveyard or Void")
    if e.get("ability") not in (None, *ABILITY_KINDS):
        raise InputProblem(f"{where}/ability: one of {', '.join(ABILITY_KINDS)} or null")
    for flag in ("strong", "prohibiting"):
        if flag in e and not isinstance(e[flag], bool):
            raise InputProblem(f"{where}/{flag}: true or false")
    check_settles(e, where)


def check_settles(e: dict[str, Any], where: str) -> None:
    """mk:5.10.A `settles`: the ids of the effects this one's text settles a contradiction with."""
    s = e.get("settles", [])
    if not isinstance(s, list) or not all(isinstance(x, str) and x for x in s):
        raise InputProblem(f"{where}/settles: a list of effect ids")


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def repeats(items: list[Any]) -> bool:
    """Does the list name an item more than once? (The list against its first occurrences, not
    two lengths: the one way every rule and input check asks it.)"""
    return list(dict.fromkeys(items)) != items


def _check_created(item: dict[str, Any], where: str) -> None:
    """`created`, a time on the state's clock (docs/spec/hkk-effects.md): an integer, 0 or more."""
    if "created" in item and not (is_int(item["created"]) and item["created"] >= 0):
        raise InputProblem(f"{where}/created: a time on the state's clock, an integer 0 or more")


def check_lasting(item: Any, where: str) -> dict[str, Any]:
    """A timed effect of `given.lasting` (or as `add_effect` stored it)."""
    if not isinstance(item, dict):
        raise InputProblem(f"{where}: a timed effect is a mapping")
    unknown = set(item) - LASTING_FIELDS
    if unknown:
        raise InputProblem(f"{where}: unknown field(s) {sorted(unknown)}")
    for req in ("id", "effect", "affects"):
        if req not in item:
            raise InputProblem(f"{where}: `{req}` is required")
    check_entry(item["effect"], f"{where}/effect", lasting=True)
    if not isinstance(item["affects"], list) or not all(isinstance(x, str) for x in item["affects"]):
        raise InputProblem(f"{where}/affects: a list of card ids and players")
    until = item.get("until", "end_of_turn")
    if until not in UNTIL and until != "turns":
        raise InputProblem(f"{where}/until: end_of_turn, end_of_phase or turns (with turns_left)")
    if until == "turns" and not (is_int(item.get("turns_left")) and item["turns_left"] > 0):
        raise InputProblem(f"{where}/turns_left: a positive integer")
    if "by" in item and item["by"] not in PLAYERS:
        raise InputProblem(f"{where}/by: A or B")
    _check_created(item, where)
    out = dict(item)
    out.setdefault("until", "end_of_turn")
    out.setdefault("created", 0)
    return out



def _check_scope(scope: Any, where: str) -> None:
    if isinstance(scope, dict):
        unknown = set(scope) - set(ZONE_SCOPE_FIELDS)
        if unknown:
            raise InputProblem(f"{where}/scope: unknown field(s) {sorted(unknown)}; "
                               f"a zone scope has {', '.join(ZONE_SCOPE_FIELDS)}")
        zones = scope.get("zones", list(TABLE_SCOPE_ZONES))
        if not isinstance(zones, list) or not zones or not all(z in SCOPE_ZONES for z in zones):
            raise InputProblem(f"{where}/scope/zones: a non-empty list of {', '.join(SCOPE_ZONES)}")
        if scope.get("player", "controller") not in PLAYER_SCOPES:
            raise InputProblem(f"{where}/scope/player: one of {', '.join(PLAYER_SCOPES)}")
        for k in ("kind", "color"):
            if k in scope and not (isinstance(scope[k], str) and scope[k]):
                raise InputProblem(f"{where}/scope/{k}: a name")
        return
    if not (scope in SCOPES or (isinstance(scope, list) and all(isinstance(x, str) for x in scope))):
        raise InputProblem(f"{where}/scope: one of {', '.join(SCOPES)}, a list of card ids, "
                           "or a zone scope {zones, player, kind, color}")


def check_replacer(e: Any, where: str) -> None:
    """A replacement effect of a card's `replace` list (mk:5.12)."""
    if not isinstance(e, dict):
        raise InputProblem(f"{where}: a replacement effect is a mapping")
    unknown = set(e) - _REPLACER_FIELDS
    if unknown:
        raise InputProblem(f"{where}: unknown field(s) {sorted(unknown)}")
    if e.get("event") not in REPLACEABLE:
        raise InputProblem(f"{where}/event: one of {', '.join(REPLACEABLE)}")
    inst = e.get("instead")
    if not isinstance(inst, list) or not all(isinstance(x, dict) and len(x) == 1 for x in inst):
        raise InputProblem(f"{where}/instead: a list of steps (one verb each); [] for nothing")
    _check_scope(e.get("scope", "self"), where)
    if e.get("ability") not in (None, *ABILITY_KINDS):
        raise InputProblem(f"{where}/ability: one of {', '.join(ABILITY_KINDS)} or null")
    check_settles(e, where)


CONDITION_STEPS = ("discard", "mill", "sacrifice_hp")
# `{controls: {...}}`: what a card its player controls in play must be (rb7:hegymelyi)
CONTROLS_FIELDS = ("kind", "subtype", "icon")


def check_condition(value: Any, where: str) -> list[dict[str, Any]]:
    """A card's play conditions (kijátszási feltétel, mk:5.01.C, model/conditions.py): each either
    `{colors: [...]}` (a card of one of these colours shown from the hand or controlled in play,
    rb7:ketszinu-lapok), `{controls: {kind, subtype, icon}}` (a card so described under the
    player's control in play, rb7:hegymelyi) or one step fulfilled by the card's player
    (mk:5.12.B: a replaced one counts as fulfilled)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputProblem(f"{where}: a list of conditions")
    for i, c in enumerate(value):
        w = f"{where}/{i}"
        if not isinstance(c, dict) or len(c) != 1:
            raise InputProblem(f"{w}: a condition is {{colors: [...]}}, {{controls: {{...}}}} or one step")
        (k, v), = c.items()
        if k == "colors":
            if not isinstance(v, list) or not v or not all(isinstance(x, str) and x for x in v):
                raise InputProblem(f"{w}/colors: a non-empty list of colours")
        elif k == "controls":
            if not isinstance(v, dict) or not v or set(v) - set(CONTROLS_FIELDS) \
                    or not all(isinstance(x, str) and x for x in v.values()):
                raise InputProblem(f"{w}/controls: a mapping of {', '.join(CONTROLS_FIELDS)} (names), "
                                   "at least one")
        elif k not in CONDITION_STEPS or not isinstance(v, dict):
            raise InputProblem(f"{w}: a condition step is one of {', '.join(CONDITION_STEPS)} with its arguments")
    return [dict(c) for c in value]


def check_pattern(pattern: Any, where: str) -> None:
    """An event pattern (a delayed resource's `trigger`, as an automatic ability's): one event name
    and the fields it must have."""
    if not isinstance(pattern, dict) or not isinstance(pattern.get("event"), str):
        raise InputProblem(f"{where}: an event pattern {{event: NAME, field: value, …}}")


def check_delayed(item: Any, where: str, default_id: str = "delayed") -> dict[str, Any]:
    """A delayed resource of `given.delayed` (114)."""
    if not isinstance(item, dict):
        raise InputProblem(f"{where}: a delayed resource is a mapping")
    unknown = set(item) - _DELAYED_FIELDS
    if unknown:
        raise InputProblem(f"{where}: unknown field(s) {sorted(unknown)}")
    if "trigger" in item:                # hkk-case/2: it comes on an event (114.2, model/delayed.py)
        if "at" in item:
            raise InputProblem(f"{where}: `at` or `trigger`, not both")
        check_pattern(item["trigger"], f"{where}/trigger")
    elif item.get("at") not in DELAYED_AT:
        raise InputProblem(f"{where}/at: one of {', '.join(DELAYED_AT)}")
    step = item.get("step")
    if not isinstance(step, dict) or len(step) != 1:
        raise InputProblem(f"{where}/step: one step (one verb and its arguments)")
    if item.get("by", "A") not in PLAYERS:
        raise InputProblem(f"{where}/by: A or B")
    _check_created(item, where)
    out = dict(item)
    out.setdefault("id", default_id)
    out.setdefault("by", "A")
    return out


def check_step(step: Any, phase: str, where: str) -> str:
    """`turn.combat_step`: a sub-phase I–VII of the combat phase (also written 1–7)."""
    if is_int(step) and 1 <= step <= 7:
        step = COMBAT_STEPS[step - 1]
    if step not in COMBAT_STEPS:
        raise InputProblem(f"{where}: one of {', '.join(COMBAT_STEPS)} (or 1–7)")
    if phase != "combat":
        raise InputProblem(f"{where}: only in the combat phase")
    return step
