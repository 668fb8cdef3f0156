"""The order of play around the reaction queue: which step may come while something waits on it,
and the window after a card with an on-play ability (the "bidding" of rb7:kijatszasi-sorrend).

Clauses covered
---------------
* rb7:kijatszasi-sorrend, 4.23.3: while a card or ability waits on the reaction queue, only
  reactions to it, life-saving actions and answers to a pending decision may come (and effects of
  an unnamed source, which a case uses to make something happen). A player's other action comes
  only once the other player has passed on the queue: the player passes too, the queue resolves,
  then the action is carried out. Before that it is refused: the other player must be given the
  chance to answer, and the player whose card waits has precedence for their own reaction over
  the other player's unrelated card — the one exception to "one player, then the other".
* 4.11.7–4.11.8 on the queue: `pass` while the queue is not empty is a pass on the queue; both
  passing in a row resolves it (last in, first out: model/queue.py). `advance` — nobody acts any
  more — resolves it first.
* 137: between a card's play and the use of its on-play activated ability only reactions may
  come: the other player's other action is refused; the player's own other action (or pass), or
  an `advance` (nobody acts any more), gives the ability up.
"""
from __future__ import annotations

from typing import Any

from . import queue
from .abilities import resolve_entry
from .damage import life_saving_step, life_saving_targets
from .game import Game
from .acting import acting
from .play import come_into_being
from .state import PLAYERS, other

# the verbs that are a player's action (model/engine.py ACTIONS) and not an answer to a decision
ACTIONS = ("play", "activate", "attack", "strike_back", "exchange", "sacrifice_for_components",
           "start_game", "make_up")


def _resolve_card(g: Game, entry: dict[str, Any]) -> None:
    _with_answer(g, entry, lambda: come_into_being(g, entry))


def _resolve_ability(g: Game, entry: dict[str, Any]) -> None:
    _with_answer(g, entry, lambda: resolve_entry(g, entry))


def _with_answer(g: Game, entry: dict[str, Any], run) -> None:
    if entry.get("answers"):
        g.answering.append(entry["answers"])
        try:
            run()
        finally:
            g.answering.pop()
    else:
        run()


RESOLVERS = {"card": _resolve_card, "ability": _resolve_ability, "trigger": _resolve_ability}


def resolve_queue(g: Game) -> None:
    """Both players passed: the queue resolves (model/queue.py); the player of the bottom entry has
    acted, so the other player may answer first (rb7:kijatszasi-sorrend)."""
    st = g.state
    bottom = st.queue[0]["player"] if st.queue else None
    queue.resolve_all(g, RESOLVERS)
    if bottom is not None and not st.queue:
        rec = acting(st)
        rec["last"], rec["passed"] = bottom, []


def resume(g: Game) -> None:
    """A decision opened while the queue resolved has been answered: the rest resolves now."""
    if g.state.turn_info.queue_resolving and g.state.pending is None:
        resolve_queue(g)


def _answers_queue(g: Game, verb: str, args: dict[str, Any]) -> bool:
    """A reaction to the queue (a reaction card, a reaction ability: model/queue.py)."""
    st = g.state
    cid = args.get("card")
    if not isinstance(cid, str) or cid not in st.cards:
        return False
    card = st.cards.peek(cid)
    if verb == "play":
        return queue.is_reaction_card(card)
    if verb == "activate":
        ability = args.get("ability")
        abilities = card.abilities
        if ability is None and len(abilities) == 1:
            ability = 0                                    # the card's only ability (as activate reads it)
        if isinstance(ability, int) and not isinstance(ability, bool) and 0 <= ability < len(abilities):
            return queue.is_reaction_ability(abilities[ability])
        ab = next((ab for ab in abilities if ab.get("keyword") == ability), None)    # the first, as activate
        return ab is not None and queue.is_reaction_ability(ab)
    return False


def _saves(g: Game, verb: str, args: dict[str, Any]) -> bool:
    """A life-saving action (4.23.3, 136.8, 136.9): not bound by the order of play."""
    st = g.state
    if life_saving_step(st, verb, args) or life_saving_targets(st, verb, args):
        return True
    if verb == "activate" and isinstance(args.get("card"), str) and args["card"] in st.cards:
        ability = args.get("ability")
        card = st.cards.peek(args["card"])
        return ability == "shadow" or (isinstance(ability, int) and not isinstance(ability, bool)
                                       and 0 <= ability < len(card.abilities)
                                       and card.abilities[ability].get("keyword") == "shadow")
    return False


def _actor(g: Game, verb: str, args: dict[str, Any], by: str) -> str:
    player = args.get("player", by)
    return player if player in PLAYERS else by


def before_step(g: Game, verb: str, args: dict[str, Any], by: str) -> None:
    """Called by the engine before a step is carried out (not for `choose`, `pass`)."""
    st = g.state
    window = st.turn_info.on_play
    if window:
        _on_play_window(g, window, verb, args, by)
    if not st.queue:
        return
    if verb == "advance":
        resolve_queue(g)                                   # nobody acts any more: both pass
        return
    if verb not in ACTIONS or _answers_queue(g, verb, args) or _saves(g, verb, args):
        return
    player = _actor(g, verb, args, by)
    if queue.other_has_passed(st, player):
        queue.pass_on_queue(g, player)                     # the player passes too: it resolves
        resolve_queue(g)
        if st.queue or st.pending is not None:
            g.refuse("4.23.5", "the reaction queue waits for a decision before anything else")
        return
    mine = st.queue[0]["player"] == player
    g.refuse("rb7:kijatszasi-sorrend",
             f"{st.queue[-1]['card']} waits on the reaction queue: "
             + (f"{other(player)} must first be given the chance to answer it (pass or react)" if mine
                else f"{other(player)}, whose card it is, has precedence for a reaction to it; "
                     f"{player} may act once {other(player)} has passed"),
             also=("4.21.1", "4.23.3"))


def _on_play_window(g: Game, window: dict[str, str], verb: str, args: dict[str, Any], by: str) -> None:
    """137: only reactions between a card's play and its on-play ability."""
    st = g.state
    if verb == "activate" and args.get("card") == window["card"]:
        return                                             # its ability (abilities.py checks which)
    if verb == "advance":
        st.turn_info.on_play = None                  # nobody acts any more: it is given up
        return
    if verb not in ACTIONS or _answers_queue(g, verb, args) or _saves(g, verb, args):
        return
    player = _actor(g, verb, args, by)
    if player == window["player"]:
        st.turn_info.on_play = None                  # the player gives the ability up
        return
    g.refuse("137", f"{window['card']} was just played with an ability used at its play: until "
                    f"{window['player']} uses it or does something else only reactions may come")


def pass_step(g: Game, player: str) -> bool:
    """`pass` while the queue is not empty or an on-play window is open; True when it was such a
    pass (model/turn.py handles the phase's passes otherwise)."""
    st = g.state
    window = st.turn_info.on_play
    if window and window["player"] == player and not st.queue:
        st.turn_info.on_play = None                  # 137: the ability is given up
    if not st.queue:
        return False
    if queue.pass_on_queue(g, player):
        resolve_queue(g)
    return True


__all__ = ["RESOLVERS", "resolve_queue", "resume", "before_step", "pass_step"]
