"""What the rules remember within one turn: the base state's per-turn bookkeeping, typed.

Every field is plain data (lists, mappings of strings and numbers) so that a state copies it
in C (`State.clone`) and a test can print it; nothing here is in a returned state except what
model/view.py shows (`dying`, `just_damaged`, the combat sub-phase). The turn's start empties it
(model/turn.py); a field is listed with the rules that write and read it.
"""
from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from typing import Any

__all__ = ["TurnInfo"]


@dataclass
class TurnInfo:
    # the life-saving window (136.8, model/damage.py): creatures at 0 Ép or less that a
    # life-saving action may still save, and those the last step damaged
    dying: list[str] = field(default_factory=list)
    just_damaged: list[str] = field(default_factory=list)
    # damage this turn: whose source damaged a card (135.2 penalty), which cards damage reached
    # (134.4.2: a life counter heals them)
    damaged_by: dict[str, str] = field(default_factory=dict)
    damaged_by_damage: list[str] = field(default_factory=list)
    # combat (model/combat.py, model/combat_steps.py): the attack record, the sub-phase I–VII,
    # the strike in progress (134.4.7) and the creatures it left dying
    combat: dict[str, Any] | None = None
    combat_step: str | None = None
    in_strike: bool = False
    struck_dying: list[str] = field(default_factory=list)
    # who has acted in the phase (4.11.6–4.11.8, model/acting.py)
    acting: dict[str, Any] | None = None
    # the reaction queue (hkk-case/2, model/queue.py): the last entry's number, the players who
    # passed on it, whether it is resolving; the on-play window (137)
    queue_seq: int = 0
    queue_passed: list[str] = field(default_factory=list)
    queue_resolving: bool = False
    on_play: dict[str, Any] | None = None
    # limits per turn: activated abilities used (by card, the index of each use), Ép regenerated
    # per creature (136.7), vision cards played per player (rb7:vizio), nekron cards played per
    # player (rb7:semmizos-idezesi-koltseg-nekron), cards played from the hand per player
    # (rb7:szingularitas, model/conditions.py)
    abilities_used: dict[str, list[int]] = field(default_factory=dict)
    regenerated: dict[str, int] = field(default_factory=dict)
    visions_played: dict[str, list[str]] = field(default_factory=dict)
    nekron_played: dict[str, int] = field(default_factory=dict)
    from_hand: dict[str, Any] = field(default_factory=dict)
    # muscle rewards waiting to become the player's decision (124.4, model/engine.py)
    muscle_queue: list[dict[str, Any]] = field(default_factory=list)
    # the phases this turn skips (4.10.7, model/turn.py)
    skipped: list[str] = field(default_factory=list)

    def copy(self) -> "TurnInfo":
        """A copy sharing nothing mutable: the fields that hold something are copied in C
        (`marshal`: plain data), an empty list or mapping is a new empty one, the rest is shared
        (strings, numbers, None). Most of a turn most fields are empty: a step copies little."""
        new = object.__new__(TurnInfo)
        new.__dict__ = {k: (_copy(v) if v else [] if v.__class__ is list else {} if v.__class__ is dict else v)
                        if v.__class__ in _CONTAINERS else v for k, v in self.__dict__.items()}
        return new


_CONTAINERS = (list, dict)


def _copy(value: Any) -> Any:
    return marshal.loads(marshal.dumps(value))
