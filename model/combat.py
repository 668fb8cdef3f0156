"""Combat: the attack declaration, the defender's choice, the strike.

Clauses:
- rb7:harci-fazis.I–VII (the sub-phases: declaration II, strike VI, deaths
  V/VII), rb7:harci-fazis.II (only guard-post creatures attack; targets: any
  guard-post creature or building of the opponent, the opponent only when every
  guard-post creature of the opponent is attacked; at most two attackers per
  defending creature — ruleset `max_attackers_per_defender`; the defender
  attacked by two strikes back at one of them, chosen by its controller),
  5.4.2 (guards attack the opponent's guard-post creatures, active buildings,
  the opponent), 110.0 (an attacking creature, from the declaration to the end
  of the turn: `card_flags`), rb7:tamado-lenyek, rb7:atut-az-orposzton.
- rb7:harci-fazis.VI (simultaneous strike at the declared target, if still
  there; no new target), rb7:vedekezes-bonusz (via model/stats.py),
  131.1 / rb7:magikus-vedekezes-tamadas (magic defence: 0 damage in the strike
  from a creature without magic attack, the blow still lands),
  131.3–131.4 / rb7:lathatatlansag-lathatatlansag-latasa (an invisible
  attacker breaks through unless a see-invisible creature stands in the
  opponent's guard post), 135.1 / rb7:mergezes (poison counters on a creature
  struck), rb7:epitmenyek (a building attacked takes all its attackers' damage;
  destroyed when the damage of this turn reaches its SP; only active buildings
  are attacked), rb7:direkt-sebzo-kepesseg (a creature that used direct
  damage strikes only where it used it: model/abilities.py records it),
  134.4.7 (life counters do not save from the strike: deaths in the strike
  carry Cause(combat=True) through turn_info.in_strike), rb7:lenyek
  (components of the dead to the opponent: the zone mover).

The combat record is turn_info.combat (JSON-like):
{"player", "attacks": [{"attacker", "target"}], "strike_back": {defender: attacker},
 "direct_damage": {card: target}, "struck": bool}.
"""
from __future__ import annotations

from typing import Any

from . import combat_steps, counters, keywords, stats
from .damage import deal_damage, settle
from .prohibitions import prohibited, required
from .errors import InputProblem
from .game import Game
from .play import begin_action
from .state import PLAYERS, Card, State, other

C_DECLARE = "rb7:harci-fazis.II"


def record(st: State) -> dict[str, Any] | None:
    """This turn's combat record, or None before the attack is declared."""
    return st.turn_info.combat


def attackers_of(st: State, defender: str) -> list[str]:
    """The attackers declared against a creature, in the order declared."""
    rec = record(st)
    return [x["attacker"] for x in rec["attacks"] if x["target"] == defender] if rec else []


def target_of(st: State, attacker: str) -> str | None:
    rec = record(st)
    for x in (rec["attacks"] if rec else []):
        if x["attacker"] == attacker:
            return x["target"]
    return None


def fights(st: State, card_id: str) -> list[str]:
    """What the card fights this combat: its attack target, or the creatures attacking it."""
    t = target_of(st, card_id)
    return [t] if t is not None else attackers_of(st, card_id)


def card_flags(state: State, card: Card) -> dict[str, Any]:
    """Extra fields of a card in the returned state: `attacking: true` (110.0)."""
    if target_of(state, card.id) is not None and state.on_table(card.id):
        return {"attacking": True}
    return {}


# ---------------------------------------------------------------------------
# II. the attack declaration
# ---------------------------------------------------------------------------

def _see_invisible(g: Game, defender_side: str) -> bool:
    st = g.state
    return any(keywords.has(g, st.cards.peek(c), "see_invisible")
               for c in st.players[defender_side].zones["guard_post"])


def attack(g: Game, a: dict[str, Any], by: str) -> None:
    st = g.state
    player = a.get("player", by)
    if player not in PLAYERS:
        raise InputProblem(f"player: unknown player {player!r}")
    attacks = a.get("attacks")
    if not isinstance(attacks, list) or not all(isinstance(x, dict) for x in attacks):
        raise InputProblem("attacks: a list of {attacker, target}")
    if st.phase != "combat" or st.active != player:
        g.refuse(C_DECLARE, f"{player} declares attacks only in {player}'s own combat phase")
    if record(st) is not None:
        g.refuse(C_DECLARE, "the attack is declared once per turn")
    if combat_steps.past(g, "II"):
        g.refuse(C_DECLARE, f"the combat is in sub-phase {combat_steps.current(g)}: attacks are declared in II")
    begin_action(g, player)
    opp = other(player)
    opp_guards = list(st.players[opp].zones["guard_post"])
    seen_attackers: list[str] = []
    per_defender: dict[str, int] = {}
    for x in attacks:
        att, tgt = x.get("attacker"), x.get("target")
        g.peek(att)
        if tgt not in PLAYERS:
            g.peek(tgt)
        if att in seen_attackers:
            g.refuse(C_DECLARE, f"{att} is named twice: a creature attacks one target")
        seen_attackers.append(att)
        if att not in st.players[player].zones["guard_post"]:
            g.refuse("5.4.2", f"{att} is not in {player}'s guard post: only guard-post creatures attack",
                     also=(C_DECLARE,))
        if tgt in PLAYERS:
            if tgt != opp:
                g.refuse(C_DECLARE, f"{att} may attack {opp}, not {tgt}", also=("5.4.2",))
        else:
            tc = st.cards.peek(tgt)
            if tc.is_creature:
                if tgt not in opp_guards:
                    g.refuse("5.4.2", f"{tgt} is not in {opp}'s guard post: only guard-post creatures "
                                      "are attacked", also=(C_DECLARE,))
                per_defender[tgt] = per_defender.get(tgt, 0) + 1
                if per_defender[tgt] > g.rules.max_attackers_per_defender:
                    g.refuse(C_DECLARE, f"at most {g.rules.max_attackers_per_defender} creatures attack "
                                        f"one defending creature; {tgt} is attacked by more")
            elif tc.kind == "building":
                if tgt not in st.players[opp].zones["table"]:
                    g.refuse("5.4.2", f"{tgt} is not {opp}'s building in play", also=(C_DECLARE,))
                if not tc.active:
                    g.refuse("5.4.2", f"{tgt} is passive: only active buildings are attacked",
                             also=("rb7:epitmenyek",))
            else:
                g.refuse("5.4.2", f"{tgt} is a {tc.kind}: creatures, buildings and the opponent are attacked", also=(C_DECLARE,))
    attacked = set(per_defender)
    unattacked = [c for c in opp_guards if c not in attacked]
    if unattacked:
        seen = _see_invisible(g, opp)
        for x in attacks:
            att, tgt = x["attacker"], x["target"]
            if tgt in PLAYERS or st.cards[tgt].kind == "building":
                invisible = keywords.has(g, st.cards.peek(att), "invisibility")   # own or granted, 128.1
                if invisible and seen:
                    g.refuse("131.3", f"{att} is invisible, but a creature in {opp}'s guard post sees the "
                                      f"invisible (131.4): it cannot break through while {unattacked} "
                                      "are not attacked",
                             also=("131.4", "rb7:lathatatlansag-lathatatlansag-latasa", C_DECLARE))
                if not invisible:
                    g.refuse(C_DECLARE, f"{att} can break through only when every creature in {opp}'s guard "
                                        f"post is attacked; {', '.join(unattacked)} not attacked",
                             also=("rb7:atut-az-orposzton",))
    _check_required(g, player, [x["attacker"] for x in attacks])
    for x in attacks:
        prohibited(g, x["attacker"], "attack")                         # 99.1: "cannot attack"
    st.turn_info.combat = {
        "player": player,
        "attacks": [{"attacker": x["attacker"], "target": x["target"]} for x in attacks],
        "strike_back": {},
        "direct_damage": {},
        "struck": False,
    }
    for x in attacks:
        g.emit("attack_declared", attacker=x["attacker"], target=x["target"])
    combat_steps.at_least(g, "III")                                    # II done: instants (III)


def _check_required(g: Game, player: str, named: list[str]) -> None:
    """A creature that must attack (a requirement in force that no prohibition overrides) and can
    — in the guard post — is in the declaration."""
    for c in g.state.creatures_on_table(player):
        if c.id in g.state.players[player].zones["guard_post"] and c.id not in named \
                and required(g, c.id, "attack"):
            g.refuse(C_DECLARE, f"{c.id} must attack (an effect in force requires it): the declaration "
                                "leaves it out")


def strike_back(g: Game, a: dict[str, Any], by: str) -> None:
    """rb7:harci-fazis.II: the controller of a creature attacked by two chooses which it strikes back."""
    st = g.state
    player = a.get("player", by)
    if player not in PLAYERS:
        raise InputProblem(f"player: unknown player {player!r}")
    defender, attacker = a.get("defender"), a.get("attacker")
    g.card(defender)
    g.card(attacker)
    rec = record(st)
    if st.phase != "combat" or rec is None or rec["struck"]:
        g.refuse(C_DECLARE, "the defender chooses whom to strike back after the attack is declared, "
                            "in the combat phase, before the strike")
    if st.controller(defender) != player or defender not in st.players[player].zones["guard_post"]:
        g.refuse(C_DECLARE, f"{defender} is not a defending creature of {player}")
    if attacker not in attackers_of(st, defender):
        g.refuse(C_DECLARE, f"{attacker} does not attack {defender}: the defender strikes back only at "
                            "its attackers")
    used = rec["direct_damage"].get(defender)
    if used is not None and used != attacker:
        g.refuse("rb7:direkt-sebzo-kepesseg", f"{defender} used direct damage on {used}: it strikes only "
                                              f"{used}")
    chosen = rec["strike_back"].get(defender)
    if chosen is not None and chosen != attacker:
        g.refuse(C_DECLARE, f"{player} has already chosen that {defender} strikes back at {chosen}")
    rec["strike_back"][defender] = attacker
    g.emit("strike_back_chosen", defender=defender, attacker=attacker, player=player)


# ---------------------------------------------------------------------------
# VI–VII. the strike
# ---------------------------------------------------------------------------

def _amount(g: Game, striker: Card, target: str) -> int:
    st = g.state
    dmg = stats.damage(st, striker, g.rules) or 0
    if target not in PLAYERS:
        tc = st.cards.peek(target)
        if keywords.has(g, tc, "magic_defense") and not keywords.has(g, striker, "magic_attack"):
            return 0                                           # 131.1
    return dmg


def _target_still_there(st: State, target: str, side: str) -> bool:
    if target in PLAYERS:
        return True
    tc = st.cards.peek(target)
    if tc.is_creature:
        return target in st.players[side].zones["guard_post"]
    return target in st.players[side].zones["table"] and tc.active


def strike(g: Game, window: bool = False) -> None:
    """rb7:harci-fazis.VI: every blow at once, then poison (135.1), then deaths (VII) — at once, or
    with `window` (a case stopping in VI/VII, model/combat_steps.py) after a life-saving chance."""
    st = g.state
    rec = record(st)
    if rec is None or rec["struck"]:
        return
    rec["struck"] = True
    side = rec["player"]
    opp = other(side)
    guards = st.players[side].zones["guard_post"]
    hits: list[tuple[str, str, int, bool]] = []
    for x in rec["attacks"]:
        att, tgt = x["attacker"], x["target"]
        if att not in guards or not _target_still_there(st, tgt, opp):
            continue
        dd = rec["direct_damage"].get(att)
        if dd is not None and dd != tgt:
            continue
        hits.append((att, tgt, _amount(g, st.cards.peek(att), tgt), False))
    defenders: list[str] = []
    for x in rec["attacks"]:
        t = x["target"]
        if t not in PLAYERS and st.cards.peek(t).is_creature and t not in defenders:
            defenders.append(t)
    for d in defenders:
        if d not in st.players[opp].zones["guard_post"]:
            continue
        at = rec["strike_back"].get(d) or rec["direct_damage"].get(d) or attackers_of(st, d)[0]
        if at not in guards:
            continue
        hits.append((d, at, _amount(g, st.cards.peek(d), at), True))
    st.turn_info.in_strike = True
    try:
        for striker, target, amount, back in hits:
            g.emit("strike", attacker=striker, target=target, amount=amount, back=True if back else None)
            deal_damage(g, target, amount, None, source=striker)
        for striker, target, _amount_, _back in hits:                  # 135.1
            if target in PLAYERS or not st.cards.peek(target).is_creature or not st.on_table(target):
                continue
            sc = st.cards.peek(striker)
            n = sum(int(ab.get("x", 1)) for ab in keywords.entries(g, sc, "poison"))   # 128.1
            if n:
                counters.put_counter(g, target, "poison", n)
        if window:
            st.turn_info.put("struck_dying", g.hit)                # they die as struck (134.4.7)
        settle(g, window=window)                                       # VII
    finally:
        st.turn_info.in_strike = False


ACTIONS: dict = {
    "attack": attack,
    "strike_back": strike_back,
}

__all__ = ["ACTIONS", "attack", "strike_back", "strike", "card_flags", "fights", "record",
           "attackers_of", "target_of"]
