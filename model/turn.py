"""Turns and phases: the start of the game, `advance`, `pass`, the exchange, the end of a turn.

Clauses: 4.11.6 (the active player acts first; model/play.py keeps the
record), 4.11.7 (a phase ends when both players have declared they do not
wish to act; the active player declares first), 4.11.8 (both passes in a row
end the phase for good), 4.23.4 (waiving the right to act),
rb7:harci-fazis.VI (the strike when the combat phase ends: model/combat.py),
3.6–3.8 (opening hands of five, the starting player, the first turn begins
with a draw), 3.10–3.11 (turns alternate, divided into phases), 3.13 (VP at
the start of every turn), 3.14–3.15 (the end-of-turn result), 4.10.2–4.10.3
(a turn from preparation to end; the active player), 4.11.1–4.11.2 (the
phases in a fixed order, each takes place), 4.12.2 (the opening hand is not a
draw), 5.4.1, 5.4.3–5.4.5 (the exchange: reserve ↔ guard post, at most three,
an overfilled guard post brought back to size, passive creatures stay out),
105.1 (sacrifice for components is unforced), rb7:elokeszito-fazis (VP income
1, 2, 3, 4, 5 + one per two reserve creatures; effects; activation; sacrifice
for components at its end, in the own preparation phase only),
rb7:huzasi-fazis (one card, none from an empty deck), rb7:csere-fazis,
rb7:gyogyulasi-fazis (wounds vanish; vision cards leave), rb7:vizio, 4.10.7 (a phase of a
player's next turn that an effect skips does not take place, nor do the effects timed to it:
`skip_phase`, the player field `skip_phases`).
"""
from __future__ import annotations

from typing import Any

from . import abilities, bidding, combat, combat_steps, continuous, counters, delayed, resources
from .damage import settle
from .effects import draw_cards
from .errors import InputProblem
from .game import Game
from .acting import acting, start_phase_record
from .turn_info import TurnInfo
from .play import begin_action
from .state import PHASES, PLAYERS, other
from .zones import Cause, arrange, move_card

GALETKI = "galetki"
VISION = "vizio"


def _enter(g: Game, phase: str) -> None:
    """Arrive in a phase and carry out its automatic steps."""
    st = g.state
    st.phase = phase
    if phase == "combat":
        st.turn_info.combat_step = "I"                         # rb7:harci-fazis.I
    start_phase_record(st)                # a new phase (in combat: sub-phase I): nobody has acted
    g.emit("phase_started", phase=phase, player=st.active)
    if phase == "preparation":
        _preparation(g)
    elif phase == "draw":
        draw_cards(g, st.active, resources.rule_number(st, st.active, "draw_per_turn", g.rules.draw_per_turn,
                                                       g.rules.priority_policy))
    elif phase == "end" and g.rules.reading("healing-timing") == "on-arrival":
        _end_of_turn(g)
    if phase in ("preparation", "end"):
        settle(g)          # only these phases' automatic steps can bring a permanent to 0 Ép / SP


def _begin_turn(g: Game, player: str) -> None:
    st = g.state
    st.active = player
    pl = st.players[player]
    pl.turn += 1
    st.turn_info = TurnInfo()
    if pl.skip:
        st.turn_info.skipped, pl.skip = list(pl.skip), []     # 4.10.7: this is the "next turn"
    st.missed = []                  # 133.4: what was forgotten may be made up until the end of the turn
    g.emit("turn_started", player=player, turn=pl.turn)
    _arrive(g, "preparation")


def _arrive(g: Game, phase: str) -> None:
    """Enter `phase`, or — 4.10.7 — pass over it and the phases after it that the active player's
    turn skips: a skipped phase does not take place (`phase_skipped`), nor do the effects timed to
    it (a delayed resource due at the player's next preparation phase is lost: `effect_prevented`)."""
    st = g.state
    skipped = st.turn_info.skipped or ()
    while phase in skipped:
        g.emit("phase_skipped", phase=phase, player=st.active)
        if phase == "preparation":
            delayed.drop(g, "preparation", st.active, "4.10.7")
        phase = PHASES[PHASES.index(phase) + 1]
    _enter(g, phase)


def _preparation(g: Game) -> None:
    """rb7:elokeszito-fazis stages 1–3 (stage 4, sacrifice for components, is the player's action)."""
    st = g.state
    p = st.active
    pl = st.players[p]
    reserve_creatures = sum(1 for cid in pl.zones["reserve"] if st.cards.peek(cid).is_creature)
    income = g.rules.vp_income_for(pl.turn) + reserve_creatures // g.rules.reserve_creatures_per_vp
    resources.gain_vp(g, p, income)                               # 3.13, 3.18
    delayed.due(g, "preparation", p)                              # 114: resources delayed to now
    counters.preparation_counters(g, p)                           # 118–127
    for cid in list(st.permanent_ids(p)):                         # stage 3: activation
        seen = st.cards.peek(cid)
        if not seen.active and not seen.counter("sleep"):        # 118.2
            card = st.cards[cid]
            card.active = True
            g.emit("activated", card=card.id)


def _end_of_turn(g: Game) -> None:
    """rb7:gyogyulasi-fazis, rb7:vizio, 3.14–3.15."""
    st = g.state
    for cid in list(st.permanent_ids()):
        if st.cards.peek(cid).has_subtype(VISION) and st.on_table(cid):
            move_card(g, cid, "graveyard", Cause("effect"))
    for cid in list(st.permanent_ids()):
        if st.cards.peek(cid).wounds:
            card = st.cards[cid]
            card.wounds = 0
            g.emit("wounds_healed", card=card.id)
    lost = [p for p in PLAYERS if st.players[p].hp <= 0]
    if len(lost) == 2:
        st.result = {"draw": True}                                # 3.15
        g.emit("game_ended", draw=True)
    elif lost:
        st.result = {"winner": other(lost[0])}                    # 3.14
        g.emit("game_ended", winner=other(lost[0]))


def next_phase(g: Game) -> None:
    """End the current phase and enter the next one (the next turn after `end`)."""
    st = g.state
    if st.phase == "combat":
        if abilities.resolve_declared(g):                         # hkk-case/2: IV ends, its declarations
            settle(g)                                             # take effect; their dead die (end of V)
        combat.strike(g)                                          # rb7:harci-fazis.VI–VII
        settle(g)                                                 # the end of VII: no window left
        st.turn_info.combat_step = None
        if st.result is not None:
            return
    _phase_over(g, turn_end=st.phase == "end")
    if st.phase == "end" and g.rules.reading("healing-timing") == "phase-end":
        _end_of_turn(g)                                           # rb7:gyogyulasi-fazis, 3.14–3.15
        settle(g)
        if st.result is not None:
            return
    i = PHASES.index(st.phase)
    if i + 1 < len(PHASES):
        _arrive(g, PHASES[i + 1])
    else:
        _begin_turn(g, other(st.active))


def _phase_over(g: Game, turn_end: bool) -> None:
    """The end of a phase (and of the turn): timed effects end (99.4), delayed resources come (114)."""
    st = g.state
    if not st.delayed and not st.lasting:
        return
    mark = len(g.events)
    delayed.due(g, "end_of_phase")
    if turn_end:
        delayed.due(g, "end_of_turn")
    ended = continuous.expire(st, "turn_end" if turn_end else "phase_end")
    for ident in ended:
        g.emit("effect_ended", effect=ident)
    if ended:
        for p in PLAYERS:             # 3.18: what is above a maximum that came back down is lost at once
            resources.cap_player(g, p)
    if len(g.events) != mark:
        settle(g)                     # an effect ended or a resource came: Ép may have changed


def advance(g: Game, a: dict[str, Any], by: str) -> None:
    target = a.get("to")
    if target not in PHASES:
        raise InputProblem(f"to: unknown phase {target!r}")
    step = a.get("step")
    if step is not None:
        step = combat_steps.check_step(step, target, "step")
    st = g.state
    if st.result is not None:
        g.refuse("4.19.1", "the game is over")
    if st.pending:
        g.refuse("4.23.5", "a decision is pending")
    cur = combat_steps.current(g)
    if step is not None and cur is not None and combat_steps.index(step) > combat_steps.index(cur):
        abilities.resolve_declared(g)                             # hkk-case/2: leaving IV (rb7:harci-fazis.IV)
        combat_steps.run_to(g, step, combat.strike, settle)      # within this combat (rb7:harci-fazis)
        return
    first = True
    while first or st.phase != target:
        first = False
        next_phase(g)
        if st.result is not None:
            return
    if step is not None and step != "I":
        combat_steps.run_to(g, step, combat.strike, settle)


def pass_phase(g: Game, a: dict[str, Any], by: str) -> None:
    """`pass: {player}` (4.11.7–4.11.8): the player does not wish to act further in this phase.

    The active player declares first: the other player's pass is refused until the active player
    has acted or passed in the phase. When both players have passed with no action in between,
    the phase ends and the next one begins with its automatic steps.
    """
    st = g.state
    player = a.get("player", by)
    if player not in PLAYERS:
        raise InputProblem(f"player: unknown player {player!r}")
    if bidding.pass_step(g, player):                              # a pass on the reaction queue
        return
    rec = acting(st)
    if player != st.active and not rec["active_moved"]:
        g.refuse("4.11.7", f"{st.active}, the active player, must first declare the end of the "
                           f"{st.phase} phase", also=("4.11.6",))
    if player == st.active:
        rec["active_moved"] = True                                # 4.11.6: the right is waived
    if player not in rec["passed"]:
        rec["passed"].append(player)
    g.emit("passed", player=player, phase=st.phase)
    if all(p in rec["passed"] for p in PLAYERS):
        if st.phase == "combat" and st.version >= 2:
            _next_sub_phase(g)                                    # rb7:harci-fazis (hkk-case/2)
            return
        g.emit("phase_ended", phase=st.phase, player=st.active)  # 4.11.8
        next_phase(g)


def _next_sub_phase(g: Game) -> None:
    """hkk-case/2: both players passed in a combat sub-phase: the next one begins (the attacker
    acts first in it, 4.11.6), not the end of the combat. I → II; II → III once the attack is
    declared, else the combat is over (no attack); III → IV; IV → V with every declared combat
    ability taking effect at once; V → VI (the creatures of IV at 0 Ép die first) → VII; VII →
    the combat phase ends (its dead die) and main2 begins."""
    st = g.state
    step = combat_steps.current(g)
    if step == "VII" or (step == "II" and combat.record(st) is None):
        g.emit("phase_ended", phase=st.phase, player=st.active)   # 4.11.8
        next_phase(g)
        return
    if step == "IV":
        abilities.resolve_declared(g)                             # rb7:harci-fazis.IV
    if step == "V":
        combat_steps.run_to(g, "VII", combat.strike, settle)      # V's deaths, VI the strike, VII
    else:
        combat_steps.set_step(g, combat_steps.COMBAT_STEPS[combat_steps.index(step) + 1])
    start_phase_record(st)


def start_game(g: Game, a: dict[str, Any], by: str) -> None:
    """3.6–3.8: both draw their opening hand; the first player's first turn runs to main1."""
    first = a.get("first", "A")
    if first not in PLAYERS:
        raise InputProblem(f"first: unknown player {first!r}")
    st = g.state
    for p in (first, other(first)):
        draw_cards(g, p, g.rules.opening_hand, cause="opening_hand")   # 4.12.2: not a draw
    for p in PLAYERS:
        st.players[p].turn = 0
    st.result = None
    _begin_turn(g, first)
    while PHASES.index(st.phase) < PHASES.index("main1"):    # 3.8: draw, then main1 (4.10.7 skips)
        _arrive(g, PHASES[PHASES.index(st.phase) + 1])


def exchange(g: Game, a: dict[str, Any], by: str) -> None:
    """5.4.1: in the exchange phase the player arranges reserve and guard post."""
    st = g.state
    player = a.get("player", by)
    if player not in PLAYERS:
        raise InputProblem(f"player: unknown player {player!r}")
    if st.phase != "exchange" or st.active != player:
        g.refuse("5.4.1", f"creatures move between reserve and guard post only in {player}'s own exchange phase",
                 also=("rb7:csere-fazis",))
    begin_action(g, player)
    pl = st.players[player]
    mine = pl.zones["reserve"] + pl.zones["guard_post"]
    post = list(a.get("guard_post", pl.zones["guard_post"]))
    reserve = a.get("reserve")
    if reserve is None:
        reserve = [c for c in pl.zones["reserve"] if c not in post] + \
                  [c for c in pl.zones["guard_post"] if c not in post]
    reserve = list(reserve)
    if sorted(post + reserve) != sorted(mine):
        g.refuse("5.4.1", "the exchange arranges exactly the player's own reserve and guard-post creatures")
    size = resources.rule_number(st, player, "guard_post_size", g.rules.guard_post_size,
                                 g.rules.priority_policy)                          # 5.4.3, a card may change it
    if len(post) > size:
        if len(pl.zones["guard_post"]) > size:
            g.refuse("5.4.4", f"the guard post holds {len(pl.zones['guard_post'])} creatures, more than its "
                              f"size {size}: the exchange must bring it back to {size}; {len(post)} named")
        g.refuse("5.4.3", f"at most {size} creatures stand in the guard post; {len(post)} named")
    for cid in reserve:                                          # withdrawals first, then entries
        if cid in pl.zones["guard_post"]:
            move_card(g, cid, "reserve", Cause("exchange"), to_player=player)
    for cid in post:
        if cid in pl.zones["reserve"]:
            move_card(g, cid, "guard_post", Cause("exchange"), to_player=player)
    arrange(g, player, "guard_post", post)                       # rb7:lenyek-helye: left to right
    arrange(g, player, "reserve", reserve)


def sacrifice_for_components(g: Game, a: dict[str, Any], by: str) -> None:
    """rb7:elokeszito-fazis stage 4, 105.1: active monsters in the reserve, for their components."""
    st = g.state
    player = a.get("player", by)
    if player not in PLAYERS:
        raise InputProblem(f"player: unknown player {player!r}")
    if st.phase != "preparation" or st.active != player:
        g.refuse("rb7:elokeszito-fazis", "monsters are sacrificed for components only at the end of their "
                                         "controller's own preparation phase")
    begin_action(g, player)
    cards = a.get("cards") or []
    total = 0
    for cid in cards:
        card = g.card(cid)
        if cid not in st.players[player].zones["reserve"]:
            g.refuse("rb7:elokeszito-fazis", f"{cid} is not in {player}'s reserve")
        if not card.is_creature or not card.active:
            g.refuse("rb7:elokeszito-fazis", f"{cid} is not an active creature")
        if card.components_yield <= 0:
            g.refuse("rb7:elokeszito-fazis", f"{cid} yields no szörnykomponens")
        if card.has_subtype(GALETKI):
            g.refuse("rb7:elokeszito-fazis", f"{cid} is a galetki: galetkik are not sacrificed for components")
        total += card.components_yield
        g.emit("sacrificed", player=player, card=cid, forced=False)
        move_card(g, cid, "graveyard", Cause("sacrifice", forced=False))
    resources.gain_components(g, player, total)


__all__ = ["advance", "start_game", "pass_phase", "exchange", "sacrifice_for_components", "next_phase"]
