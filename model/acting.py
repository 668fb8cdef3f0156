"""Who has acted in a phase: the record the order of play is checked against.

Clauses covered: 4.11.6 (the active player has the first right to act in every phase), 4.11.7–4.11.8
(the passes that end a phase come in a row), 4.23.3 (hkk-case/2: the players act alternately; the
record keeps who acted last). In a combat read as hkk-case/2 every sub-phase (rb7:harci-fazis I–VII)
is a round of its own with its own record. model/play.py `begin_action` and model/turn.py `pass`
read and write it.
"""
from __future__ import annotations

from typing import Any

from .state import State


def _period(st: State) -> str:
    """What a record of acting covers: the phase; in a combat read as hkk-case/2, the sub-phase
    (rb7:harci-fazis: each is a round of its own, both passing ends it)."""
    step = st.turn_info.combat_step if st.phase == "combat" and st.version >= 2 else None
    return f"{st.phase}.{step}" if step else st.phase


def acting(st: State) -> dict[str, Any]:
    """This phase's record: has the active player acted or passed, who has passed since the last action,
    who acted last.

    The engine knows a phase's start only when it entered the phase itself (`advance`, passes,
    `start_game`: model/turn.py starts a fresh record there). A case's `given` describes some
    moment inside a phase, not its start, so there the first right to act (4.11.6) is taken as
    used: either player may act.
    """
    rec = st.turn_info.acting
    if not rec or rec.get("phase") != _period(st):
        rec = {"phase": _period(st), "active_moved": True, "passed": []}
        st.turn_info.acting = rec
    return rec


def start_phase_record(st: State) -> None:
    """A phase (in hkk-case/2, a combat sub-phase) begins: the active player has the first right to
    act (4.11.6)."""
    st.turn_info.acting = {"phase": _period(st), "active_moved": False, "passed": []}


__all__ = ["acting", "start_phase_record"]
