"""Effects that last: a card's continuous effects, timed effects, their scope and duration.

Clauses covered
---------------
* 99.4 (Hatóidő): a source that works for a set time but is not permanent is in force from
  the moment it comes into being until its effect ends — a *timed effect* (`lasting`), created
  by the effect verb `add_effect` with `until: end_of_turn | end_of_phase | {turns: N}`.
* 99.5 (Hatókör): a timed effect reaches only the permanents already in play when it comes
  into being: its scope is read once, at creation, into the fixed list `affects`.
* 99.1: a prohibition of an action ("cannot heal", "cannot draw", "cannot attack") — the
  `prohibit` entries; what they stop is reported with clause 99.1.
* 100.0, 101.0, 102.0–102.4 (mk:5.10 under `kodex-mk`): the attributes an entry carries for the
  priority order — `strong`, continuous (a card's entry) or one-shot (a timed effect), the
  timestamp (the source's entry into play, or the timed effect's creation), the ability kind.
* 119.1: a frozen card's own abilities do not work — nor do its continuous entries.
* 5.5.8: a passive permanent's abilities do not work, a creature's aside: the continuous entries
  of a passive item, enchantment, skill, building or location are not in force.

A card's `continuous` entries work while the card is on the table. Each entry is one of

    {number: damage | hp, add: N | set: N, limit: L}   Sebzés / maximum Ép of the cards in scope
    {number: spell_damage | spell_healing, add: N}    damage / healing of the spells of the
                                                      players in scope (111.1.3–111.2.4)
    {number: damage_taken, add: N}                    damage dealt to the cards / players in scope
    {grant: [abilities]} / {lose: [keywords]}         abilities given or taken (128.1)
    {prohibit: attack | heal | draw | be_passivated}  an action forbidden (99.1)
    {prohibit: play, spells: [characteristics]}       playing spells of those characteristics (111)
    {require: attack}                                 an action required

with `scope` (`self` default, `attached`, `own_creatures`, `opponent_creatures`,
`all_creatures`, `controller`, `opponent`, `players`, or a list of card ids), `strong`,
`ability` (`static` default), `prohibiting` (mk:5.10.F; default true for `prohibit`/`lose`).
Computed numbers: model/numbers.py; replacement effects: model/replacement.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

from .colors import of_color
from .errors import InputProblem
from .immunity import own_immunity
from .working import ability_entries
from .priority import Effect
from .state import PLAYERS, Card, State, other

from .shapes import (AMOUNT_NUMBERS, ENTRY_KINDS, NUMBERS, PLAYER_SCOPES, PROHIBITIONS,  # noqa: F401
                     REQUIREMENTS, SCOPES, TABLE_SCOPE_ZONES, UNTIL, check_entry, check_lasting, is_int)


@dataclass(frozen=True)
class Active:
    """One entry in force now: what it says, where it comes from, its priority attributes."""
    entry: dict[str, Any]
    id: str
    source: str | None       # the card it comes from (None: a timed effect with no card)
    effect: Effect            # attributes for 102 / mk:5.10

    def kind(self) -> str:
        return next(k for k in ENTRY_KINDS if k in self.entry)


# ---------------------------------------------------------------------------
# what is in force
# ---------------------------------------------------------------------------

def any_in_force(state: State) -> bool:
    """Fast check: is any continuous entry or timed effect around at all?"""
    if state.lasting:
        return True
    for cid in state.effect_cards:
        if state.on_table(cid) and state.cards.peek(cid).continuous:
            return True
    return False


def scope_members(state: State, card: Card, scope: Any) -> list[str]:
    """The cards (ids) and players a card's entry reaches now."""
    ctrl = state.controller(card.id)
    if isinstance(scope, list):
        return [x for x in scope if x in PLAYERS or state.on_table(x)]
    if isinstance(scope, dict):
        return zone_members(state, ctrl, scope) if ctrl else []
    if scope == "self":
        return [card.id]
    if scope == "attached":
        return [card.attached_to] if card.attached_to and state.on_table(card.attached_to) else []
    if scope == "own_creatures":
        return [c.id for c in state.creatures_on_table(ctrl)] if ctrl else []
    if scope == "opponent_creatures":
        return [c.id for c in state.creatures_on_table(other(ctrl))] if ctrl else []
    if scope == "all_creatures":
        return [c.id for c in state.creatures_on_table()]
    if scope == "controller":
        return [ctrl] if ctrl else []
    if scope == "opponent":
        return [other(ctrl)] if ctrl else []
    if scope == "players":
        return list(PLAYERS)
    return []


def zone_members(state: State, ctrl: str, scope: dict[str, Any]) -> list[str]:
    """99.6: a mapping scope — the cards in the named zones (default: the table's) of the entry's
    controller, the opponent or both, of one kind and one colour when named. Only such a scope
    reaches cards in a hand, deck, graveyard or Void: every other scope reaches the table."""
    who = {"controller": (ctrl,), "opponent": (other(ctrl),), "players": PLAYERS}[scope.get("player", "controller")]
    kind, color = scope.get("kind"), scope.get("color")
    out = []
    for p in who:
        zones = state.players[p].zones
        for z in scope.get("zones", TABLE_SCOPE_ZONES):
            for cid in zones[z]:
                c = state.cards.peek(cid)
                if (kind is None or c.kind == kind) and (color is None or of_color(c, (color,))):
                    out.append(cid)
    return out


def _attrs(entry: dict[str, Any], continuous: bool, timestamp: int, default_ability: str | None,
           ident: str) -> Effect:
    prohibiting = entry.get("prohibiting", "prohibit" in entry or "lose" in entry)
    return Effect(strong=bool(entry.get("strong", False)), continuous=continuous, timestamp=timestamp,
                  ability=entry.get("ability", default_ability), prohibiting=bool(prohibiting), id=ident,
                  settles=frozenset(entry.get("settles", ())))


def in_force(state: State, frozen: Callable[[Card], bool]) -> Iterator[tuple[Active, list[str]]]:
    """Every entry in force now, with the cards / players it reaches. `frozen` tells a card whose
    own abilities a freeze counter takes (119.1, model/stats.py): its entries do not work."""
    for act, members in _entries(state, frozen):
        yield act, members()


def _entries(state: State, frozen: Callable[[Card], bool], kind: str | None = None, what: Any = None
             ) -> Iterator[tuple[Active, Callable[[], list[str]]]]:
    """`in_force`'s entries, each with how to read what it reaches (read only when asked); with
    `kind`, only the entries of that kind (naming `what`, when given)."""
    effect_cards = state.effect_cards             # the cards whose data carry any (model/state.py)
    for pname in PLAYERS if effect_cards else ():
        pl = state.players[pname]
        for zone in ("reserve", "guard_post", "table"):
            for cid in pl.zones[zone]:
                if cid not in effect_cards:
                    continue
                card = state.cards.peek(cid)
                if not card.continuous or frozen(card) or not (card.is_creature or card.active):
                    continue                        # 119.1 frozen; 5.5.8 a passive non-creature
                for i, e in enumerate(card.continuous):
                    if kind is not None and not _names(e, kind, what):
                        continue
                    ident = str(e.get("id") or f"{cid}#{i}")
                    act = Active(e, ident, cid, _attrs(e, True, card.timestamp, "static", ident))
                    yield act, lambda card=card, e=e: _not_immune(
                        state, scope_members(state, card, e.get("scope", "self")), card)
    for item in state.lasting:
        e = item["effect"]
        if kind is not None and not _names(e, kind, what):
            continue
        ident = str(item["id"])
        act = Active(e, ident, item.get("source"), _attrs(e, False, item["created"], None, ident))
        yield act, lambda item=item: _lasting_members(state, item)


def _names(entry: dict[str, Any], kind: str, what: Any) -> bool:
    """Is the entry of `kind` (`number`, `grant`, ...), naming `what` when given (one of a list)?"""
    if kind not in entry:
        return False
    named = entry[kind]
    return what is None or named == what or (isinstance(named, list) and what in named)


def numbers_named(state: State, frozen: Callable[[Card], bool]) -> set[str]:
    """The numbers (`cost_vp`, `hp`, ...) that some entry in force sets or modifies now,
    whatever it reaches: a number none names is its base everywhere."""
    out: set[str] = set()
    for act, _ in _entries(state, frozen, "number"):
        named = act.entry["number"]
        out.update(named if isinstance(named, list) else (named,))
    return out


def _lasting_members(state: State, item: dict[str, Any]) -> list[str]:
    """What a timed effect reaches now: what it reached when created that is still in play, and
    not immune to its source."""
    members = [x for x in item["affects"] if x in PLAYERS or state.on_table(x)]
    src = item.get("source")
    if src in state.cards:
        members = _not_immune(state, members, state.cards.peek(src))
    return members


def _not_immune(state: State, members: list[str], source: Card) -> list[str]:
    """99.0, 132.0: an effect of `source` does not reach a card immune to it (its own immunity
    entries that work now — not while frozen, 119.1; a card's own effects always reach it)."""
    out = []
    for m in members:
        if m in PLAYERS or m == source.id:
            out.append(m)
            continue
        card = state.cards.peek(m)
        if not card.abilities or own_immunity(ability_entries(card, "immunity"), source) is None:
            out.append(m)
    return out


def reaching(state: State, target: str, kind: str, frozen: Callable[[Card], bool],
             what: Any = None) -> list[Active]:
    """The entries in force that reach `target` (a card id or a player), of one kind
    (`number`, `grant`, `lose`, `prohibit`, `require`), optionally naming `what`."""
    if not any_in_force(state):
        return []
    return [act for act, members in _entries(state, frozen, kind, what) if target in members()]


# ---------------------------------------------------------------------------
# creating and ending timed effects (99.4, 99.5)
# ---------------------------------------------------------------------------

def create_lasting(state: State, entry: dict[str, Any], source: str | None, by: str,
                   until: Any, ident: str | None = None) -> dict[str, Any]:
    """A timed effect: its scope is read now (99.5) — it reaches only what is in play now."""
    check_entry(entry, "add_effect/effect", lasting=True)
    scope = entry.get("scope", "self")
    src = state.cards.peek(source) if source and source in state.cards else None
    if isinstance(scope, list):
        affects = [x for x in scope if x in PLAYERS or state.on_table(x)]
    elif isinstance(scope, dict):
        affects = zone_members(state, by, scope)       # the table's zones only (99.5, model/shapes.py)
    elif scope in PLAYER_SCOPES:
        ctrl = by
        affects = {"controller": [ctrl], "opponent": [other(ctrl)], "players": list(PLAYERS)}[scope]
    elif src is not None and state.on_table(src.id):
        affects = scope_members(state, src, scope)
    else:
        # a spell's effect: the scope is read from the point of view of the player `by`
        affects = _scope_of_player(state, by, scope, source)
    n = state.tick()
    item: dict[str, Any] = {"id": ident or f"lasting-{n}", "source": source, "by": by,
                            "effect": {k: v for k, v in entry.items() if k != "scope"},
                            "affects": affects, "created": n}
    if isinstance(until, dict) and "turns" in until:
        turns = until["turns"]
        if not is_int(turns) or turns < 1:
            raise InputProblem("add_effect/until/turns: a positive integer")
        item["until"], item["turns_left"] = "turns", turns
    elif until in UNTIL or until is None:
        item["until"] = until or "end_of_turn"
    else:
        raise InputProblem("add_effect/until: end_of_turn, end_of_phase or {turns: N}")
    if item["source"] is None:
        del item["source"]
    state.lasting.append(item)
    return item


def _scope_of_player(state: State, by: str, scope: Any, source: str | None) -> list[str]:
    if scope == "own_creatures":
        return [c.id for c in state.creatures_on_table(by)]
    if scope == "opponent_creatures":
        return [c.id for c in state.creatures_on_table(other(by))]
    if scope == "all_creatures":
        return [c.id for c in state.creatures_on_table()]
    if scope == "self" and source and state.on_table(source):
        return [source]
    return []


def expire(state: State, moment: str) -> list[str]:
    """End the timed effects whose time is up at `moment` (`phase_end`, `turn_end`);
    returns their ids. `{turns: N}` counts the turn it was created in as the first."""
    ended: list[str] = []
    keep: list[dict[str, Any]] = []
    for item in state.lasting:
        until = item.get("until", "end_of_turn")
        done = False
        if until == "end_of_phase":
            done = True                                   # every phase end (a turn end ends a phase too)
        elif until == "end_of_turn" and moment == "turn_end":
            done = True
        elif until == "turns" and moment == "turn_end":
            item["turns_left"] -= 1              # check_lasting / create_lasting set it
            done = item["turns_left"] <= 0
        if done:
            ended.append(str(item["id"]))
        else:
            keep.append(item)
    state.lasting = keep
    return ended


__all__ = ["Active", "NUMBERS", "AMOUNT_NUMBERS", "PROHIBITIONS", "REQUIREMENTS", "SCOPES",
           "any_in_force", "check_entry", "check_lasting", "create_lasting", "expire", "in_force",
           "reaching", "scope_members"]
