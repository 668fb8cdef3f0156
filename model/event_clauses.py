"""Which clause produced each event: the one registry `Game.emit` consults when a call names none.

Clauses: every event type of docs/spec/hkk-vocabulary.md, "Events", mapped to the clause (or
clauses) of the Kódex, the 7th-edition rulebook or the M.A.G.U.S. rules that makes it happen.
An event whose call names its clause (a refusal-like `effect_prevented`, a `counter_prevented`,
a `conflict_resolved` decided by 102 / mk:5.10 …) keeps it; the registry fills in the rest:

- `EVENT`: event type → clause, where the type alone decides it;
- `BY_FIELD`: event type → (field, {value → clause}, default) where a field of the event tells
  which rule produced it (`moved.cause`, the counter's name, the phase, the combat sub-phase …);
- `ALSO`: further clauses a field adds (a move that counts as another zone: 4.16.2, 4.15.1).

An event type missing here gets no clause: tests/test_event_clauses.py runs the whole corpus and
names it, so a new event type is registered here with its clause (one place, not every `emit`).
The fields are an addition of this engine (docs/spec/hkk-vocabulary.md, "The `clause` of an
event"): `clauses` on every event, `clause` on the events whose row does not list it; an
implementation need not send them and no case can require them (the loader rejects a field an
event's row does not list, and `clauses` is in none).
"""
from __future__ import annotations

from typing import Any

# event type → the clause that produces it
EVENT: dict[str, str] = {
    "created": "96.6",
    "played": "4.21.0",
    "drew": "4.12.0",
    "discarded": "4.17.0",
    "milled": "4.18.0",
    "exiled": "4.16.0",
    "shuffled": "4.15.0",
    "hand_revealed": "4.4.1",
    "died": "rb7:lenyek",
    "destroyed": "rb7:epitmenyek",
    "dying": "136.8",
    "saved": "136.8",
    "life_counter_used": "134.4.0",
    "damaged": "4.25.0",
    "healed": "4.26",
    "wounds_healed": "rb7:gyogyulasi-fazis",
    "hp_excess_lost": "3.18",
    "vp_excess_lost": "3.18",
    "vp_gained": "3.13",
    "vp_lost": "115.0",
    "vp_spent": "4.20.2",
    "components_gained": "rb7:lenyek",
    "components_lost": "115.0",
    "components_spent": "4.20.2",
    "max_hp_changed": "3.19",
    "max_vp_changed": "3.19",
    "hp_sacrificed": "103.1",
    "max_hp_sacrificed": "103.1",
    "control_changed": "5.6.2",
    "passivated": "5.5.7.1",
    "activated": "4.9.3",
    "combat_ability": "129.0",
    "combat_ability_declared": "rb7:harci-fazis.IV",
    "abilities_copied": "131.11",
    "attack_declared": "rb7:harci-fazis.II",
    "strike_back_chosen": "rb7:harci-fazis.VI",
    "strike": "rb7:harci-fazis.VI",
    "muscle_reward": "124.2",
    "penalty": "135.2",
    "compensation": "135.4",
    "reward": "rb7:jutalom",
    "phase_skipped": "4.10.7",
    "recycled": "135.8",
    "decision_pending": "4.23.5",
    "replaced": "mk:5.12.B",
    "effect_started": "99.4",
    "effect_ended": "99.4",
    "resource_delayed": "114.0",
    "resource_arrived": "114.1",
    "repeated": "106.1",
    "passed": "4.11.7",
    "turn_started": "4.10.2",
    "effect_prevented": "4.24.2",
    "removed_from_game": "107",
    # hkk-case/2 (docs/spec/hkk-reactions.md)
    "queued": "4.21.1",
    "resolved": "rb7:kijatszasi-sorrend",
    "prevented": "4.21.2",
    "prevent_set": "137.3",
    "modify_set": "rb7:kijatszasi-sorrend",
    "returned": "4.21.2",
    "triggered": "133.0",
    "missed": "133.4",
    "made_up": "133.4",
}

_PHASES = {"preparation": "rb7:elokeszito-fazis", "draw": "rb7:huzasi-fazis",
           "main1": "rb7:fo-fazis", "main2": "rb7:fo-fazis", "exchange": "rb7:csere-fazis",
           "combat": "rb7:harci-fazis", "end": "rb7:gyogyulasi-fazis"}
_COUNTERS = {"poison": "121.1", "sleep": "118.1", "freeze": "119.1", "life": "134.4.0",
             "muscle": "124.1", "aging": "123.1", "level": "125.2", "delay": "127.1",
             "temporary": "127.2", "fading": "122.1", "strength": "117.3", "weakness": "117.4"}

# event type → (field, {value of the field → clause}, clause for any other value)
BY_FIELD: dict[str, tuple[str, dict[Any, str], str]] = {
    "moved": ("cause", {
        "draw": "4.12.0", "opening_hand": "3.6", "search": "4.13.0", "return": "4.14.0",
        "shuffle": "4.15.0", "exile": "4.16.0", "discard": "4.17.0", "mill": "4.18.0",
        "nekron": "rb7:semmizos-idezesi-koltseg-nekron", "sacrifice": "rb7:felaldozas",
        "destroy": "rb7:lapok-elpusztitasa", "play": "4.21.0", "resolve": "4.7.1",
        "effect": "97.0", "exchange": "rb7:csere-fazis", "steal": "rb7:lapok-gazdaja-tulajdonosa",
        "create": "96.6", "attached": "5.5.5", "shadow": "136.9"}, "97.0"),
    "sacrificed": ("forced", {True: "104.0", False: "105.0"}, "105.0"),
    "counter_added": ("counter", _COUNTERS, "117.2"),
    "counter_removed": ("counter", {**_COUNTERS, "sleep": "118.3", "freeze": "119.3",
                                    "delay": "127.0.1", "temporary": "127.0.1"}, "117.2"),
    "counter_prevented": ("counter", _COUNTERS, "117.0"),
    "damage_prevented": ("element", {None: "132.12"}, "132.9"),
    "ability_activated": ("ability", {"regeneration": "136.6", "shadow": "136.9", "exiling": "4.16.4"},
                          "136.0"),
    "combat_step": ("step", {s: f"rb7:harci-fazis.{s}"
                             for s in ("I", "II", "III", "IV", "V", "VI", "VII")}, "rb7:harci-fazis"),
    "phase_started": ("phase", _PHASES, "4.11.1"),
    "phase_ended": ("phase", _PHASES, "4.11.7"),
    "game_ended": ("draw", {True: "3.15"}, "3.14"),
    # an undecided conflict names no deciding clause (`clause` absent): the policy's own clause
    # is the one that left it undecided (below, `clauses` only)
    "conflict_resolved": ("policy", {"kodex-102": "102", "mk-5.10": "mk:5.10"}, "102"),
}

# event type → (field, {value → a further clause}): rules that add to what the event says
ALSO: dict[str, tuple[str, dict[Any, str]]] = {
    "moved": ("counts_as", {"graveyard": "4.16.2", "deck": "4.15.1"}),
}


def clauses_of(ev: dict[str, Any]) -> list[str]:
    """The clauses that produced the event ``ev`` (its own ``clause`` first when it has one)."""
    name = ev.get("event")
    out = [ev["clause"]] if ev.get("clause") is not None else []
    if not out:
        rule = BY_FIELD.get(name)
        if rule is not None:
            field, table, default = rule
            out.append(table.get(ev.get(field), default))
        elif name in EVENT:
            out.append(EVENT[name])
    extra = ALSO.get(name)
    if extra is not None:
        further = extra[1].get(ev.get(extra[0]))
        if further is not None and further not in out:
            out.append(further)
    return out


# the events whose `clause` has a meaning of its own in docs/spec/hkk-vocabulary.md (the rule
# that stopped, prevented or decided something; present only where such a rule named it): the
# registry never writes their `clause` (tests/test_event_clauses.py checks this list against the
# vocabulary)
OWN_CLAUSE = frozenset({
    "removed_from_game", "hand_revealed", "damage_prevented", "counter_added", "counter_removed",
    "counter_prevented", "effect_prevented", "decision_pending", "conflict_resolved", "replaced",
    "repeated", "queued", "resolved", "prevented", "prevent_set", "modify_set", "returned", "triggered",
    "missed", "made_up"})
# every other registered event: the field the first of its clauses goes to
PLAIN = {name: "clause" for name in set(EVENT) | set(BY_FIELD) if name not in OWN_CLAUSE}


def stamp(ev: dict[str, Any]) -> None:
    """Give ``ev`` its clauses in place: ``clauses``, every clause that produced it (the one the
    call named first), and for an event whose `clause` has no meaning of its own (PLAIN) also
    ``clause``, the first of them. An OWN_CLAUSE event keeps ``clause`` as the call gave it
    (absent where no rule named one: an undecided conflict). So what the registry adds is never a
    field a case may name (docs/spec/hkk-vocabulary.md, "The `clause` of an event")."""
    name = ev["event"]
    if "clause" not in ev:
        fixed = FIXED_CLAUSE.get(name)
        if fixed is None:                                   # a field of the event tells the rule
            rule = BY_FIELD.get(name)
            if rule is not None and name not in ALSO:
                fixed = rule[1].get(ev.get(rule[0]), rule[2])
        if fixed is not None:                               # one clause, no look-up beyond it
            ev["clauses"] = [fixed]
            if name in PLAIN:
                ev["clause"] = fixed
            return
    found = clauses_of(ev)
    if not found:
        return
    ev["clauses"] = found
    field = PLAIN.get(ev["event"])
    if field:
        ev[field] = found[0]


# the types whose clause the type alone decides (no field read, nothing added): stamped at once
FIXED_CLAUSE = {name: clause for name, clause in EVENT.items() if name not in BY_FIELD and name not in ALSO}

__all__ = ["ALSO", "BY_FIELD", "EVENT", "FIXED_CLAUSE", "OWN_CLAUSE", "PLAIN", "clauses_of", "stamp"]
