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


def acting(st: State) -> dict[str, Any]:
    """This phase's record: has the active player acted or passed, who has passed since the last action,
    who acted last.

    Every phase the engine enters starts a fresh record (model/turn.py `_enter`), and in a combat
    read as hkk-case/2 so does every sub-phase (model/combat_steps.py `set_step`): those are the
    only places the phase and the sub-phase change. A case's `given` describes some moment inside
    a phase, not its start, so there is no record yet: the first right to act (4.11.6) is taken as
    used, and either player may act.
    """
    rec = st.turn_info.acting
    if not rec:
        rec = {"active_moved": True, "passed": []}
        st.turn_info.acting = rec
    return rec


def start_phase_record(st: State) -> None:
    """A phase (in hkk-case/2, a combat sub-phase) begins: the active player has the first right to
    act (4.11.6)."""
    st.turn_info.acting = {"active_moved": False, "passed": []}


__all__ = ["acting", "start_phase_record"]
