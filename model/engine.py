"""The engine as a function: (state, step) → new state, events, refusal or a pending decision.

`apply` works on a copy of the state: a step the rules refuse returns the
state it was given, untouched, with the refusing clause. `run_case` applies a
case's steps in order and stops at the first refusal (hkk-case/1 `error`).
The verbs and the modules that carry them out:
- player actions: start_game, advance, exchange, sacrifice_for_components
  (model/turn.py), play (model/play.py), choose (pending decisions, 4.17.2),
  attack, strike_back, activate (model/combat.py, model/abilities.py), return_szkritter
  (model/special_actions.py)
- effects of a source: model/effects.py
"""
from __future__ import annotations

from typing import Any, Callable

from . import abilities, bidding, combat, continuous, muscle, numbers, special_actions, stats, triggers, turn
from .damage import life_saving_targets, life_saving_step, settle
from .effects import EFFECTS, apply_effect
from .errors import InputProblem, Refusal
from .event_clauses import stamp
from .resources import cap_player
from .shapes import repeats
from .game import Game
from .play import play, resume_effects
from .ruleset import DEFAULT_RULESET, Ruleset, available_rulesets, load_ruleset
from .state import PLAYERS, State, from_given, jcopy
from .view import result_of, to_dict

ACTIONS: dict[str, Callable[[Game, dict[str, Any], str], None]] = {
    "start_game": turn.start_game,
    "advance": turn.advance,
    "pass": turn.pass_phase,
    "exchange": turn.exchange,
    "sacrifice_for_components": turn.sacrifice_for_components,
    "play": play,
    **combat.ACTIONS,
    **abilities.ACTIONS,
    **special_actions.ACTIONS,
    "make_up": triggers.make_up,
    "_muscle_reward": muscle.muscle_decision,
    "_order_triggers": triggers.order_triggers,
    "_use_related": triggers.use_related,
}
# verbs of hkk-case/2 only (docs/spec/hkk-reactions.md): a case of version 1 cannot use them
VERSION_2_VERBS = ("make_up", "prevent", "modify")
# verbs a case may use; names starting with "_" are the engine's own (answers to pending choices)
SUPPORTED_VERBS = sorted(v for v in set(ACTIONS) | set(EFFECTS) | {"choose"} if not v.startswith("_"))


class _StampedOnRead:
    """Events that get their clauses (model/event_clauses.py) when they are first read: a caller
    that never looks at them (random play, the state machine, a replay) does not pay for it."""
    __slots__ = ("_events", "_stamped")

    @property
    def events(self) -> list[dict[str, Any]]:
        if not self._stamped:
            for ev in self._events:
                stamp(ev)
            self._stamped = True
        return self._events

    @events.setter
    def events(self, events: list[dict[str, Any]]) -> None:
        self._events, self._stamped = events, True      # given as they are to be read


class Outcome(_StampedOnRead):
    """What one step did: the new state (the old one when refused), the events, the refusal."""
    __slots__ = ("state", "refusal")

    def __init__(self, state: State, events: list[dict[str, Any]] | None = None,
                 refusal: Refusal | None = None) -> None:
        self.state = state
        self.refusal = refusal
        self._events = [] if events is None else events
        self._stamped = False


def _choose(g: Game, a: dict[str, Any], by: str) -> None:
    st = g.state
    pend = st.pending
    if not pend:
        g.refuse("4.23.5", "no decision is pending")
    player = a.get("player", pend["player"])
    if player != pend["player"]:
        g.refuse("4.17.2", f"the decision is {pend['player']}'s, not {player}'s")
    (verb, args), = pend["step"].items()
    args = dict(args)
    if verb == "discard":
        # the answer is the player's decision, an action: refused when it does not fit the
        # question (the discard it completes is an effect, carried out as far as possible)
        answer = a.get("cards")
        if not isinstance(answer, list):
            raise InputProblem("choose: a discard decision is answered with cards: [ids]")
        for cid in answer:
            g.card(cid)
            if cid not in pend.get("options", ()):
                g.refuse("4.17.0", f"{cid} is not one of the cards of {player}'s hand to choose from")
        if repeats(answer) or len(answer) != pend.get("count"):
            g.refuse("4.17.3", f"{pend.get('count')} card(s) must be chosen, {len(answer)} named")
    if "cards" in a:
        args["cards"] = list(a["cards"])
    if "value" in a:
        args["value"] = a["value"]
    st.pending = None
    _dispatch(g, verb, args, pend.get("by", by))
    _carry_on(g, pend)


def _carry_on(g: Game, pend: dict[str, Any]) -> None:
    """What waited for a decision, once it is answered or its default taken: the card's effects
    after it (4.23.5), the automatic abilities set off before it (133.0), the reaction queue if
    it was resolving."""
    st = g.state
    for rest in pend.get("then") or []:
        if st.pending is not None:               # a new decision opened: the rest waits for it
            st.pending.setdefault("then", []).append(rest)
            continue
        resume_effects(g, rest)
    if pend.get("then_triggers"):                # automatic abilities that waited (model/triggers.py)
        triggers.run_list(g, pend["then_triggers"], g.watch)
    bidding.resume(g)


def _dispatch(g: Game, verb: str, args: dict[str, Any], by: str) -> None:
    if verb == "choose":
        _choose(g, args, by)
    elif verb in ACTIONS:
        ACTIONS[verb](g, args, by)
    elif verb in EFFECTS:
        apply_effect(g, verb, args, by)
    else:
        raise InputProblem(f"unknown verb {verb!r}")


def apply(state: State, step: dict[str, Any], rules: Ruleset | str = DEFAULT_RULESET) -> Outcome:
    """Apply one step. The given state is never changed."""
    if isinstance(rules, str):
        rules = load_ruleset(rules)
    if not isinstance(step, dict) or len(step) != 1:
        raise InputProblem(f"a step is a mapping with one verb, got {step!r}")
    (verb, args), = step.items()
    args = dict(args or {})
    by = args.get("by", state.active)
    if by not in PLAYERS:
        raise InputProblem(f"by: unknown player {by!r}")
    st = state.clone()                   # `apply` works on a copy: the game's state is never replaced
    g = Game(st, rules, apply_effect)
    g.by = by
    forgotten = args.pop("forgotten", None)
    if st.version >= 2:
        g.watch = triggers.Watch(g, forgotten)   # automatic abilities (133): hkk-case/2 vocabulary
    elif forgotten is not None or verb in VERSION_2_VERBS:
        raise InputProblem(f"{'forgotten' if forgotten is not None else verb}: hkk-case/2 only "
                           "(docs/spec/hkk-reactions.md)")
    ti = st.turn_info
    try:
        if st.pending and verb != "choose" and "default" in st.pending:
            fall_back(g)                 # an unanswered decision with a default (124.4) takes it
        if st.pending and verb != "choose":
            g.refuse("4.23.5", f"{st.pending['player']} must first answer the pending "
                               f"{st.pending['choice']} decision")
        if st.result is not None and verb not in ("choose",):
            g.refuse("4.19.1", "the game is over")
        dying = ti.dying
        if dying:
            spare = life_saving_targets(st, verb, args) | _until_sub_phase_end(g, verb, args)
            if set(dying) - spare:
                settle(g, spare=spare)   # the window closes for every creature this step does not try to save
        saving = life_saving_step(st, verb, args)
        before = _conflicts(st, rules)
        had_effects = bool(before) or continuous.any_in_force(st)
        if verb not in ("choose", "pass") and (st.queue or ti.on_play):
            bidding.before_step(g, verb, args, by)   # the reaction queue, the on-play window (137)
        _dispatch(g, verb, args, by)
        watch = g.watch
        if watch is not None:
            watch.run_due()              # 133.0: what the step's action set off, when it is done
        settle(g, window=True)
        while watch is not None and watch.due and st.pending is None:
            watch.run_due()              # 133.0: what the state check set off (a death, a destruction)
            settle(g, window=True)
        if had_effects or continuous.any_in_force(st):
            for p in PLAYERS:            # 3.18: a maximum an effect lowered (or that came back down)
                cap_player(g, p)
        _window(g, saving)
        _report_conflicts(g, before)
        open_muscle_decision(g)
    except Refusal as refusal:
        # the outcome keeps the refusal, not the frames it came through: its traceback leads back
        # to the caller's frame, which holds the outcome (a reference cycle, for every refused step)
        refusal.__traceback__ = None
        return Outcome(state=state, events=[], refusal=refusal)
    return Outcome(state=g.state, events=g.events)


def open_muscle_decision(g: Game) -> None:
    """124.4: the next muscle reward waiting becomes the player's pending decision (`choose` with
    `value: {draw, vp}`); `default` is what an unanswered decision falls back to."""
    st = g.state
    queue = st.turn_info.muscle_queue
    if st.pending or not queue:
        return
    item = queue.pop(0)
    if not queue:
        st.turn_info.clear("muscle_queue")
    step = {"card": item["card"], "player": item["player"], "count": item["count"], "cause": item["cause"]}
    st.pending = {"player": item["player"], "choice": "muscle_reward", "count": item["count"],
                  "options": ["draw", "vp"], "step": {"_muscle_reward": step}, "by": item["player"],
                  "default": muscle.muscle_default(g, item["player"], item["count"])}
    g.emit("decision_pending", player=item["player"], choice="muscle_reward", count=item["count"],
           clause="124.4", card=item["card"])


def fall_back(g: Game) -> None:
    """Every unanswered decision with a default takes it (the next step is no answer, or the run ends)."""
    st = g.state
    while st.pending and "default" in st.pending:
        pend = st.pending
        st.pending = None
        (verb, args), = pend["step"].items()
        _dispatch(g, verb, {**args, "value": pend["default"]}, pend.get("by", st.active))
        _carry_on(g, pend)
        open_muscle_decision(g)


def _until_sub_phase_end(g: Game, verb: str, args: dict[str, Any]) -> set[str]:
    """Ruleset reading `combat-deaths: end-of-sub-phase` (rb7:harci-fazis.V, VII; conflicts register
    `combat-deaths`): the creatures brought to 0 Ép in combat stay until the combat leaves V (direct
    damage of IV) or VII (the strike's). An `advance` within the combat (`to: combat`) leaves
    neither by itself: `combat_steps.run_to` lets IV's die at the end of V; an `advance` out of the
    combat ends VII, and they die before it (model/turn.py sends them to the graveyard)."""
    st = g.state
    if g.rules.reading("combat-deaths") != "end-of-sub-phase" or st.phase != "combat" \
            or (verb == "advance" and args.get("to") != "combat"):
        return set()
    return set(st.turn_info.struck_dying or ()) & set(st.turn_info.dying or ())


def _window(g: Game, saving: bool) -> None:
    """136.8: the creatures damaged by this step may be saved right after it; a life-saving step
    keeps the window open for those damaged before it, any other step closes it."""
    st = g.state
    keep = list(st.turn_info.just_damaged or []) if saving else []
    for cid in g.hit:
        if cid not in keep:
            keep.append(cid)
    keep = [c for c in keep if st.on_table(c)]
    st.turn_info.put("just_damaged", keep)
    if not st.turn_info.dying:
        st.turn_info.clear("struck_dying")


def _conflicts(st: State, rules: Ruleset) -> dict[tuple[str, str], tuple]:
    if not continuous.any_in_force(st):
        return {}
    return {(c["target"], c["subject"]): (c["winner"], tuple(c["losers"]), c["clause"])
            for c in numbers.conflicts(st, rules.priority_policy, stats.frozen)}


def _report_conflicts(g: Game, before: dict[tuple[str, str], tuple]) -> None:
    """`conflict_resolved` for each contradiction of effects in force that this step brought
    about or whose outcome it changed (102 / mk:5.10, decided by the engine itself)."""
    after = _conflicts(g.state, g.rules)
    for key, (winner, losers, clause) in sorted(after.items()):
        if before.get(key) == (winner, losers, clause):
            continue
        g.emit("conflict_resolved", winner=winner, clause=clause, policy=g.rules.priority_policy,
               unresolved=True if winner is None else None, target=key[0], subject=key[1],
               losers=list(losers))


class RunResult(_StampedOnRead):
    """What `run_case` returns: the last accepted state as hkk-case/1 shows it, the events of the
    run (stamped with their clauses when first read), the refusal that ended it, the result."""
    __slots__ = ("state", "refused", "result")

    def __init__(self, state: dict, events: list | None = None, refused: dict | None = None,
                 result: Any = "ongoing") -> None:
        self.state = state
        self._events = [] if events is None else events
        self._stamped = False
        self.refused = refused           # {"step": i, "clause": c, "message": m}
        self.result = result             # "ongoing" | {"winner": "A"} | {"draw": True}

    def __eq__(self, other: object) -> bool:
        return other.__class__ is RunResult and (self.state, self.events, self.refused, self.result) \
            == (other.state, other.events, other.refused, other.result)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"RunResult(state={self.state!r}, events={self.events!r}, refused={self.refused!r}, "
                f"result={self.result!r})")


def run_state(given: dict | None, when: list | None, ruleset: str = DEFAULT_RULESET,
              version: int = 1) -> tuple[State, Ruleset, list[dict[str, Any]], dict | None]:
    """(last accepted state, ruleset, events, refusal) of a case's steps; the events are not yet
    stamped with their clauses (`RunResult.events` does that when they are read)."""
    rules = load_ruleset(ruleset)
    state = from_given(given, rules, version)
    events: list[dict[str, Any]] = []
    refused = None
    for i, step in enumerate(when or []):
        out = apply(state, step, rules)
        if out.refusal is not None:
            refused = {"step": i, "clause": out.refusal.clause, "message": out.refusal.message}
            if out.refusal.also:
                refused["clauses"] = out.refusal.clauses
            break
        state = out.state
        events.extend(out._events)       # stamped when read (RunResult.events)
    if state.turn_info.dying or (state.pending and "default" in state.pending):
        # the run ends (a refused step ends it too, leaving the state of the steps before it):
        # no life-saving action came, the dying creatures die; a decision left unanswered that
        # has a default (124.4) takes it
        g = Game(state.clone(), rules, apply_effect)
        if state.version >= 2:
            g.watch = triggers.Watch(g)
        if state.turn_info.dying:
            settle(g)
        open_muscle_decision(g)
        fall_back(g)
        if g.watch is not None:
            g.watch.run_due()
        settle(g)
        state = g.state
        events.extend(g.events)
    return state, rules, events, refused


def run_case(given: dict | None, when: list | None, ruleset: str = DEFAULT_RULESET,
             version: int = 1) -> RunResult:
    """Run a case's `given` and `when` (read as hkk-case/`version`); the state returned is the last
    accepted one."""
    state, rules, events, refused = run_state(given, jcopy(when), ruleset, version)   # from_given copies `given`
    return RunResult(state=to_dict(state, rules), events=events, refused=refused,
                     result=result_of(state))


__all__ = ["apply", "run_case", "run_state", "Outcome", "RunResult", "SUPPORTED_VERBS",
           "available_rulesets", "InputProblem"]
