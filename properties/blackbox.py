"""An independent black-box fuzzer: the engine seen only through protocol 1.

This module never imports `model` (tests/test_blackbox.py checks it). It starts
an implementation program (default ``[sys.executable, "-m", "conformance",
"serve"]``, the reference engine), builds random cases with its own generator
(seeded `random.Random`, nothing shared with properties/strategies.py), and
grows each case one step at a time: the next step's arguments are drawn from
the state the program returned for the steps so far. After every step:

- the returned state must satisfy the state invariants
  (`properties.invariants.check_dict`, with the previous state as `before`:
  caps, floors, the Void, premade cards and tokens, conservation, ownership,
  the guard post);
- a refused step must be refused at its own index, and the reply's state must
  equal the state of the run without it (the prefix, already run) — atomic
  refusal;
- at the end the accepted steps are run again and must give the same state and
  events (determinism).

`run_blackbox(cases, seed, steps, command)` returns a `BlackboxReport`;
`main(argv)` is ``python -m properties.blackbox [--cases N] [--seed S]
[--steps M] [--impl COMMAND]``.
"""
from __future__ import annotations

import argparse
import copy
import os
import random
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from conformance.protocol import ProtocolClient, interpret_reply

from .invariants import Violation, check_dict

__all__ = ["ROOT", "serve_command", "BlackBox", "BlackboxReport", "random_given", "random_step",
           "run_blackbox", "main"]

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ("A", "B")
PHASES = ("preparation", "draw", "main1", "exchange", "combat", "main2", "end")
TABLE = ("reserve", "guard_post", "table")
KINDS = ("creature", "instant", "sorcery", "enchantment", "item", "building", "skill", "body_part",
         "location")
DESTS = ("hand", "deck_top", "deck_bottom", "deck_shuffle", "graveyard", "void", "reserve",
         "guard_post", "table")
COUNTERS = ("poison", "sleep", "freeze", "life", "muscle", "aging", "delay", "temporary", "fading")


def serve_command() -> str:
    return shlex.join([sys.executable, "-m", "conformance", "serve"])


def _opp(p: str) -> str:
    return "B" if p == "A" else "A"


# ---------------------------------------------------------------------------
# the generator: given
# ---------------------------------------------------------------------------

def random_given(rng: random.Random) -> dict[str, Any]:
    """A valid given: every card in one place, non-table cards owned by their zone's player,
    premade cards out of decks and Voids, tokens on the table, guard posts of active creatures."""
    players = {p: {"hp": 20, "max_hp": 20, "vp": rng.randint(0, 8), "max_vp": 20,
                   "components": rng.randint(0, 3)} for p in PLAYERS}
    for p in PLAYERS:
        if rng.random() < 0.3:
            players[p]["max_hp"] = rng.randint(1, 24)
            players[p]["hp"] = rng.randint(1, players[p]["max_hp"])
        if rng.random() < 0.2:
            players[p]["max_vp"] = rng.randint(0, 12)
            players[p]["vp"] = rng.randint(0, players[p]["max_vp"])
    cards: dict[str, dict[str, Any]] = {}
    for i in range(rng.randint(2, 16)):
        cid = f"k{i}"
        p = rng.choice(PLAYERS)
        kind = rng.choice(KINDS[:1] * 4 + KINDS)
        card: dict[str, Any] = {"kind": kind, "owner": p}
        if kind == "creature":
            card.update(damage=rng.randint(0, 4), hp=rng.randint(1, 5))
            if rng.random() < 0.15:
                card["abilities"] = [{"keyword": "flying"}]
        elif kind == "building":
            card["hp"] = rng.randint(1, 4)
        flavour = rng.random()
        if flavour < 0.12:
            card["premade"] = True
        elif flavour < 0.22 and kind == "creature":
            card["standalone_token"] = True
        zones = ["hand", "deck", "graveyard", "void"]
        if kind == "creature":
            zones += ["reserve", "reserve", "guard_post"]
        elif kind not in ("instant", "sorcery"):
            zones += ["table"]
        if card.get("premade"):
            zones = [z for z in zones if z not in ("deck", "void")]
        if card.get("standalone_token"):
            zones = ["reserve", "guard_post"]
        zone = rng.choice(zones)
        if zone == "guard_post" and len(players[p].get("guard_post", [])) >= 3:
            zone = "reserve"
        if zone in TABLE:
            if rng.random() < 0.2:
                card["owner"] = _opp(p)
            if zone == "guard_post":
                card["active"] = True
            elif rng.random() < 0.3:
                card["active"] = False
            if kind == "creature" and rng.random() < 0.25:
                card["counters"] = {rng.choice(("muscle", "life", "poison", "delay")): 1}
        players[p].setdefault(zone, []).append(cid)
        cards[cid] = card
    return {"turn": {"active": rng.choice(PLAYERS), "phase": rng.choice(("main1", "main1") + PHASES)},
            "players": players, "cards": cards, "seed": rng.randrange(1000)}


# ---------------------------------------------------------------------------
# the generator: a step from a returned state
# ---------------------------------------------------------------------------

def _ids(state: dict[str, Any], zones: Sequence[str], player: str | None = None) -> list[str]:
    out: list[str] = []
    for p in (player,) if player else PLAYERS:
        pd = (state.get("players") or {}).get(p) or {}
        for z in zones:
            out.extend(pd.get(z) or [])
    return out


def _some(rng: random.Random, preferred: list[str], state: dict[str, Any]) -> str | None:
    pool = preferred if preferred and rng.random() < 0.9 else list(state.get("cards") or {})
    return rng.choice(pool) if pool else None


def random_step(rng: random.Random, state: dict[str, Any], n: int) -> dict[str, Any]:
    """One zone or resource step drawn from a returned state (`n`: a counter for new ids)."""
    turn = state.get("turn") or {}
    active = turn.get("active", "A")
    pending = state.get("pending")
    if pending and rng.random() < 0.85:
        opts = list(pending.get("options") or [])
        if pending.get("choice") == "muscle_reward":     # 124.4: decided with a value
            n = int(pending.get("count") or 0)
            d = rng.randint(0, n)
            return {"choose": {"player": pending.get("player", active), "value": {"draw": d, "vp": n - d}}}
        k = min(int(pending.get("count") or 0), len(opts))
        return {"choose": {"player": pending.get("player", active), "cards": rng.sample(opts, k)}}
    p = active if rng.random() < 0.65 else _opp(active)
    table = _ids(state, TABLE)
    cards = state.get("cards") or {}
    verb = rng.choice(("damage", "heal", "draw", "discard", "mill", "move", "move", "exile",
                       "sacrifice", "sacrifice_hp", "sacrifice_max_hp", "change_max_hp",
                       "change_max_vp", "gain_vp", "gain_components", "steal", "create", "create",
                       "put_counter", "remove_counter", "passivate", "activate_card", "search",
                       "shuffle", "advance", "exchange", "play"))
    if verb in ("damage", "heal"):
        fighters = [c for c in table if (cards.get(c) or {}).get("kind") in ("creature", "building")]
        target = rng.choice(list(PLAYERS) + fighters)
        return {verb: {"target": target, "amount": rng.randint(0, 7)}}
    if verb == "draw":
        return {"draw": {"player": p, "count": rng.randint(0, 3)}}
    if verb == "discard":
        hand = _ids(state, ("hand",), p)
        if hand and rng.random() < 0.5:
            chosen = rng.sample(hand, rng.randint(1, min(2, len(hand))))
            return {"discard": {"player": p, "cards": chosen, "count": len(chosen),
                                "to": rng.choice(("graveyard", "void"))}}
        return {"discard": {"player": p, "count": rng.randint(0, 2), "as_cost": rng.random() < 0.3,
                            "to": rng.choice(("graveyard", "void"))}}
    if verb == "mill":
        return {"mill": {"player": p, "count": rng.randint(0, 3), "to": rng.choice(("graveyard", "void")),
                         "as_cost": rng.random() < 0.3}}
    if verb in ("sacrifice_hp", "sacrifice_max_hp"):
        return {verb: {"player": p, "amount": rng.randint(0, 22), "as_cost": rng.random() < 0.3}}
    if verb in ("change_max_hp", "change_max_vp"):
        return {verb: {"player": p, "delta": rng.randint(-22, 8)}}
    if verb == "gain_vp":
        return {"gain_vp": {"player": p, "amount": rng.randint(-4, 22)}}
    if verb == "gain_components":
        return {"gain_components": {"player": p, "amount": rng.randint(-2, 4)}}
    if verb == "shuffle":
        return {"shuffle": {"player": p}}
    if verb == "advance":
        return {"advance": {"to": rng.choice(PHASES)}}
    if verb == "create":
        kind = rng.choice(("creature", "creature", "item", "enchantment", "building"))
        card: dict[str, Any] = {"id": f"n{n}", "kind": kind}
        if kind == "creature":
            card.update(damage=rng.randint(0, 3), hp=rng.randint(1, 4))
            if rng.random() < 0.4:
                card["standalone_token"] = True
        elif kind == "building":
            card["hp"] = rng.randint(1, 3)
        step = {"player": p, "card": card}
        if rng.random() < 0.85:
            step["zone"] = rng.choice(("hand", "reserve", "guard_post", "table", "graveyard", "void", "deck"))
        return {"create": step}
    if verb == "exchange":
        pool = _ids(state, ("reserve", "guard_post"), p)
        ready = [c for c in pool if (cards.get(c) or {}).get("active", True)]
        post = rng.sample(ready, min(len(ready), rng.randint(0, 3)))
        return {"exchange": {"player": p, "guard_post": post, "reserve": [c for c in pool if c not in post]}}
    if verb == "search":
        card = _some(rng, _ids(state, ("deck",), p), state)
        if card is not None:
            return {"search": {"player": p, "card": card,
                               "to": rng.choice(("hand", "reserve", "deck_top", "graveyard"))}}
        return {"shuffle": {"player": p}}
    if verb == "play":
        card = _some(rng, _ids(state, ("hand",), p), state)
        if card is not None:
            return {"play": {"player": p, "card": card}}
        return {"shuffle": {"player": p}}
    # verbs on one card
    preferred = {"move": list(cards), "exile": _ids(state, ("graveyard",)),
                 "sacrifice": _ids(state, TABLE, p)}.get(verb, table)
    card = _some(rng, preferred, state)
    if card is None:
        return {"gain_vp": {"player": p, "amount": 1}}
    if verb == "move":
        return {"move": {"card": card, "to": rng.choice(DESTS)}}
    if verb == "exile":
        return {"exile": {"card": card}}
    if verb == "sacrifice":
        return {"sacrifice": {"player": p, "card": card, "forced": rng.random() < 0.5}}
    if verb == "steal":
        return {"steal": {"card": card, "to": rng.choice(PLAYERS)}}
    if verb in ("put_counter", "remove_counter"):
        return {verb: {"card": card, "counter": rng.choice(COUNTERS), "count": rng.randint(0, 2)}}
    return {verb: {"card": card}}                  # passivate, activate_card


# ---------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------

class BlackBox:
    """A protocol-1 program, one `run` per call."""

    def __init__(self, command: str | None = None, timeout: float = 10.0,
                 stderr_path: str | Path | None = None):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [x for x in env.get("PYTHONPATH", "").split(os.pathsep) if x])
        self.client = ProtocolClient(command or serve_command(), timeout=timeout, max_restarts=2,
                                     stderr_path=stderr_path or os.devnull, cwd=str(ROOT), env=env)
        self.n = 0

    def run(self, given: dict[str, Any], when: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
        self.n += 1
        reply = self.client.run(f"blackbox-{self.n}", "kodex", copy.deepcopy(given), copy.deepcopy(when))
        return interpret_reply(reply)

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> "BlackBox":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


@dataclass
class Problem:
    case: int
    violation: Violation
    given: dict[str, Any]
    when: list[dict[str, Any]]

    def __str__(self) -> str:
        return f"case {self.case}: {self.violation}"


@dataclass
class BlackboxReport:
    cases: int = 0
    steps: int = 0
    accepted: int = 0
    refused: int = 0
    problems: list[Problem] = field(default_factory=list)

    @property
    def violations(self) -> list[Violation]:
        return [p.violation for p in self.problems]


def _one_case(bb: BlackBox, rng: random.Random, index: int, n_steps: int, report: BlackboxReport) -> None:
    given = random_given(rng)
    accepted: list[dict[str, Any]] = []

    def problem(name: str, msg: str, step: int | None, when: list[dict[str, Any]]) -> None:
        report.problems.append(Problem(index, Violation(name, msg, step), given, list(when)))

    outcome, data = bb.run(given, [])
    if outcome != "observed" or data.get("refused"):
        problem("engine_error", f"the given state was not accepted: {outcome} {data.get('message', '')}",
                None, [])
        return
    current = data["state"]
    for v in check_dict(current):
        problem(v.invariant, f"{v.message} (in the given state)", None, [])
    events = data.get("events")
    for _ in range(n_steps):
        step = random_step(rng, current, report.steps)
        when = accepted + [step]
        report.steps += 1
        outcome, data = bb.run(given, when)
        i = len(accepted)
        if outcome != "observed":
            problem("engine_error", f"{outcome}: {data.get('message', '')}"[:300], i, when)
            return
        refused = data.get("refused")
        state = data.get("state") or {}
        if refused:
            report.refused += 1
            if refused.get("step") != i:
                problem("atomic_refusal", f"step {refused.get('step')} refused, but the steps before "
                                          f"step {i} were accepted on their own", i, when)
            elif state != current:
                problem("atomic_refusal", f"{step} was refused ({refused.get('clause')}) but the "
                                          "returned state is not the state before it", i, when)
            continue
        report.accepted += 1
        for v in check_dict(state, before=current):
            problem(v.invariant, f"{v.message} after {step}", i, when)
        accepted.append(step)
        current, events = state, data.get("events")
    if accepted:
        outcome, data = bb.run(given, accepted)
        if outcome != "observed" or data.get("refused") or data.get("state") != current \
                or data.get("events") != events:
            problem("determinism", "running the same given and steps again gave another result",
                    None, accepted)


def run_blackbox(cases: int = 150, seed: int = 0, steps: int = 8, command: str | None = None,
                 stderr_path: str | Path | None = None) -> BlackboxReport:
    report = BlackboxReport()
    with BlackBox(command, stderr_path=stderr_path) as bb:
        for i in range(cases):
            rng = random.Random(f"blackbox/{seed}/{i}")
            _one_case(bb, rng, i, steps, report)
            report.cases += 1
    return report


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m properties.blackbox",
                                 description="black-box invariant fuzzing over protocol 1")
    ap.add_argument("--cases", type=int, default=150)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--impl", metavar="COMMAND", help="the program (default: the reference engine)")
    args = ap.parse_args(list(argv) if argv is not None else None)
    rep = run_blackbox(args.cases, args.seed, args.steps, args.impl)
    print(f"{rep.cases} cases, {rep.steps} steps ({rep.accepted} accepted, {rep.refused} refused), "
          f"{len(rep.problems)} violation(s)")
    for p in rep.problems[:20]:
        print(f"  {p}")
    return 1 if rep.problems else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
