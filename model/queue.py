"""The reaction queue (reakció sor): cards being played and abilities being used that wait for answers.

Clauses covered
---------------
* 4.21.1: a card someone tries to play is in the reaction queue until it comes into being; a card
  on the queue is in no zone (not in a hand, deck, graveyard or Void, not on the table). The state
  shows the queue (`queue`, bottom first) while it is not empty; a queued card's `zone` is `queue`.
* 4.21.2: a prevented card goes to its owner's graveyard; the further cards it would have brought
  into play (`play.with`) go back from the queue to where they would have been played from (a deck
  takes its card back shuffled in: docs/engine-semantics.md, "The reaction queue").
* 136.5: an activated ability is used successfully when it is not prevented — a prevented ability
  does nothing; its cost stays paid, as a prevented card's does (rb7:lapaldozas).
* 137.2: an activated ability usable as a reaction (`reaction: true`, or `reaction: only`) is a
  reaction action when so used; 137.3: an ability that prevents something (a `prevent` step among
  its effects) is always a reaction ability.
* rb7:kijatszasi-sorrend, rb7:varazslatok: an instant reaction card (`reaction: true`) answers a card
  just played — only reactions to it may come between — and may prevent or modify it; reactions
  resolve before what they answer (last in, first out); the queue resolves when both players
  have passed in a row.
* What cannot be answered: 99.2 (the activated abilities of locations, rule cards, followers,
  liches, guilds and cards immune to every source), 130.4 (static abilities: they never wait on the
  queue), 132.14 (`no_reaction`: the card's play or the permanent's abilities, in the form it
  names), 134.7 (blocking once its card exists), 129.7 (the use of a combat ability is no effect),
  4.23.1 (an activated disadvantage), rb7:anti-magia / 134.10 (no reaction spell to a card with
  anti-magic, at its play), 134.15 (no neutralization to a card with anti-neutralization).
  Immunity is no protection from a reaction (99.1): the answered card's immunities are not read.
* 132.16: an automatic reaction has every property of the card that made it (a reaction made by a
  spell is a reaction spell).
"""
from __future__ import annotations

from typing import Any, Callable

from .game import Game
from .state import PLAYERS, Card, State, other
from .zones import Cause, move_card, put_back, shuffle_deck

from .immunity import SPELL_KINDS  # noqa: E402 — rb7:varazslatok (anti-magic bars these): one definition
UNANSWERABLE_SUBTYPES = ("szabalylap", "koveto", "oslich", "ceh")   # 99.2: rule cards, followers, liches, guilds
PUBLIC = ("id", "kind", "player", "card", "ability", "targets", "answers", "reaction", "with",
          "prevented", "modify", "from")

Resolver = Callable[[Game, dict[str, Any]], None]


# ---------------------------------------------------------------------------
# what a card and an ability are
# ---------------------------------------------------------------------------

def is_spell(card: Card) -> bool:
    return card.kind in SPELL_KINDS


def prevents(ab: dict[str, Any]) -> bool:
    """137.3: an ability whose text prevents something (a `prevent` step among its effects)."""
    return any(isinstance(s, dict) and "prevent" in s for s in ab.get("effects") or [])


def is_reaction_ability(ab: dict[str, Any]) -> bool:
    """137.2, 137.3: usable as a reaction (`reaction: true | only`), or it prevents something."""
    return ab.get("reaction") in (True, "only") or prevents(ab)


def is_reaction_card(card: Card) -> bool:
    """rb7:kijatszasi-sorrend: an instant reaction card (azonnali reakció lap)."""
    return card.reaction and card.kind == "instant"


# ---------------------------------------------------------------------------
# the queue
# ---------------------------------------------------------------------------

def public(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry as the returned state shows it."""
    out = {k: entry[k] for k in PUBLIC if entry.get(k) not in (None, [], False, 0)}
    if entry.get("ability") is not None:
        out["ability"] = entry["ability"]                  # the ability's index, 0 included
    if "with" in out:
        out["with"] = [w["card"] for w in entry["with"]]
    return out


def top(st: State) -> dict[str, Any] | None:
    return st.queue[-1] if st.queue else None


def entry_of(st: State, ident: str) -> dict[str, Any] | None:
    return next((e for e in st.queue if e["id"] == ident), None)


def queued_cards(st: State) -> set[str]:
    """The cards on the queue: the played cards and the further cards they bring."""
    out = set()
    for e in st.queue:
        if e["kind"] == "card":
            out.add(e["card"])
        out.update(w["card"] for w in e.get("with") or ())
    return out


def passed(st: State) -> list[str]:
    return st.turn_info.queue_passed


def push(g: Game, entry: dict[str, Any]) -> dict[str, Any]:
    """4.21.1: put a card being played or an ability being used on the queue; it waits for answers.
    Every pass made so far is void: the players answer the new top."""
    st = g.state
    n = st.turn_info.queue_seq + 1
    st.turn_info.queue_seq = n
    entry["id"] = f"q{n}"
    st.queue.append(entry)
    st.turn_info.clear("queue_passed")
    g.emit("queued", entry=entry["id"], card=entry["card"], player=entry["player"],
           ability=entry.get("keyword"), answers=entry.get("answers"), clause="4.21.1")
    return entry


def pass_on_queue(g: Game, player: str) -> bool:
    """A player passes on the queue (does not answer); True when both have passed in a row."""
    done = g.state.turn_info.own("queue_passed")
    if player not in done:
        done.append(player)
    g.emit("passed", player=player, phase=g.state.phase, queue=True)
    return all(p in done for p in PLAYERS)


def other_has_passed(st: State, player: str) -> bool:
    return other(player) in passed(st)


# ---------------------------------------------------------------------------
# answering: what a reaction answers, and what cannot be answered
# ---------------------------------------------------------------------------

def answered(g: Game, answers: Any) -> dict[str, Any]:
    """The entry a reaction answers: the one `answers` names (an entry id, or a card whose play or
    ability is on the queue), by default the top of the queue. Refused where there is none: what a
    reaction would answer is not waiting on the queue."""
    st = g.state
    if answers is None:
        got = top(st)
        if got is None:
            g.refuse("4.21.1", "nothing waits on the reaction queue: a reaction answers a card being "
                               "played or an ability being used before it comes into being")
        return got
    if not isinstance(answers, str):
        from .errors import InputProblem
        raise InputProblem(f"answers: a queue entry id or a card id, not {answers!r}")
    got = entry_of(st, answers)
    if got is None:
        got = next((e for e in reversed(st.queue) if e["card"] == answers), None)
    if got is not None:
        return got
    if answers in st.cards:
        _not_on_queue(g, answers)
    g.refuse("4.21.1", f"{answers} is not on the reaction queue")


def _not_on_queue(g: Game, cid: str) -> None:
    """Why nothing of the card `cid` can be answered: the most specific rule."""
    st = g.state
    rec = st.turn_info.combat or {}
    if cid in (rec.get("direct_damage") or {}):           # every use, declared in IV or not
        g.refuse("129.7", f"{cid} used a combat ability: its use is no effect, nothing to react to")
    card = st.cards.peek(cid)
    if st.on_table(cid) and any(a.get("keyword") in ("blocking", "anti_blocking") for a in card.abilities):
        g.refuse("134.7", f"{cid} has come into being: its blocking can no longer be reacted to")
    if st.on_table(cid):
        g.refuse("130.4", f"{cid} is in play: its static abilities work on their own and cannot be "
                          "reacted to; only its play or an ability being used waits on the queue")


def check_answerable(g: Game, entry: dict[str, Any], *, spell: bool, neutralization: bool) -> None:
    """Refuse a reaction to `entry` that the rules forbid (spell: the reaction is a spell, or made by
    one, 132.16; neutralization: it neutralizes)."""
    st = g.state
    card = st.cards.peek(entry["card"])
    if entry["kind"] == "ability":
        if card.kind == "location" or any(card.has_subtype(s) for s in UNANSWERABLE_SUBTYPES) \
                or any(a.get("keyword") == "immunity" and a.get("to") == "source" for a in card.abilities):
            g.refuse("99.2", f"{card.id}'s activated abilities cannot be reacted to in any way")
        if entry.get("disadvantage"):
            g.refuse("4.23.1", f"{card.id}'s disadvantage was activated: no reaction to it is possible")
    for ab in card.abilities:
        if ab.get("keyword") != "no_reaction":
            continue
        form = ab.get("to", "any")
        if form == "any" or (form == "spells" and spell) or (form == "abilities" and not spell):
            what = "its play" if entry["kind"] == "card" else "its abilities"
            g.refuse("132.14", f"{card.id}: nothing may react to {what}"
                               + ("" if form == "any" else f" with {form}"))
    if entry["kind"] == "card":
        if spell and any(a.get("keyword") == "anti_magic" for a in card.abilities):
            g.refuse("rb7:anti-magia", f"{card.id} has anti-magic: no reaction spell may answer its play",
                     also=("134.10",))
        if neutralization and any(a.get("keyword") == "anti_neutralization" for a in card.abilities):
            g.refuse("134.15", f"{card.id} has anti-neutralization: no neutralization may answer its play")


# ---------------------------------------------------------------------------
# resolving
# ---------------------------------------------------------------------------

def resolve_all(g: Game, resolvers: dict[str, Resolver]) -> None:
    """Both players have passed: the queue resolves, the last entry first (a reaction acts before
    what it answers). A prevented entry is prevented (4.21.2, 136.5). A decision opened while an
    entry resolves stops the rest until it is answered (4.23.5: model/engine.py resumes it)."""
    st = g.state
    st.turn_info.clear("queue_passed")
    st.turn_info.queue_resolving = True
    while st.queue:
        if st.pending is not None:
            return
        entry = st.queue.pop()
        if entry.get("prevented"):
            prevent_now(g, entry)
        else:
            g.emit("resolved", entry=entry["id"], card=entry["card"], player=entry["player"],
                   clause="4.21.1")
            resolvers[entry["kind"]](g, entry)
        if g.watch is not None:                # what this entry's announcement and resolution set
            g.watch.entry_done(entry)          # off comes before the next (133.0, 133.2)
    st.turn_info.queue_resolving = False
    st.turn_info.queue_seq = 0


def prevent_now(g: Game, entry: dict[str, Any]) -> None:
    """4.21.2: the prevented card to the graveyard, its further cards back; 136.5: a prevented
    ability does nothing. Costs stay paid; on-play abilities, penalty and compensation never come."""
    g.emit("prevented", entry=entry["id"], card=entry["card"], player=entry["player"],
           ability=entry.get("keyword"), clause="4.21.2" if entry["kind"] == "card" else "136.5")
    if entry["kind"] != "card":
        return
    cid = entry["card"]
    put_back(g, cid, tuple(entry["spot"]))
    move_card(g, cid, "graveyard", Cause("prevented"))
    decks: dict[str, None] = {}                 # each deck a card went back to, shuffled once
    for extra in entry.get("with") or ():
        spot = tuple(extra["spot"])                # (player, zone, index), model/zones.py lift
        player, zone = spot[0], spot[1]
        put_back(g, extra["card"], spot)
        g.emit("returned", card=extra["card"], to=zone, player=player, clause="4.21.2")
        if zone == "deck":
            decks[player] = None
    for player in decks:
        shuffle_deck(g, player)


def mark(g: Game, entry_id: str | None, how: str, amount: int | None = None) -> None:
    """The effect of a reaction on the entry it answers: `prevent` or `modify` (its amounts by
    `amount`). An entry no longer waiting on the queue is not changed (the part does nothing)."""
    st = g.state
    ident = entry_id or (g.answering[-1] if g.answering else None)
    entry = entry_of(st, ident) if ident else None
    if entry is None:
        g.refuse("4.21.1", f"{ident or 'nothing'} is not waiting on the reaction queue: there is nothing "
                           f"to {how}")
    if how == "prevent":
        entry["prevented"] = True
        g.emit("prevent_set", entry=entry["id"], card=entry["card"], clause="137.3")
    else:
        entry["modify"] = entry.get("modify", 0) + amount
        g.emit("modify_set", entry=entry["id"], card=entry["card"], amount=amount,
               clause="rb7:kijatszasi-sorrend")


__all__ = ["SPELL_KINDS", "is_spell", "prevents", "is_reaction_ability", "is_reaction_card", "public",
           "top", "entry_of", "queued_cards", "passed", "push", "pass_on_queue", "other_has_passed",
           "answered", "check_answerable", "resolve_all", "prevent_now", "mark"]
