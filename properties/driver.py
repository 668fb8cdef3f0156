"""A random legal-play driver: whole games from a seed, no Hypothesis.

`random_game(seed, steps)` builds a fresh game (two shuffled 20-card decks of
creatures, spells, enchantments, items and buildings) and plays it: the game is
started (`start_game`), then each turn the active player plays affordable cards
in the main phases, fills the guard post in the exchange phase, attacks in the
combat phase and moves on with `advance`; now and then a random zone or
resource effect (properties/strategies.py, `gen_step`) happens. Only steps the
engine accepts are kept, so `(given, when)` replays with `run_case` to the same
game. It stops after `steps` steps or when the game ends.

`play_random(seed, n_steps)` returns the states after every step (the given
state first). `drive(...)` is the engine room, with an `on_step` hook the
fuzzer uses to check invariants; the benchmarks time it.
"""
from __future__ import annotations

import contextlib
import copy
import gc
import random
from typing import Any, Callable, Iterator

from model.engine import Outcome, apply
from model.errors import InputProblem
from model.ruleset import DEFAULT_RULESET, Ruleset, load_ruleset
from model.state import PERMANENT_KINDS, PHASES, PLAYERS, State, from_given, other

from .strategies import RandomChooser, gen_step

__all__ = ["random_given", "random_game", "play_random", "drive", "legal_candidates", "candidates"]

DECK_SIZE = 20


def random_given(rng: random.Random, deck_size: int = DECK_SIZE, version: int = 1) -> dict[str, Any]:
    """Two players with a deck each (owner = the deck's player), nothing else; a fresh game.
    Version 2 (hkk-case/2) makes some instants reaction cards and gives some creatures automatic
    abilities (from a generator of its own, so version 1's games stay what they were)."""
    cards: dict[str, dict[str, Any]] = {}
    players: dict[str, dict[str, Any]] = {}
    for p in PLAYERS:
        deck = []
        for i in range(deck_size):
            cid = f"{p.lower()}{i}"
            kind = rng.choice(("creature",) * 8 + ("instant", "instant", "sorcery", "sorcery",
                                                    "enchantment", "item", "building", "skill"))
            d: dict[str, Any] = {"kind": kind}
            if kind == "creature":
                d["damage"] = rng.randint(0, 4)
                d["hp"] = rng.randint(1, 5)
                d["cost"] = {"vp": rng.randint(0, 4)}
                if rng.random() < 0.3:
                    d["components_yield"] = rng.randint(1, 2)
                if rng.random() < 0.15:
                    d["abilities"] = [{"keyword": "flying"}]
                elif rng.random() < 0.1:
                    d["abilities"] = [{"keyword": "life", "x": 1}]
            elif kind in ("instant", "sorcery"):
                d["cost"] = {"vp": rng.randint(0, 2)}
                d["effects"] = [rng.choice((
                    {"damage": {"target": other(p), "amount": rng.randint(1, 3)}},
                    {"draw": {"count": 1}},
                    {"heal": {"target": p, "amount": 2}},
                    {"gain_vp": {"amount": 1}},
                    {"mill": {"player": other(p), "count": 1}},
                ))]
            elif kind == "building":
                d["hp"] = rng.randint(2, 5)
                d["cost"] = {"vp": rng.randint(0, 3)}
            elif kind == "item":
                d["cost"] = {"components": rng.randint(0, 1)}
            else:
                d["cost"] = {"vp": rng.randint(0, 3)}
            cards[cid] = d
            deck.append(cid)
        players[p] = {"deck": deck}
    given = {"players": players, "cards": cards, "seed": rng.randrange(1 << 16)}
    if version >= 2:
        _reactions_and_triggers(random.Random(given["seed"]), cards)
    return given


# what the version-2 games add: reaction instants (4.21.1, rb7:kijatszasi-sorrend) and creatures
# whose automatic abilities (133) watch draws, damage, plays and the queue
_TRIGGERS = (
    {"keyword": "x-greed", "trigger": {"event": "drew", "player": "$controller"},
     "effects": [{"gain_vp": {"amount": 1}}]},
    {"keyword": "x-spite", "trigger": {"event": "damaged", "target": "$opponent"},
     "effects": [{"heal": {"target": "$controller", "amount": 1}}]},
    {"keyword": "x-echo", "trigger": {"event": "played", "player": "$opponent"}, "immediately": True,
     "effects": [{"mill": {"player": "$controller", "count": 1}}]},
    {"keyword": "x-ward", "trigger": {"event": "queued", "player": "$opponent"},
     "effects": [{"modify": {"amount": -1}}]},
    {"keyword": "x-toll", "trigger": {"event": "drew", "player": "$opponent"}, "cost": {"vp": 1},
     "effects": [{"damage": {"target": "$opponent", "amount": 1}}]},
)


def _reactions_and_triggers(rng: random.Random, cards: dict[str, dict[str, Any]]) -> None:
    for cid in sorted(cards):
        d = cards[cid]
        if d["kind"] in ("instant", "sorcery") and rng.random() < 0.7:
            d["kind"], d["reaction"] = "instant", True
            d["cost"] = {"vp": rng.randint(0, 1)}
            d["effects"] = [rng.choice(({"prevent": {}}, {"prevent": {}},
                                        {"modify": {"amount": rng.choice((-2, 1))}}))]
        elif d["kind"] == "creature" and rng.random() < 0.35:
            d["abilities"] = list(d.get("abilities") or []) + [copy.deepcopy(rng.choice(_TRIGGERS))]


def _next_phase(phase: str) -> str:
    return PHASES[(PHASES.index(phase) + 1) % len(PHASES)]


def legal_candidates(state: State, rng: random.Random, effects: float = 0.25) -> list[dict[str, Any]]:
    """Steps worth trying now, best first (the first one the engine accepts is taken)."""
    return list(candidates(state, rng, effects))


def candidates(state: State, rng: random.Random, effects: float = 0.25) -> Iterator[dict[str, Any]]:
    """`legal_candidates` one at a time: a game asks for the next one only when the engine
    refused the one before (most steps take the first), so the rest is never generated."""
    p, phase = state.active, state.phase
    zs = state.players[p].zones
    if state.pending:
        pend = state.pending
        opts = list(pend.get("options") or [])
        if pend.get("choice") == "muscle_reward":        # 124.4: decided with a value
            n = int(pend.get("count", 0))
            k = rng.randint(0, n)
            yield {"choose": {"player": pend["player"], "value": {"draw": k, "vp": n - k}}}
            return
        if pend.get("choice") == "order":                # 4.10.4: the active player's order
            yield {"choose": {"player": pend["player"], "value": rng.sample(opts, len(opts))}}
            return
        if pend.get("choice") == "use":                  # 4.24.3.0: pay and use it, or not
            yield {"choose": {"player": pend["player"], "value": rng.random() < 0.5}}
            return
        yield {"choose": {"player": pend["player"],
                          "cards": rng.sample(opts, min(int(pend.get("count", 0)), len(opts)))}}
        return
    if state.version >= 2:
        yield from _bidding(state, rng)                  # hkk-case/2: the queue, alternation
        if state.queue:
            return
    if rng.random() < effects:
        yield gen_step(state, RandomChooser(rng))
    if phase in ("main1", "main2"):
        hand = list(zs["hand"])
        rng.shuffle(hand)
        for cid in hand:
            c = state.cards.peek(cid)
            if c.cost.get("vp", 0) > state.players[p].vp:
                continue
            if c.cost.get("components", 0) > state.players[p].components:
                continue
            step: dict[str, Any] = {"player": p, "card": cid}
            if c.kind == "enchantment":
                hosts = [x for x in zs["reserve"] + zs["guard_post"]]
                if hosts and rng.random() < 0.5:
                    step["targets"] = [rng.choice(hosts)]
            if state.version >= 2 and rng.random() < 0.6:
                step["wait"] = True                       # 4.21.1: it waits for answers
                extra = [x for x in zs["hand"] + zs["graveyard"] + zs["deck"][:3]
                         if x != cid and state.cards.peek(x).kind in PERMANENT_KINDS]
                if extra and rng.random() < 0.5:
                    step["with"] = [rng.choice(extra)]    # 4.21.2: a further card it brings
            if rng.random() < 0.7:
                yield {"play": step}
    elif phase == "exchange" and not (state.turn_info.acting or {}).get("active_moved"):
        pool = zs["reserve"] + zs["guard_post"]
        ready = [c for c in pool if state.cards.peek(c).is_creature and state.cards.peek(c).active]
        rng.shuffle(ready)
        post = ready[:3]
        yield {"exchange": {"player": p, "guard_post": post, "reserve": [c for c in pool if c not in post]}}
    elif phase == "combat" and state.turn_info.combat is None and zs["guard_post"]:
        opp = other(p)
        guards = list(state.players[opp].zones["guard_post"])
        attackers = list(zs["guard_post"])
        rng.shuffle(attackers)
        attacks = []
        for i, att in enumerate(attackers):
            if i < len(guards):
                attacks.append({"attacker": att, "target": guards[i]})
            else:
                attacks.append({"attacker": att, "target": opp})
        if len(attackers) >= len(guards):
            yield {"attack": {"player": p, "attacks": attacks}}
    if state.version >= 2:
        rec = state.turn_info.acting or {}
        if rec.get("last") == p and other(p) not in rec.get("passed", ()):
            yield {"pass": {"player": other(p)}}          # the other player lets p act again
        elif phase == "combat" and rng.random() < 0.5:
            yield {"pass": {"player": p if p not in rec.get("passed", ()) else other(p)}}
    yield {"advance": {"to": _next_phase(phase)}}


def _bidding(state: State, rng: random.Random) -> Iterator[dict[str, Any]]:
    """hkk-case/2: while something waits on the queue, a reaction card of either player, else a
    pass of each player in turn."""
    players = list(PLAYERS)
    rng.shuffle(players)
    if not state.queue:
        return
    for q in players:
        pl = state.players[q]
        for cid in pl.zones["hand"]:
            c = state.cards.peek(cid)
            if c.reaction and c.cost.get("vp", 0) <= pl.vp and rng.random() < 0.5:
                yield {"play": {"player": q, "card": cid}}
    done = state.turn_info.queue_passed or ()
    for q in players:
        if q not in done:
            yield {"pass": {"player": q}}


# A step of a game allocates a few hundred small containers (the state copy, events, the
# candidates) and frees them again by reference counting: they form no cycles. CPython's cycle
# collector still scans the young ones every 700 allocations: 7–8% of a game's time
# (benchmarks/bench_engine.py). During a game it scans them every 20,000 allocations instead
# (garbage in cycles still waits at most that long); the caller's thresholds are restored after
# the game, also when it raises.
GC_GEN0_DURING_GAME = 20_000


@contextlib.contextmanager
def _fewer_collections(gen0: int = GC_GEN0_DURING_GAME):
    old = gc.get_threshold()
    if 0 < old[0] < gen0:
        gc.set_threshold(gen0, *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def drive(seed: int, n_steps: int, *, ruleset: str | Ruleset = DEFAULT_RULESET, effects: float = 0.25,
          on_step: Callable[[State, dict[str, Any], Outcome, int], None] | None = None,
          stepper: Callable[[State, dict[str, Any], Ruleset, int], Outcome | None] | None = None,
          keep_states: bool = True, version: int = 1) -> tuple[dict[str, Any], list[dict[str, Any]], list[State]]:
    """Play one game: (given, accepted steps, states). `stepper` replaces `apply` (the fuzzer
    passes a checking one); it may return None to stop (a crash). `version` 2 plays it as
    hkk-case/2: reaction cards, plays waiting on the queue, automatic abilities, passes."""
    with _fewer_collections():
        return _drive(seed, n_steps, ruleset, effects, on_step, stepper, keep_states, version)


def _drive(seed: int, n_steps: int, ruleset: str | Ruleset, effects: float,
           on_step: Callable[[State, dict[str, Any], Outcome, int], None] | None,
           stepper: Callable[[State, dict[str, Any], Ruleset, int], Outcome | None] | None,
           keep_states: bool, version: int = 1) -> tuple[dict[str, Any], list[dict[str, Any]], list[State]]:
    rules = load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    rng = random.Random(seed)
    given = random_given(rng, version=version)
    state = from_given(given, rules, version)
    states = [state] if keep_states else []
    when: list[dict[str, Any]] = []
    first = {"start_game": {"first": rng.choice(PLAYERS)}}
    pending: list[dict[str, Any]] = [first]
    attempts = 0
    while len(when) < n_steps and state.result is None and attempts < n_steps * 20:
        steps = pending or candidates(state, rng, effects)
        pending = []
        for step in steps:
            attempts += 1
            try:
                out = stepper(state, step, rules, len(when)) if stepper else apply(state, step, rules)
            except InputProblem:
                continue
            if out is None:
                return given, when, states
            if out.refusal is not None:
                continue
            when.append(step)
            if on_step:
                on_step(state, step, out, len(when) - 1)
            state = out.state
            if keep_states:
                states.append(state)
            break
    if not keep_states:
        states = [state]
    return given, when, states


def random_game(seed: int, steps: int = 200, **kw: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(given, when) of one random legal game (at most `steps` steps)."""
    given, when, _ = drive(seed, steps, keep_states=False, **kw)
    return given, when


def play_random(seed: int, n_steps: int = 200, **kw: Any) -> list[State]:
    """The states of one random legal game: the given state, then one per step."""
    return drive(seed, n_steps, **kw)[2]
