"""Invariants of every HKK state and of every step.

State invariants (checked on an engine `State` with `check`, or on a state dict
returned over the protocol with `check_dict`; the same logic runs on both):

- `hp_vp_cap` (3.18): Ép ≤ max Ép and VP ≤ max VP, for both players.
- `non_negative` (3.19, 4.20.2): VP, szörnykomponens, max Ép and max VP are
  never below 0; nor are counters and wounds.
- `void_final` (4.8.4): nothing leaves the Void: every card in a player's Void
  before a step is in the same Void after it (needs `before`).
- `premade_zones` (96.8, 4.15.1): a premade card or token is never in a deck,
  nor, under a ruleset whose reading of `premade-bound-for-deck` is `removed`
  (the default `kodex`), in a Void.
- `token_zones` (rb7:jelzo): a standalone token is never in a graveyard, hand,
  deck or Void.
- `conservation` (4.5.2, 107.0): every card is in exactly one place (one zone
  of one player, or `removed`; nowhere only if it never was anywhere); no id is
  listed twice; a zone lists only defined cards; with `before`: no card
  disappears, a placed card stays placed, a removed card stays removed.
- `ownership` (4.7.3, 4.14.1, 4.15.0, 4.16.1; premade: 96.7): a card in a
  player's hand, deck, graveyard or Void is owned by that player.
- `guard_post_active` (5.4.1, 5.4.5): the guard post holds active creatures only.
- `queue_no_zone` (4.21.1): a card waiting on the reaction queue is in no zone (no zone lists
  it, it has not left the game); `conservation` counts the queue as its one place, so no card is
  lost on the way through the queue.

Step invariants (`check_step`, `check_steps`; these need the engine, which is
imported lazily so that `check_dict` stays usable without `model`):

- `atomic_refusal` (hkk-case/1 `error`, hkk-rules.md "Actions and effects"): a refused
  step leaves the state exactly as it was (to_dict and the whole State).
- `apply_pure` (model/engine.py): `apply` never changes the state it is given.
- `determinism` (4.15.0, the `seed`): the same given and steps give the same
  states and events when run again.
- `engine_error`: the engine raised on a well-formed step (a crash, not a refusal).
- `queue_empties` (rb7:kijatszasi-sorrend): a step in which both players passed on the queue
  (or an `advance`) leaves it empty, unless a decision it opened is pending.
- `extras_return` (4.21.2): the further cards of a prevented card are back where they were
  before they went on the queue (`check_steps` and the random-play driver keep where they were).
"""
from __future__ import annotations

import copy
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:  # pragma: no cover
    from model.ruleset import Ruleset
    from model.state import State

__all__ = ["INVARIANTS", "Violation", "check", "check_dict", "check_step", "check_steps",
           "StepReport", "names", "replay_differs"]

PLAYERS = ("A", "B")
ZONES = ("deck", "hand", "reserve", "guard_post", "table", "graveyard", "void")
OWNED_ZONES = ("hand", "deck", "graveyard", "void")

# name -> (clause, what it says)
INVARIANTS: dict[str, tuple[str, str]] = {
    "hp_vp_cap": ("3.18", "Ép ≤ max Ép and VP ≤ max VP"),
    "non_negative": ("3.19", "VP, szörnykomponens, maxima, counters and wounds are never below 0"),
    "void_final": ("4.8.4", "nothing ever leaves the Void"),
    "premade_zones": ("96.8", "a premade card or token is never in a deck or a Void"),
    "token_zones": ("rb7:jelzo", "a standalone token is never in a graveyard, hand, deck or Void"),
    "conservation": ("4.5.2", "every card is in exactly one place and no card disappears"),
    "ownership": ("4.7.3", "a card in a hand, deck, graveyard or Void belongs to that player"),
    "guard_post_active": ("5.4.5", "the guard post holds active creatures only"),
    "queue_no_zone": ("4.21.1", "a card on the reaction queue is in no zone"),
    "queue_empties": ("rb7:kijatszasi-sorrend", "both players passing on the queue resolves it"),
    "extras_return": ("4.21.2", "a prevented card's further cards go back where they were"),
    "atomic_refusal": ("hkk-case/1", "a refused step changes nothing"),
    "apply_pure": ("hkk-case/1", "apply never changes the state it is given"),
    "determinism": ("4.15.0", "the same seed and steps give the same game"),
    "engine_error": ("hkk-case/1", "the engine does not crash on a well-formed step"),
}

# rulesets whose reading of premade-bound-for-deck sends premade cards to the Void (4.15.1);
# used by check_dict, which cannot load a ruleset (it must work without `model`)
PREMADE_VOID_RULESETS = frozenset({"kodex-4.15.1"})


def names() -> list[str]:
    return list(INVARIANTS)


@dataclass(frozen=True)
class Violation:
    invariant: str
    message: str
    step: int | None = None

    @property
    def clause(self) -> str:
        return INVARIANTS.get(self.invariant, ("?", ""))[0]

    def __str__(self) -> str:
        where = f" (step {self.step})" if self.step is not None else ""
        return f"{self.invariant} [{self.clause}]{where}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"invariant": self.invariant, "clause": self.clause, "message": self.message,
                "step": self.step}


# ---------------------------------------------------------------------------
# one view over State and over state dicts
# ---------------------------------------------------------------------------

@dataclass
class _View:
    players: dict[str, dict[str, Any]]               # hp, max_hp, vp, max_vp, components
    zones: dict[str, dict[str, list[str]]]           # player -> zone -> ids
    removed: list[str]
    cards: dict[str, dict[str, Any]]                 # owner, kind, premade, standalone_token, active, ...
    premade_void_ok: bool = False
    zone_fields: dict[str, Any] = field(default_factory=dict)   # dict states: the card's own `zone`
    queued: list[str] = field(default_factory=list)   # the cards on the reaction queue (4.21.1)

    def places(self) -> dict[str, list[tuple[str, str]]]:
        where: dict[str, list[tuple[str, str]]] = {}
        for p, zs in self.zones.items():
            for z, ids in zs.items():
                for cid in ids:
                    where.setdefault(cid, []).append((p, z))
        for cid in self.removed:
            where.setdefault(cid, []).append(("", "removed"))
        for cid in self.queued:
            where.setdefault(cid, []).append(("", "queue"))
        return where


def _view_of_state(state: "State", rules: "Ruleset | None") -> _View:
    players = {p: {"hp": pl.hp, "max_hp": pl.max_hp, "vp": pl.vp, "max_vp": pl.max_vp,
                   "components": pl.components} for p, pl in state.players.items()}
    zones = {p: {z: list(pl.zones.get(z, [])) for z in ZONES} for p, pl in state.players.items()}
    cards = {cid: {"owner": c.owner, "kind": c.kind, "premade": c.premade,
                   "standalone_token": c.standalone_token, "active": c.active,
                   "counters": dict(c.counters), "wounds": c.wounds}
             for cid, c in state.cards.items()}
    void_ok = False
    if rules is not None:
        try:
            void_ok = rules.reading("premade-bound-for-deck") == "void"
        except Exception:
            void_ok = False
    queued = [c for e in state.queue for c in ([e["card"]] if e["kind"] == "card" else [])
              + [w["card"] for w in e.get("with") or ()]]
    return _View(players, zones, list(state.removed), cards, void_ok, queued=queued)


def _view_of_dict(d: dict[str, Any], ruleset: str | None = None) -> _View:
    players: dict[str, dict[str, Any]] = {}
    zones: dict[str, dict[str, list[str]]] = {}
    for p in PLAYERS:
        pd = ((d.get("players") or {}).get(p)) or {}
        players[p] = {k: pd.get(k) for k in ("hp", "max_hp", "vp", "max_vp", "components")}
        zones[p] = {z: [x for x in (pd.get(z) or []) if isinstance(x, str)] for z in ZONES}
    cards: dict[str, dict[str, Any]] = {}
    zone_fields: dict[str, Any] = {}
    for cid, c in (d.get("cards") or {}).items():
        c = c if isinstance(c, dict) else {}
        cards[cid] = {"owner": c.get("owner"), "kind": c.get("kind"),
                      "premade": bool(c.get("premade", False)),
                      "standalone_token": bool(c.get("standalone_token", False)),
                      "active": c.get("active", True), "counters": dict(c.get("counters") or {}),
                      "wounds": c.get("wounds", 0)}
        if "zone" in c:
            zone_fields[cid] = c["zone"]
    ruleset = ruleset or d.get("ruleset") or "kodex"
    queued = []
    for e in d.get("queue") or []:
        if isinstance(e, dict):
            if e.get("kind") == "card" and isinstance(e.get("card"), str):
                queued.append(e["card"])
            queued.extend(x for x in e.get("with") or [] if isinstance(x, str))
    return _View(players, zones, [x for x in (d.get("removed") or []) if isinstance(x, str)], cards,
                 ruleset in PREMADE_VOID_RULESETS, zone_fields, queued)


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _check_view(after: _View, before: _View | None) -> list[Violation]:
    out: list[Violation] = []

    def v(name: str, msg: str) -> None:
        out.append(Violation(name, msg))

    # 3.18 and the floors
    for p in PLAYERS:
        pl = after.players.get(p) or {}
        hp, mhp, vp, mvp = pl.get("hp"), pl.get("max_hp"), pl.get("vp"), pl.get("max_vp")
        if _is_int(hp) and _is_int(mhp) and hp > mhp:
            v("hp_vp_cap", f"{p} has {hp} Ép above the maximum {mhp}")
        if _is_int(vp) and _is_int(mvp) and vp > mvp:
            v("hp_vp_cap", f"{p} has {vp} VP above the maximum {mvp}")
        for k in ("vp", "components", "max_hp", "max_vp"):
            x = pl.get(k)
            if _is_int(x) and x < 0:
                v("non_negative", f"{p}'s {k} is {x}")
    for cid, c in after.cards.items():
        for name, n in (c.get("counters") or {}).items():
            if _is_int(n) and n < 0:
                v("non_negative", f"{cid} carries {n} {name} counter(s)")
        w = c.get("wounds")
        if _is_int(w) and w < 0:
            v("non_negative", f"{cid} has {w} wounds")

    # where every card is
    places = after.places()
    for cid, where in places.items():
        if len(where) > 1:
            shown = ", ".join(f"{p}'s {z}" if p else z for p, z in where)
            v("queue_no_zone" if ("", "queue") in where else "conservation",
              f"{cid} is in {len(where)} places at once: {shown}")
        if cid not in after.cards:
            v("conservation", f"{cid} is listed in {where[0][0] or ''} {where[0][1]} but is not a card")
    for cid, zf in after.zone_fields.items():
        where = places.get(cid)
        if where and len(where) == 1:
            if zf != where[0][1]:
                v("conservation", f"{cid} says zone {zf!r} but is listed in {where[0][1]}")
        elif not where and zf not in (None,):
            v("conservation", f"{cid} says zone {zf!r} but no zone lists it")
    if before is not None:
        before_places = before.places()
        for cid in before.cards:
            if cid not in after.cards:
                v("conservation", f"{cid} has disappeared from the cards")
        for cid, where in before_places.items():
            now = places.get(cid)
            if not now:
                v("conservation", f"{cid} was in {where[0][1]} and is now nowhere")
            elif where[0][1] == "removed" and all(z != "removed" for _, z in now):
                v("conservation", f"{cid} had left the game and is back in {now[0][1]}")
        # 4.8.4: every card in a Void before is in the same Void after
        for p in PLAYERS:
            for cid in before.zones.get(p, {}).get("void", []):
                if cid not in after.zones.get(p, {}).get("void", []):
                    now = places.get(cid)
                    shown = (f"{now[0][0]}'s {now[0][1]}" if now and now[0][0] else
                             (now[0][1] if now else "nowhere"))
                    v("void_final", f"{cid} was in {p}'s Void and is now in {shown}")

    # what may lie where
    for p in PLAYERS:
        zs = after.zones.get(p, {})
        for z in OWNED_ZONES:
            for cid in zs.get(z, []):
                c = after.cards.get(cid)
                if c is None:
                    continue
                if c.get("premade") and (z == "deck" or (z == "void" and not after.premade_void_ok)):
                    v("premade_zones", f"premade card {cid} is in {p}'s {z}")
                if c.get("standalone_token"):
                    v("token_zones", f"standalone token {cid} is in {p}'s {z}")
                owner = c.get("owner")
                if owner in PLAYERS and owner != p:
                    v("ownership", f"{cid} (owner {owner}) is in {p}'s {z}")
        for cid in zs.get("guard_post", []):
            c = after.cards.get(cid)
            if c is None:
                continue
            if c.get("active") is False:
                v("guard_post_active", f"{cid} is passive in {p}'s guard post")
            if c.get("kind") not in (None, "creature"):
                v("guard_post_active", f"{cid} is a {c.get('kind')} in {p}'s guard post")
    return out


def check(state: "State", rules: "Ruleset | None" = None, before: "State | None" = None
          ) -> list[Violation]:
    """The state invariants of an engine State (with `before`: also those of the change)."""
    return _check_view(_view_of_state(state, rules),
                       _view_of_state(before, rules) if before is not None else None)


def check_dict(state: dict[str, Any], before: dict[str, Any] | None = None,
               ruleset: str | None = None) -> list[Violation]:
    """The state invariants of a state dict (the shape of `given` / a protocol reply's `state`).

    `ruleset` defaults to the dict's own `ruleset` field, else `kodex`. Never imports `model`.
    """
    return _check_view(_view_of_dict(state, ruleset),
                       _view_of_dict(before, ruleset) if before is not None else None)


# ---------------------------------------------------------------------------
# step invariants (lazy engine imports)
# ---------------------------------------------------------------------------

def _crash(step_i: int | None, step: Any, exc: BaseException) -> Violation:
    tb = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno}" if frames else ""
    return Violation("engine_error", f"{tb}{where} on {step!r}", step_i)


def _fingerprint(state: "State") -> str:
    """Everything a State holds (its repr covers every field, turn_info and the rng counter)."""
    return repr(state)


def _queue_checks(state: "State", step: dict[str, Any], out: Any, step_i: int | None,
                  origins: dict[str, tuple[str, str]] | None) -> list[Violation]:
    """`queue_empties` and `extras_return` for one accepted step (`origins`: card → where it was
    before it went on the queue as a further card, kept across the steps of a game)."""
    viol: list[Violation] = []
    after = out.state
    passed: set[str] = set(state.turn_info.queue_passed or ()) if state.queue else set()
    both = False
    for ev in out.events:
        if ev["event"] == "queued":
            passed, both = set(), False
        elif ev["event"] == "passed" and ev.get("queue"):
            passed.add(ev["player"])
            both = both or passed >= set(PLAYERS)
    if (both or "advance" in step) and after.queue and after.pending is None:
        viol.append(Violation("queue_empties", f"both passed (or advance) but {len(after.queue)} "
                                               f"entr{'y' if len(after.queue) == 1 else 'ies'} still wait "
                                               f"after {step!r}", step_i))
    if origins is None:
        return viol
    for entry in after.queue:
        for extra in entry.get("with") or ():
            cid = extra["card"]
            if cid not in origins and state.locate(cid) is not None:
                origins[cid] = state.locate(cid)
    for ev in out.events:
        if ev["event"] == "returned" and ev["card"] in origins:
            was = origins.pop(ev["card"])
            now = after.locate(ev["card"])
            if now != was:
                viol.append(Violation("extras_return", f"{ev['card']} went on the queue from {was} "
                                                       f"and came back to {now}", step_i))
    return viol


def check_step(state: "State", step: dict[str, Any], rules: "Ruleset", step_i: int | None = None,
               origins: dict[str, tuple[str, str]] | None = None):
    """Apply one step with every check. Returns (outcome or None on a crash, violations).
    `origins`: where the further cards of queued plays were (kept by the caller across a game)."""
    from model.engine import apply
    from model.errors import InputProblem
    from model.view import to_dict

    before_view = _view_of_state(state, rules)
    before_fp = _fingerprint(state)
    before_dict = to_dict(state, rules)
    viol: list[Violation] = []
    try:
        out = apply(state, step, rules)
    except InputProblem:
        raise
    except Exception as exc:       # noqa: BLE001 - an engine crash is a finding
        return None, [_crash(step_i, step, exc)]
    if _fingerprint(state) != before_fp or to_dict(state, rules) != before_dict:
        viol.append(Violation("apply_pure", f"apply changed the state it was given on {step!r}", step_i))
    if out.refusal is not None:
        if (out.state is not state and _fingerprint(out.state) != before_fp) \
                or to_dict(out.state, rules) != before_dict:
            viol.append(Violation("atomic_refusal",
                                  f"{step!r} was refused ({out.refusal.clause}) but the state changed",
                                  step_i))
        return out, viol
    for x in _check_view(_view_of_state(out.state, rules), before_view):
        viol.append(Violation(x.invariant, f"{x.message} after {step!r}", step_i))
    if out.state.queue or state.queue or origins:
        viol.extend(_queue_checks(state, step, out, step_i, origins))
    return out, viol


@dataclass
class StepReport:
    violations: list[Violation]
    states: list[Any]                # the state after every step (the last accepted one on refusals)
    refused: list[int]               # indexes of refused steps
    events: list[dict[str, Any]]


def _replay(given: dict[str, Any] | None, when: list[dict[str, Any]], rules, stop_at_refusal: bool,
            version: int = 1):
    from model.engine import apply
    from model.state import from_given
    from model.view import to_dict
    state = from_given(copy.deepcopy(given), rules, version)
    trace: list[Any] = []
    for step in when:
        try:
            out = apply(state, copy.deepcopy(step), rules)
        except Exception as exc:   # noqa: BLE001
            trace.append(("raised", type(exc).__name__))
            break
        trace.append((out.refusal.clause if out.refusal else None, out.events))
        if out.refusal is None:
            state = out.state
        elif stop_at_refusal:
            break
    return to_dict(state, rules), trace


def replay_differs(given: dict[str, Any] | None, when: list[dict[str, Any]], rules,
                   final: dict[str, Any], trace: list[Any], stop_at_refusal: bool = False,
                   version: int = 1) -> Violation | None:
    """Run `when` again from `given`; a `determinism` violation when the final state or the
    (refusal, events) trace differs from the run already made."""
    again = _replay(given, when, rules, stop_at_refusal, version)
    if (final, trace) == again:
        return None
    b = again[1]
    at = next((k for k in range(min(len(trace), len(b))) if trace[k] != b[k]), None)
    what = f"from step {at} on" if at is not None else "in the final state"
    return Violation("determinism", f"two runs of the same given and steps differ {what}", at)


def check_steps(given: dict[str, Any] | None, when: Iterable[dict[str, Any]],
                ruleset: "str | Ruleset" = "kodex", *, determinism: bool = True,
                stop_at_refusal: bool = False, version: int = 1) -> StepReport:
    """Apply `when` one step at a time (a refused step is skipped, or ends the run with
    stop_at_refusal) and check every invariant after every step; then, with
    `determinism`, run everything again and compare states, refusals and events."""
    from model.errors import InputProblem
    from model.ruleset import load_ruleset
    from model.state import from_given
    from model.view import to_dict

    rules = load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    when = list(when)
    state = from_given(copy.deepcopy(given), rules, version)
    report = StepReport(violations=[], states=[], refused=[], events=[])
    origins: dict[str, tuple[str, str]] = {}
    for x in check(state, rules):
        report.violations.append(Violation(x.invariant, f"{x.message} in the given state", None))
    trace: list[Any] = []
    for i, step in enumerate(when):
        try:
            out, viol = check_step(state, copy.deepcopy(step), rules, i, origins)
        except InputProblem as exc:
            report.violations.append(Violation("engine_error", f"step {i} is malformed: {exc}", i))
            trace.append(("raised", "InputProblem"))
            break
        report.violations.extend(viol)
        if out is None:
            trace.append(("raised", "crash"))
            break
        trace.append((out.refusal.clause if out.refusal else None, out.events))
        if out.refusal is not None:
            report.refused.append(i)
            report.states.append(state)
            if stop_at_refusal:
                break
            continue
        state = out.state
        report.states.append(state)
        report.events.extend(out.events)
    if determinism and not any(v.invariant == "engine_error" for v in report.violations):
        v = replay_differs(given, when, rules, to_dict(state, rules), trace, stop_at_refusal, version)
        if v is not None:
            report.violations.append(v)
    return report
