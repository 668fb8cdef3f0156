"""The form a card is in: cards usable two ways, the chosen mode of a modal card, copied abilities.

Clauses covered:
- rb7:ketfelekeppen-hasznalhato-lapok: a card that may be played as another kind (`play_as:
  {kind: {fields}}`, `play: {as: kind}`) is its original form while it is in the hand, the deck or
  the graveyard (and the Void); from the moment it is played it is the form it was played as (its
  kind, cost, effects, abilities, ...); when it leaves the table, or resolves into the graveyard,
  it is the original again. Taking the form is the play's (`choose`, from model/play.py); taking the
  original back is a zone rule: the one zone mover does it (model/zones.py `move_card`, `restore`).
- 111.7: a modal card (`modes: [{effects, needs_target}]`, `play: {mode: i}`) is played with the
  effects of the mode chosen at its play (model/spells.py reads the characteristics from them).
- 131.11 (model/copies.py): abilities copied onto a permanent are its abilities while it stays on
  the table; they go with the other changes when it leaves.

A form is a set of Card attributes (FORM_FIELDS): taking one records the attributes it replaces in
`card.original` (only the first time: the printed values), `restore` puts them back. This module
reads and changes Card objects only; it imports no engine module but model/errors.py
(model/state.py imports it).
"""
from __future__ import annotations

from typing import Any

from .errors import InputProblem

# the fields of a card definition a form gives (definition name -> Card attribute); a field the
# form does not name is that attribute's empty value (FORM_DEFAULTS): a form is a card of its own
FORM_FIELDS: dict[str, str] = {
    "cost": "cost", "damage": "base_damage", "hp": "base_hp", "components_yield": "components_yield",
    "subtypes": "subtypes", "abilities": "abilities", "bonus": "bonus", "effects": "effects",
    "continuous": "continuous", "replace": "replace", "needs_target": "needs_target", "modes": "modes",
}
FORM_DEFAULTS: dict[str, Any] = {
    "cost": {}, "base_damage": None, "base_hp": None, "components_yield": 0, "subtypes": [],
    "abilities": [], "bonus": {}, "effects": [], "continuous": [], "replace": [], "needs_target": False,
    "modes": [],
}
ATTRIBUTE_NAMES: dict[str, str] = {attr: name for name, attr in FORM_FIELDS.items()}
MODE_FIELDS = ("effects", "needs_target")


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def take(card: Any, attrs: dict[str, Any]) -> None:
    """The card now has these attributes (`kind` and FORM_FIELDS attributes); the values they
    change are kept in `card.original` (the first value of each: what the card takes back)."""
    original = dict(card.original or {})
    for attr, value in attrs.items():
        now = getattr(card, attr)
        if now == value:
            continue
        if attr not in original:
            original[attr] = _copy(now)
        setattr(card, attr, _copy(value))
    if original:
        card.original = original


def restore(card: Any) -> None:
    """rb7:ketfelekeppen-hasznalhato-lapok: the card is its original form again (it left the table
    or resolved into the graveyard); copied abilities and a chosen mode go with it."""
    if card.original is None:
        return
    for attr, value in card.original.items():
        setattr(card, attr, value)
    card.original = None


def form_attrs(card: Any, kind: str) -> dict[str, Any]:
    """The attributes of the card's form `kind`: its kind and every form field (the unnamed ones
    empty)."""
    named = card.play_as[kind]
    return {"kind": kind, **{attr: named.get(attr, default) for attr, default in FORM_DEFAULTS.items()}}


def choose(g: Any, card: Any, kind: Any, mode: Any) -> None:
    """At the play: the form the card is played as (`as`, rb7:ketfelekeppen-hasznalhato-lapok),
    then the mode of a modal card (`mode`, 111.7). Refused when the card offers no such form or
    mode, or when a modal card is played without a mode."""
    if kind is not None and kind != card.kind:
        if not isinstance(kind, str) or kind not in card.play_as:
            offered = ", ".join([card.kind, *card.play_as]) if card.play_as else card.kind
            g.refuse("rb7:ketfelekeppen-hasznalhato-lapok",
                     f"{card.id} cannot be played as {kind!r}: it is played as {offered}")
        take(card, form_attrs(card, kind))
    if mode is None and not card.modes:
        return
    if not card.modes:
        g.refuse("111.7", f"{card.id} has no modes to choose from: `mode` names a choice it does not offer")
    if isinstance(mode, bool) or not isinstance(mode, int) or not 0 <= mode < len(card.modes):
        g.refuse("111.7", f"{card.id} is played with one of its {len(card.modes)} modes chosen "
                          f"(mode 0–{len(card.modes) - 1}), not {mode!r}")
    chosen = card.modes[mode]
    take(card, {"effects": chosen.get("effects") or [],
                "needs_target": bool(chosen.get("needs_target", card.needs_target))})


def check_modes(value: Any, where: str) -> list[dict[str, Any]]:
    """A card's `modes`: a list of at least two `{effects: [steps], needs_target: bool}`."""
    if value is None:
        return []
    if not isinstance(value, list) or len(value) < 2:
        raise InputProblem(f"{where}: a list of at least two modes, each {{effects, needs_target}}")
    for i, m in enumerate(value):
        if not isinstance(m, dict) or not isinstance(m.get("effects"), list) \
                or set(m) - set(MODE_FIELDS):
            raise InputProblem(f"{where}/{i}: a mode is {{effects: [steps], needs_target: true|false}}")
        if not isinstance(m.get("needs_target", False), bool):
            raise InputProblem(f"{where}/{i}/needs_target: true or false")
    return _copy(value)


__all__ = ["ATTRIBUTE_NAMES", "FORM_DEFAULTS", "FORM_FIELDS", "check_modes", "choose", "form_attrs",
           "restore", "take"]
