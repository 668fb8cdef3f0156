"""Replacement effects ("helyette"): when an event would happen, something else happens instead.

Clauses covered
---------------
* mk:5.12.A: a replacement is an effect that refers to *another* effect and says "instead"
  (helyette / helyett / ahelyett): a card's `replace` entries. An entry never replaces an effect
  of its own card (a self-referring "instead" is no replacement).
* mk:5.12.B: the replaced effect does not happen, the `instead` steps do. A replaced cost counts
  as paid (the action goes on).
* mk:5.12.C: an effect is replaced at most once — the steps a replacement brings are not replaced
  again; when several replacements would replace the same effect, the ruleset's priority order
  (Kódex 102 / mk:5.10) chooses the one that does. When the order leaves them tied, none does
  (`conflict_resolved` with `winner: null`).
* mk:5.12.D: a replacement of an effect that would not happen does not happen either (the
  original is tried on a copy: if a rule would stop it or it would change nothing, nothing is
  replaced). The limits of the original stay: the `instead` steps are carried out as effects of
  the original's source (an immunity to that source still protects) and for its player.
* 134.4.0 with mk:5.12.C: a life counter is the Kódex's own built-in "ehelyett" (it comes off
  instead of the creature leaving play; model/zones.py carries it out). When a card's replacement
  would replace the same destruction or forced sacrifice, the two are candidates like any two
  replacements: the priority order chooses the one that replaces (the life counter: an automatic
  ability, one-shot, taking effect now, tiltó, 134.4.1); when it chooses the life counter, no
  card replaces and the life counter steps in.

A card's `replace` entry: `{event, scope, instead: [steps], strong, ability, id}`; `event` is one
of damage, heal, draw, discard, mill, gain_vp, destroy, sacrifice, put_counter; `scope` says
whom it must happen to (as for continuous effects, model/continuous.py); in `instead` steps
`"$target"` stands for the card or player the event would happen to and `"$amount"` for its
amount.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from . import limits
from .continuous import scope_members
from .stats import counter_works
from .zones import Cause, life_counter_applies
from .decisions import wait_for_answer
from .keywords import unaffected
from .game import Game
from .priority import Effect, compile_policy
from .state import PLAYERS, Card

# the events whose subject is a player (the others name a card; damage and heal either)
PLAYER_EVENTS = ("draw", "discard", "mill", "gain_vp")
REPLACED_MARK = "_replaced"     # on the steps a replacement brings: never replaced again (mk:5.12.C)


@dataclass(frozen=True)
class Candidate:
    card: str
    entry: dict[str, Any]
    attrs: Effect


def choose(attrs: Sequence[Effect], policy: str) -> int | None:
    """mk:5.12.C: the index of the replacement that replaces, by the priority order: the one that
    beats every other. None when no one does (a tie)."""
    beats = compile_policy(policy).beats
    for i, a in enumerate(attrs):
        for j, b in enumerate(attrs):
            if j != i and not beats(a, b):
                break
        else:
            return i
    return None


def candidates(g: Game, event: str, subject: str, source: str | None,
               frozen: Callable[[Card], bool]) -> list[Candidate]:
    st = g.state
    out = []
    if not st.effect_cards:
        return out
    for pname in PLAYERS:
        for zone in ("reserve", "guard_post", "table"):
            for cid in st.players[pname].zones[zone]:
                if cid not in st.effect_cards:
                    continue
                card = st.cards.peek(cid)
                if not card.replace or frozen(card) or cid == source \
                        or not (card.is_creature or card.active):      # mk:5.12.A not its own; 5.5.8
                    continue
                for i, e in enumerate(card.replace):
                    if e["event"] != event:
                        continue
                    if subject not in scope_members(st, card, e.get("scope", "self")):
                        continue
                    ident = str(e.get("id") or f"{cid}~{i}")
                    attrs = Effect(strong=bool(e.get("strong", False)), continuous=True,
                                   timestamp=card.timestamp, ability=e.get("ability", "static"),
                                   prohibiting=bool(e.get("prohibiting", False)), id=ident,
                                   settles=frozenset(e.get("settles", ())))
                    out.append(Candidate(cid, e, attrs))
    return out


LIFE_EVENTS = {"destroy": lambda a: Cause("destroy"),
               "sacrifice": lambda a: Cause("sacrifice", forced=bool(a.get("forced", False)),
                                            as_cost=bool(a.get("as_cost", False)))}


def life_counter(g: Game, event: str, subject: str, args: dict[str, Any]) -> Candidate | None:
    """134.4.0: the life counter of the creature `subject` as a candidate replacement of its
    destruction or forced sacrifice, when one would step in (134.4.7-134.4.8 say when not)."""
    st = g.state
    if event not in LIFE_EVENTS or subject not in st.cards or not st.on_table(subject):
        return None
    card = st.cards.peek(subject)
    cause = LIFE_EVENTS[event](args)
    if event == "destroy" and st.turn_info.in_strike:
        cause = Cause("destroy", combat=True)                          # 134.4.7
    if not (card.is_creature and card.counter("life") > 0 and counter_works(card, "life")
            and life_counter_applies(cause) and g.disadvantage_of != subject):
        return None
    attrs = Effect(strong=False, continuous=False, timestamp=st.clock + 1, ability="automatic",
                   prohibiting=True, id=f"{subject}:life")
    return Candidate(subject, {"instead": []}, attrs)


def _event_amount(event: str, args: dict[str, Any]) -> Any:
    """`$amount` (mk:5.12.B, hkk-effects): the event's `amount`, else its `count` as the verb
    reads it — 1 when absent (draw, mill, put_counter), a discard naming its cards: their number."""
    if "amount" in args:
        return args["amount"]
    if event == "discard" and "count" not in args and isinstance(args.get("cards"), list):
        return len(args["cards"])
    if event in ("draw", "mill", "discard", "put_counter"):
        return args.get("count", 1)
    return args.get("count")


def _fill(step: dict[str, Any], subject: str, amount: int | None) -> dict[str, Any]:
    def sub(v: Any) -> Any:
        if v == "$target":
            return subject
        if v == "$amount":
            return amount if amount is not None else 0
        if isinstance(v, list):
            return [sub(x) for x in v]
        if isinstance(v, dict):
            return {k: sub(x) for k, x in v.items()}
        return v
    filled = sub(copy.deepcopy(step))
    del sub             # it calls itself through its closure cell: clearing the cell ends that cycle
    return filled


def would_happen(g: Game, attempt: Callable[[Game], Any]) -> bool:
    """mk:5.12.D: does the original effect happen? Tried on a copy; stopped by a rule, or
    changing nothing that an event shows, it does not."""
    from .errors import Refusal
    trial = Game(g.state.clone(), g.rules, g.apply_effect)
    trial.sources = list(g.sources)
    trial.replacing = True
    try:
        attempt(trial)
    except Refusal:
        return False
    quiet = {"effect_prevented", "damage_prevented", "counter_prevented"}
    return any(ev["event"] not in quiet for ev in trial.events)


def replace(g: Game, event: str, subject: str, args: dict[str, Any], by: str,
            attempt: Callable[[Game], Any], frozen: Callable[[Card], bool],
            apply_step: Callable[[Game, str, dict[str, Any], str], None]) -> bool:
    """Replace the event if a replacement applies; True when it did (the original is not carried
    out). `attempt(game)` carries out the original on a game (for mk:5.12.D)."""
    if args.get(REPLACED_MARK) or getattr(g, "replacing", False):
        return False                                       # mk:5.12.C: replaced once at most
    source = args.get("source") if isinstance(args.get("source"), str) else None
    cands = candidates(g, event, subject, source, frozen)
    if not cands:
        return False
    life = life_counter(g, event, subject, args)
    if life is not None:
        cands.append(life)                                 # 134.4.0 with mk:5.12.C
    if len(cands) > 1:
        k = choose([c.attrs for c in cands], g.rules.priority_policy)
        if k is None:
            g.emit("conflict_resolved", winner=None, clause=None, policy=g.rules.priority_policy,
                   unresolved=True, target=subject, subject=f"replace:{event}")
            return False
        pol = compile_policy(g.rules.priority_policy)
        chosen = cands[k]
        other = next(c for i, c in enumerate(cands) if i != k)
        g.emit("conflict_resolved", winner=chosen.attrs.id, clause=pol.resolve(chosen.attrs, other.attrs).clause,
               policy=g.rules.priority_policy, target=subject, subject=f"replace:{event}")
        if chosen is life:
            return False                                   # the life counter steps in (model/zones.py)
    else:
        chosen = cands[0]
    if not would_happen(g, attempt):                       # mk:5.12.D
        return False
    amount = _event_amount(event, args)
    if isinstance(amount, int):
        amount = limits.bounded(g, event, subject, amount, args.get("limit"))     # mk:5.12.D
    g.emit("replaced", verb=event, target=subject, card=chosen.card, effect=chosen.attrs.id,
           clause="mk:5.12.B")
    src_card = g.state.cards.peek(source) if source is not None and source in g.state.cards else None
    steps = [_instead_step(step, subject, amount, source) for step in chosen.entry.get("instead") or []]
    for verb, sargs in steps:                  # mk:5.12.D: the original's limit stays on a step of its kind
        if verb == event and args.get("limit") is not None:
            sargs.setdefault("limit", args["limit"])
    for i, (verb, sargs) in enumerate(steps):
        if src_card is not None and unaffected(g, src_card, verb, sargs):
            continue                                       # mk:5.12.D: immune to the original source
        apply_step(g, verb, sargs, sargs.pop("by", by))
        if g.state.pending is not None:                    # 4.23.5: a decision opened
            card = src_card.id if src_card is not None else chosen.card
            for later, largs in steps[i + 1:]:             # each waits as its own step, with its `by`
                largs = dict(largs)
                wait_for_answer(g, card, largs.pop("by", by), lambda s={later: largs}: [s])
            break
    return True


def _instead_step(step: dict[str, Any], subject: str, amount: Any, source: str | None) -> tuple[str, dict]:
    """One `instead` step as it is carried out: filled, marked replaced, with the original's source."""
    (verb, sargs), = _fill(step, subject, amount if isinstance(amount, int) else None).items()
    sargs = dict(sargs or {})
    sargs[REPLACED_MARK] = True
    if source is not None:
        sargs.setdefault("source", source)                 # mk:5.12.D: the original's limits stay
    sargs.pop("as_cost", None)
    return verb, sargs


__all__ = ["Candidate", "PLAYER_EVENTS", "REPLACED_MARK", "candidates", "choose", "replace", "would_happen"]
