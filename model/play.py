"""Playing cards and paying their costs.

Clauses: 4.20.0–4.20.3 (the cost, from the player's own means, never in part),
4.21.0 (playing: bringing a card into play), 4.22.1 (vision cards from the
graveyard count as played from the hand), 4.8.1 and 4.18.2 (nekron: 4 cards
per point from the deck top into the Void, not a mill), 4.9.1 (instants and
sorceries never lie on the table), 4.7.1 (they go to the graveyard after
they resolve), 4.13.3 (playing from the deck is a search), 5.3.1 (creatures
to the reserve), 131.5–131.6 (flying creatures enter active), 131.8
(feltámadás: from the graveyard in the own main phase), rb7:lapok-kijatszasa,
rb7:idezesi-koltseg, rb7:epitmenyek (builders: active reserve creatures
become passive), rb7:targyak (items cost szörnykomponens), rb7:varazslatok
(instants any time; sorceries, enchantments only in the own main phase),
rb7:celpont (a card needing a target cannot be played without one),
rb7:idezesi-kihozasi-koltseg (a cost is never below 0), rb7:lapaldozas.
"""
from __future__ import annotations

import copy
from typing import Any

from . import resources, stats
from .effects import apply_effect, sacrifice_permanent
from .errors import InputProblem
from .game import Game
from .state import PERMANENT_KINDS, PLAYERS
from .zones import Cause, move_card

MAIN_PHASES = ("main1", "main2")
INSTANT_PHASES = ("main1", "exchange", "combat", "main2", "end")
COST_KEYS = ("vp", "components", "builders", "sacrifice", "nekron")


def check_timing(g: Game, player: str, kind: str) -> None:
    """4.11.6, rb7:varazslatok, rb7:fo-fazis: who may play what when."""
    st = g.state
    if kind == "instant":
        if st.phase not in INSTANT_PHASES:
            g.refuse("rb7:elokeszito-fazis" if st.phase == "preparation" else "rb7:kijatszasi-sorrend",
                     f"no card may be played in the {st.phase} phase")
        return
    if st.active != player:
        g.refuse("rb7:varazslatok", f"a {kind} is played only in its player's own turn")
    if st.phase not in MAIN_PHASES:
        g.refuse("rb7:fo-fazis", f"a {kind} is played only in a main phase, not in {st.phase}")


def pay_cost(g: Game, player: str, cost: dict[str, int], pay: dict[str, Any]) -> None:
    """4.20.3: check the whole cost first, then pay all of it; never in part."""
    st = g.state
    pl = st.players[player]
    for key, n in cost.items():
        if key not in COST_KEYS:
            raise InputProblem(f"cost: unknown cost {key!r}")
        if n < 0:
            raise InputProblem(f"cost.{key}: a cost is never below 0")
    if cost.get("vp", 0) > pl.vp:
        g.refuse("4.20.3", f"{player} has {pl.vp} VP, the card costs {cost['vp']}")
    if cost.get("components", 0) > pl.components:
        g.refuse("4.20.3", f"{player} has {pl.components} szörnykomponens, the card costs {cost['components']}")
    builders = list(pay.get("builders") or [])
    if len(builders) != cost.get("builders", 0):
        g.refuse("4.20.3", f"the cost needs {cost.get('builders', 0)} builder(s), {len(builders)} named")
    for cid in builders:
        card = g.card(cid)
        if cid not in pl.zones["reserve"] or not card.is_creature or not card.active:
            g.refuse("rb7:epitmenyek", f"{cid} is not an active creature in {player}'s reserve")
    sacrifices = list(pay.get("sacrifice") or [])
    if len(sacrifices) != cost.get("sacrifice", 0):
        g.refuse("4.20.3", f"the cost sacrifices {cost.get('sacrifice', 0)} permanent(s), {len(sacrifices)} named")
    for cid in sacrifices:
        g.card(cid)
        if st.controller(cid) != player:
            g.refuse("rb7:lapaldozas", f"{cid} is not a permanent of {player}")
    nekron = cost.get("nekron", 0) * g.rules.nekron_cards_per_point
    if nekron > len(pl.zones["deck"]):
        g.refuse("4.20.3", f"nekron {cost['nekron']} needs {nekron} cards in the deck, {player} has "
                           f"{len(pl.zones['deck'])}")
    # everything is payable: pay it all
    if cost.get("vp"):
        resources.spend(g, player, "vp", cost["vp"])
    if cost.get("components"):
        resources.spend(g, player, "components", cost["components"])
    for cid in builders:
        st.cards[cid].active = False
        g.emit("passivated", card=cid)
    for cid in sacrifices:
        sacrifice_permanent(g, player, cid, forced=False, as_cost=True)
    for cid in list(pl.zones["deck"][:nekron]):
        move_card(g, cid, "void", Cause("nekron", as_cost=True))          # 4.8.1, 4.18.2


def play(g: Game, a: dict[str, Any], by: str) -> None:
    st = g.state
    player = a.get("player", by)
    if player not in PLAYERS:
        raise InputProblem(f"player: unknown player {player!r}")
    cid = a.get("card")
    card = g.card(cid)
    frm = a.get("from", "hand")
    loc = st.locate(cid)
    if frm == "void" or (loc and loc[1] == "void"):
        g.refuse("4.8.4", f"{cid} is in the Void: nothing ever leaves it")
    if frm not in ("hand", "graveyard", "deck"):
        raise InputProblem(f"from: a card is played from hand, graveyard or deck, not {frm!r}")
    if not loc or loc != (player, frm):
        g.refuse("4.21.0", f"{cid} is not in {player}'s {frm}")
    if frm == "graveyard" and not (card.kind in ("instant", "sorcery") or card.has_subtype("vizio")
                                   or stats.has_ability(card, "resurrection")):
        g.refuse("4.7.6", f"{cid} cannot be played from the graveyard")
    if frm == "graveyard" and stats.has_ability(card, "resurrection") and card.kind == "creature" \
            and (st.active != player or st.phase not in MAIN_PHASES):
        g.refuse("131.8", "a resurrecting creature is played from the graveyard only in its player's main phase")
    check_timing(g, player, card.kind)
    targets = list(a.get("targets") or [])
    for t in targets:
        if t not in PLAYERS:
            g.card(t)
    if card.needs_target and not targets:
        g.refuse("rb7:celpont", f"{cid} needs a target and none is given")
    pay_cost(g, player, dict(card.cost), dict(a.get("pay") or {}))
    g.emit("played", player=player, card=cid, **{"from": frm})
    if card.kind in PERMANENT_KINDS:
        dest = "reserve" if card.is_creature else "table"
        move_card(g, cid, dest, Cause("play"), to_player=player)
        if card.kind in ("enchantment", "body_part") and targets and targets[0] not in PLAYERS:
            card.attached_to = targets[0]
            card.active = True                                             # 5.5.4
        _resolve_effects(g, card, player, targets)
    else:
        _resolve_effects(g, card, player, targets)
        if st.zone_of(cid) == frm and st.locate(cid) == (player, frm):
            move_card(g, cid, "graveyard", Cause("resolve"))               # 4.7.1


def _resolve_effects(g: Game, card, player: str, targets: list[str]) -> None:
    """The card's `effects` (project field): steps carried out with the card as source."""
    for step in card.effects:
        step = copy.deepcopy(step)
        (verb, args), = step.items()
        args = {k: (targets[0] if v == "$target" and targets else v) for k, v in (args or {}).items()}
        args.setdefault("source", card.id)
        apply_effect(g, verb, args, player)
