"""The sub-phases I–VII of the combat phase, addressable so a case can act between them.

Clauses covered (rb7:harci-fazis, the 7th-edition rulebook's combat in seven sub-phases):
* I: the attacker announces the combat — the last moment for instants that are not for combat.
* II: the attack is declared (model/combat.py `attack`); refused once the combat is past II.
* III: instants; IV: combat special abilities (direct damage, breath): used from II to IV —
  using one moves the combat to IV; refused from V on.
* V: instants and abilities usable at any time; the creatures brought to 0 Ép or less in IV go
  to the graveyard at its end — until then a life-saving action (regeneration 136.8) may save them.
* VI: the strike (model/combat.py `strike`).
* VII: as V for the creatures the strike brought to 0 Ép or less: a case stopping here
  (`advance: {to: combat, step: VII}`) sees them `dying`, and a regeneration right after the
  strike saves them; the next other step, or leaving the combat, sends them to the graveyard.

In a case read as hkk-case/2 every sub-phase is a round of its own: the attacker acts first
(4.11.6), both passing ends it and the next one begins (model/turn.py); the combat abilities of IV
are declared alternately and take effect together when IV ends (model/abilities.py).

The current sub-phase is `turn.combat_step` (given and returned, combat phase only). `advance:
{to: combat, step: S}` runs forward to sub-phase S — within the present combat when S is later
than the current sub-phase, else to the next combat phase. Leaving the combat phase without
stopping runs every sub-phase: the strike, then VII's deaths at once (nobody acted).
"""
from __future__ import annotations

from .acting import start_phase_record
from .game import Game
from .shapes import COMBAT_STEPS, check_step

STRIKE = "VI"


def current(g: Game) -> str | None:
    """The sub-phase now; a combat phase given without one is in I, or III once the attack is
    declared, or VII once struck."""
    st = g.state
    if st.phase != "combat":
        return None
    step = st.turn_info.combat_step
    if step is None:
        rec = st.turn_info.combat
        step = "I" if rec is None else ("VII" if rec.get("struck") else "III")
    return step


def index(step: str) -> int:
    return COMBAT_STEPS.index(step)


def set_step(g: Game, step: str) -> None:
    """Enter sub-phase `step` (every caller passes a later one than the current)."""
    g.state.turn_info.combat_step = step
    g.emit("combat_step", step=step)
    if g.state.version >= 2:
        start_phase_record(g.state)            # hkk-case/2: a round of its own, the attacker first


def at_least(g: Game, step: str) -> None:
    """Move the combat forward to `step` if it is earlier (an act that belongs to that sub-phase)."""
    cur = current(g)
    if cur is not None and index(cur) < index(step):
        set_step(g, step)


def past(g: Game, step: str) -> bool:
    cur = current(g)
    return cur is not None and index(cur) > index(step)


def run_to(g: Game, target: str, strike, settle) -> None:
    """Run the present combat forward to sub-phase `target` (later than the current one)."""
    cur = current(g) or "I"
    for step in COMBAT_STEPS[index(cur) + 1: index(target) + 1]:
        if step == STRIKE:
            settle(g)                          # end of V: the creatures of IV at 0 Ép die
            set_step(g, step)
            strike(g, window=True)             # VI; their deaths wait for the end of VII
        else:
            set_step(g, step)


__all__ = ["COMBAT_STEPS", "STRIKE", "at_least", "check_step", "current", "index", "past", "run_to",
           "set_step"]
