"""The characteristics of spells (Varázslatok jellemzői, 111).

Clauses covered:
- 111.0.1: the characteristics are the instants' and sorceries' only — never an enchantment's
  (bűbáj), whatever its effects do.
- 111.1.0 damaging (sebző), 111.2.0 healing (gyógyító), 111.3.0 discarding (dobató), 111.4.0
  exiling (semmiző), 111.5.0 drawing (húzó), 111.6.0 searching (kereső), and targeting (célzó,
  named in 111.7): what the spell's effects can do when it is played, read from their verbs —
  `damage` / `heal` of at least 1, a `discard` of at least 1 card from a hand (not as a cost), an
  `exile` (graveyard → Void), a `draw` of at least 1, a `search` that takes a card out of a deck
  (not to the graveyard or the Void: that is a mill, 4.13.2), `needs_target`. A step inside a
  `delay` counts ("akár késleltetve is"). A `move` gives none: the card's own verb says what it is.
- 111.1.1, 111.2.1, 111.3.1, 111.4.1, 111.5.1, 111.6.1: a spell keeps a characteristic when it
  actually does nothing (the hand is empty, the deck holds no such card, the target is immune):
  the characteristics are read from the effects, never from what happened.
- 111.7: a spell with a choice of effects gets only the characteristics of the mode chosen at
  its play (model/forms.py takes the mode; this module reads the effects it left).

What reads them: the `played` event of an instant or sorcery carries `characteristics`, in the
order of CHARACTERISTICS (model/play.py); a prohibition `{prohibit: play, spells: [...]}` in force
on the player refuses the play of a spell with one of those characteristics (99.1,
model/prohibitions.py). The amounts of a spell's damage, healing, discards and draws are modified
by `spell_damage`, `spell_healing`, `spell_discard`, `spell_draw` (model/effects.py).
"""
from __future__ import annotations

from typing import Any, Iterator

from . import continuous
from .game import Game
from .prohibitions import prohibited
from .shapes import CHARACTERISTICS

SPELL_KINDS = ("instant", "sorcery")                  # 111.1.0 …: "azonnali és általános varázslat"


def _steps(steps: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """(verb, args) of every step, the steps of a `delay` included."""
    for step in steps or ():
        if not isinstance(step, dict) or len(step) != 1:
            continue
        (verb, args), = step.items()
        args = args if isinstance(args, dict) else {}
        if verb == "delay":
            yield from _steps([args.get("step")])
        else:
            yield verb, args


def _at_least_one(args: dict[str, Any], key: str, default: int) -> bool:
    n = args.get(key, default)
    return isinstance(n, int) and not isinstance(n, bool) and n >= 1


def _has(verb: str, args: dict[str, Any]) -> str | None:
    """The characteristic one step gives, or None."""
    if verb in ("damage", "heal"):
        shares = args.get("split")
        able = any(isinstance(n, int) and n >= 1 for n in shares.values()) if isinstance(shares, dict) \
            else _at_least_one(args, "amount", 0)
        return ("damaging" if verb == "damage" else "healing") if able else None
    if verb == "discard" and not args.get("as_cost"):
        named = args.get("cards")
        return "discarding" if _at_least_one(args, "count", len(named) if isinstance(named, list) else 1) \
            else None
    if verb == "exile":
        return "exiling"
    if verb == "draw":
        return "drawing" if _at_least_one(args, "count", 1) else None
    if verb == "search" and args.get("to", "hand") not in ("graveyard", "void"):
        return "searching"
    return None


def characteristics(card: Any) -> list[str] | None:
    """The characteristics of an instant or sorcery in the form and mode it is in (111), in the
    order of CHARACTERISTICS; None for any other card (111.0.1: never an enchantment)."""
    if card.kind not in SPELL_KINDS:
        return None
    found = {c for verb, args in _steps(card.effects) if (c := _has(verb, args))}
    if card.needs_target:
        found.add("targeting")
    return [c for c in CHARACTERISTICS if c in found]


def check_play(g: Game, player: str, card: Any) -> None:
    """99.1: a prohibition in force on the player of playing spells with one of this spell's
    characteristics refuses the play."""
    if not continuous.any_in_force(g.state):
        return                                       # no prohibition in force
    found = characteristics(card)
    if found:
        prohibited(g, player, "play", spells=found)


__all__ = ["SPELL_KINDS", "characteristics", "check_play"]
