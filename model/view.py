"""The state as data: the shape of `given`, with the computed values of hkk-case/1.

`to_dict` gives what an implementation returns over the protocol: all
players, all zones, every card with its fields and the derived `damage`,
`max_hp`, `hp`, `zone`, plus `removed`. Printed values stay in
`base_damage` / `base_hp` (rb7:sebzes-eletpont-alap-aktualis).
"""
from __future__ import annotations

from typing import Any, Collection

from . import combat, forms, queue, resources, stats
from .ruleset import Ruleset
from .state import PLAYERS, TABLE_ZONES, ZONES, Card, State, jcopy


def card_dict(state: State, card: Card, rules: Ruleset, queued: Collection[str] = ()) -> dict[str, Any]:
    loc = state.locate(card.id)
    zone = loc[1] if loc else ("removed" if card.id in state.removed else
                               "queue" if card.id in queued else None)     # 4.21.1: in no zone
    d: dict[str, Any] = {"kind": card.kind, "owner": card.owner, "zone": zone}
    if loc:
        d["player"] = loc[0]
    if card.name is not None:
        d["name"] = card.name
    if card.subtypes:
        d["subtypes"] = list(card.subtypes)
    if card.cost:
        d["cost"] = dict(card.cost)
    now = stats.cost(state, card, rules)
    if now != card.cost:
        d["cost"] = now                # the cost with the effects on it (99.7); printed in base_cost
        d["base_cost"] = dict(card.cost)
    if card.colors:
        d["colors"] = list(card.colors)
    if card.icons:
        d["icons"] = list(card.icons)
    if card.condition:
        d["condition"] = jcopy(card.condition)
    if card.base_damage is not None or card.base_hp is not None:
        d["base_damage"] = card.base_damage
        d["base_hp"] = card.base_hp
        d["damage"] = stats.damage(state, card, rules)
        top = d["max_hp"] = stats.max_hp(state, card, rules)
        d["hp"] = None if top is None else top - card.wounds      # stats.current_hp, from that maximum
    if card.components_yield:
        d["components_yield"] = card.components_yield
    d["wounds"] = card.wounds          # 0 off the table: wounds are lost on leaving it
    if zone in TABLE_ZONES:
        d["controller"] = loc[0]
        d["active"] = card.active
        if card.id in state.turn_info.dying:
            d["dying"] = True          # at 0 Ép or less, a life-saving action may still come (model/damage.py)
    d["counters"] = {k: v for k, v in card.counters.items() if v}
    d["premade"] = card.premade
    d["standalone_token"] = card.standalone_token
    if card.abilities:
        d["abilities"] = jcopy(card.abilities)
    if card.attached_to:
        d["attached_to"] = card.attached_to
    if card.bonus:
        d["bonus"] = dict(card.bonus)
    if card.effects:
        d["effects"] = jcopy(card.effects)
    if card.continuous:
        d["continuous"] = jcopy(card.continuous)
    if card.replace:
        d["replace"] = jcopy(card.replace)
    if zone in TABLE_ZONES and card.id in state.turn_info.just_damaged:
        d["just_damaged"] = True       # damaged by the last step: a life-saving action may follow (136.8)
    if card.needs_target:
        d["needs_target"] = True
    if card.play_as:
        d["play_as"] = {kind: _fields(f) for kind, f in card.play_as.items()}    # rb7:ketfelekeppen-…
    if card.modes:
        d["modes"] = jcopy(card.modes)                                           # 111.7
    if card.original is not None:
        d["original"] = _fields(card.original)     # what it takes back when it leaves the table
    for k, v in card.extra.items():
        d.setdefault(k, jcopy(v))
    d.update(combat.card_flags(state, card))
    return d


def _fields(attrs: dict[str, Any]) -> dict[str, Any]:
    """A form's Card attributes (model/forms.py) under their card-definition names."""
    return {("kind" if attr == "kind" else forms.ATTRIBUTE_NAMES[attr]): jcopy(v) for attr, v in attrs.items()}


def to_dict(state: State, rules: Ruleset) -> dict[str, Any]:
    players = {}
    for p in PLAYERS:
        pl = state.players[p]
        top_hp = resources.maximum(state, p, "hp", rules.priority_policy)
        top_vp = resources.maximum(state, p, "vp", rules.priority_policy)
        pd: dict[str, Any] = {"hp": pl.hp, "max_hp": top_hp, "vp": pl.vp, "max_vp": top_vp,
                              "components": pl.components, "turn": pl.turn}
        if top_hp != pl.max_hp:
            pd["base_max_hp"] = pl.max_hp       # the maximum without the effects in force
        if top_vp != pl.max_vp:
            pd["base_max_vp"] = pl.max_vp
        if pl.skip:
            pd["skip_phases"] = list(pl.skip)   # 4.10.7: phases the player's next turn passes over
        for z in ZONES:
            pd[z] = list(pl.zones[z])
        players[p] = pd
    queued = queue.queued_cards(state) if state.queue else ()
    turn: dict[str, Any] = {"active": state.active, "phase": state.phase}
    if state.phase == "combat" and state.turn_info.combat_step:
        turn["combat_step"] = state.turn_info.combat_step     # rb7:harci-fazis I–VII
    out: dict[str, Any] = {
        "turn": turn,
        "players": players,
        "cards": {cid: card_dict(state, c, rules, queued) for cid, c in state.cards.peek_items()},
        "removed": list(state.removed),
        "seed": state.seed,
        "ruleset": rules.name,
    }
    if state.lasting:
        out["lasting"] = jcopy(state.lasting)             # timed effects in force (99.4)
    if state.delayed:
        out["delayed"] = jcopy(state.delayed)             # delayed resources to come (114)
    if state.pending:
        out["pending"] = jcopy(state.pending)   # the decision and the step it resumes
    if state.queue:
        out["queue"] = [queue.public(e) for e in state.queue]    # 4.21.1: what waits for answers
    if state.missed:
        out["missed"] = [{k: m[k] for k in ("card", "ability", "player")} for m in state.missed]  # 133.4
    return out


def result_of(state: State) -> Any:
    return jcopy(state.result) if state.result else "ongoing"
