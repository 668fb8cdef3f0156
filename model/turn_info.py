"""What the rules remember within one turn: the base state's per-turn bookkeeping, typed.

Every field is plain data (lists, mappings of strings and numbers) so that a state copies it
in C (`State.clone`) and a test can print it. The object holds only what was set this turn: a
field not set reads its default from the class — for a list an empty tuple, for a mapping an
empty read-only mapping, so a read never creates anything and a step copies only what the turn
changed. A list or mapping is changed in place only through `own(name)`, which makes it the
object's own first (like `Player.own_zone`); changing a default in place fails loudly. Nothing
here is in a returned state except what model/view.py shows (`dying`, `just_damaged`, the
combat sub-phase). The turn's start empties it (model/turn.py); a field is listed with the rules
that write and read it.
"""
from __future__ import annotations

import marshal
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ["TurnInfo"]

# the fields that hold a list or a mapping: each made the object's own by `own` when changed in place
_CONTAINERS: dict[str, type] = {
    "dying": list, "just_damaged": list, "damaged_by": dict, "damaged_by_damage": list,
    "struck_dying": list, "queue_passed": list, "abilities_used": dict, "regenerated": dict,
    "visions_played": dict, "nekron_played": dict, "from_hand": dict, "muscle_queue": list,
    "skipped": list,
}


@dataclass(init=False)        # `==` and `repr` over every field, the defaults included (for tests)
class TurnInfo:
    # the life-saving window (136.8, model/damage.py): creatures at 0 Ép or less that a
    # life-saving action may still save, and those the last step damaged
    dying: list[str]
    just_damaged: list[str]
    # damage this turn: whose source damaged a card (135.2 penalty), which cards damage reached
    # (134.4.2: a life counter heals them)
    damaged_by: dict[str, str]
    damaged_by_damage: list[str]
    # combat (model/combat.py, model/combat_steps.py): the attack record, the sub-phase I–VII,
    # the strike in progress (134.4.7) and the creatures it left dying
    combat: dict[str, Any] | None = None
    combat_step: str | None = None
    in_strike: bool = False
    struck_dying: list[str]
    # who has acted in the phase (4.11.6–4.11.8, model/acting.py)
    acting: dict[str, Any] | None = None
    # the reaction queue (hkk-case/2, model/queue.py): the last entry's number, the players who
    # passed on it, whether it is resolving; the on-play window (137)
    queue_seq: int = 0
    queue_passed: list[str]
    queue_resolving: bool = False
    on_play: dict[str, Any] | None = None
    # limits per turn: activated abilities used (by card, the index of each use), Ép regenerated
    # per creature (136.7), vision cards played per player (rb7:vizio), nekron cards played per
    # player (rb7:semmizos-idezesi-koltseg-nekron), cards played from the hand per player
    # (rb7:szingularitas, model/conditions.py)
    abilities_used: dict[str, list[int]]
    regenerated: dict[str, int]
    visions_played: dict[str, list[str]]
    nekron_played: dict[str, int]
    from_hand: dict[str, Any]
    # muscle rewards waiting to become the player's decision (124.4, model/engine.py)
    muscle_queue: list[dict[str, Any]]
    # the phases this turn skips (4.10.7, model/turn.py)
    skipped: list[str]

    def own(self, name: str) -> Any:
        """The list or mapping `name` as this object holds it, created empty when not set yet: the
        one to change in place (a read of a field not set gives the class's immutable default)."""
        own = self.__dict__
        value = own.get(name)
        if value is None:
            value = own[name] = _CONTAINERS[name]()
        return value

    def put(self, name: str, items: list[Any]) -> None:
        """The list field `name` set to (a copy of) `items`, or back to its default when `items` is
        empty: a list is never left set and empty, so `==` never compares () with []."""
        if items:
            self.__dict__[name] = list(items)
        else:
            self.__dict__.pop(name, None)

    def clear(self, name: str) -> None:
        """The field back to its default (an emptied list or mapping, a flag taken back): nothing
        left for a copy to copy."""
        self.__dict__.pop(name, None)

    def copy(self) -> "TurnInfo":
        """A copy sharing nothing mutable: what this turn set or used, copied in C (`marshal`:
        plain data)."""
        new = object.__new__(TurnInfo)
        own = self.__dict__
        if own:
            new.__dict__ = marshal.loads(marshal.dumps(own))
        return new


_EMPTY = {list: (), dict: MappingProxyType({})}
for _name, _kind in _CONTAINERS.items():
    setattr(TurnInfo, _name, _EMPTY[_kind])        # read when not set: never created by a read
# a list is never left set and empty (`put`, `clear`), so `==` never compares () with []
