"""Using abilities: `activate` — combat abilities, regeneration, other activated abilities.

Clauses:
- combat abilities: 129.0–129.7 (direct damage: up to X VP spent, that much
  damage, 129.5; paid in VP unless `cost_kinds` names other kinds, 129.3; with several
  kinds `activate.pay: {vp: n, components: m}` mixes them, 129.4; its element, 129.6; not an effect, 129.7), 136.2 (not an
  activated ability), rb7:harci-kepessegek (in the combat phase, from the
  guard post only, only when there is combat), rb7:harci-fazis.IV (after the
  attack is declared; the attacker first: 4.11.6), rb7:direkt-sebzo-kepesseg
  (at a creature attacking it or what it attacks, a building or the player
  included; once per turn; the amount fixed when declared; the creature then
  strikes only there), rb7:harci-fazis.V (those brought to 0 Ép die at once,
  components to the opponent), 134.4.7 (life counters do not save from a
  combat ability), 119.1 / rb7:dermesztesjelzo (a frozen creature has no
  abilities).
- regeneration: 136.6 (1 or 2 VP per Ép healed on the creature), 136.7 (at
  most 4 Ép per creature per turn: ruleset `regeneration_per_turn`), 136.8
  (by the creature's controller, right after it is damaged, as a life-saving
  action: only a wounded creature; not bound by 4.11.6, 4.23.3),
  rb7:regeneralodas (the whole damage or part of it; never above the maximum;
  usable from the guard post and while passive),
  rb7:leny-gyogyulasa-regeneralodasa.
- other activated abilities `{keyword, cost, effects, timing, needs_target}`:
  136.0–136.5 (the player's decision; the cost is paid in full, 4.20.3;
  using one is an action, 136.1, 4.23.0), 136.3 (timing of an instant unless
  the ability says otherwise: `timing: main` own main phase, `timing:
  preparation` also in the preparation phase, 137.1), rb7:aktivalast-kivano-kepessegek
  (the controller activates; abilities paid with VP work while passive and
  from the guard post; those that passivate only from an active card, never
  in the guard post, 5.4.5), rb7:passzivizalas (a passive item, enchantment,
  skill or building has no effect), rb7:celpont.
- abilities with delay / temporary counters: 127.0.3 (activated ones too), 127.1.3 (a delayed
  activated ability only once no delay counter is left), 127.2.2 (a temporary one only while a
  temporary counter is left).
- 136.9 shadow `{keyword: shadow, cost}`: back to the owner's hand, no muscle / penalty /
  compensation, a life counter stops it; an anchor too (4.14.4, model/zones.py).
- 4.16.4 Semmizés `{keyword: exiling, x: X, cost}`: an activated ability; on use its controller
  chooses (`activate.cards`) at most X cards of one graveyard, exiled into that graveyard's Void.
- 128.1 (an ability granted by a card sitting on this one is used like its own), 132.10
  (immunity to combat abilities: direct damage at it has no effect; 132.2 it may be targeted),
  132.11 (an untargetable card is refused as a target), 137.4 / rb7:kozos-kepesseg (a common
  ability, `common: true`: any player may use it, paying its cost).
- the answer to an anti-magic / anti-neutralization decision (134.10–134.11, 134.15) is the
  internal verb `_anti_discard` of model/keywords.py, dispatched by `choose`.
"""
from __future__ import annotations

from typing import Any

from . import activation_costs, combat, combat_steps, keywords, queue, stats
from .damage import deal_damage, heal
from .zones import Cause, move_card
from .errors import InputProblem
from .game import Game
from .play import begin_action, check_timing, pay_cost, resolve_effects
from .shapes import repeats
from .state import PLAYERS, TABLE_ZONES, Card, jcopy

COMBAT_KEYWORDS = ("direct_damage",)
COMBAT_COST_KINDS = ("vp", "components")          # the kinds a combat ability's cost may mix (129.4)
TIMINGS = ("instant", "main", "preparation")
_MISSING_CLAUSE = {"direct_damage": "129.2", "regeneration": "136.6"}


def _int(a: dict[str, Any], key: str, default: int | None = None) -> int:
    v = a.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputProblem(f"{key}: expected an integer, got {v!r}")
    return v


def _find(g: Game, card: Card, which: Any) -> tuple[int, dict[str, Any]]:
    """The ability named by index or keyword; refused when the card lacks it or has lost it (119.1)."""
    abilities = card.abilities
    if which is None:
        if len(abilities) != 1:
            raise InputProblem("ability: name the ability (index or keyword)")
        which = 0
    if isinstance(which, bool):
        raise InputProblem(f"ability: expected an index or a keyword, got {which!r}")
    if isinstance(which, int):
        if not 0 <= which < len(abilities):
            raise InputProblem(f"ability: {card.id} has no ability #{which}")
        idx = which
    elif isinstance(which, str):
        idx = next((i for i, ab in enumerate(abilities) if ab.get("keyword") == which), -1)
        if idx < 0:
            gifts = [{k: v for k, v in ab.items() if k != "_continuous"} for ab, _ in keywords.granted(g.state, card)]
            got = keywords.entries(g, card, which)                   # 128.1: a granted ability
            if got and got[0] in gifts:
                return 1000 + gifts.index(got[0]), got[0]
            if any(ab.get("keyword") == which for ab in gifts) and stats.frozen(card):
                g.refuse("119.2", f"{card.id} was frozen after it got its {which}: the ability does not work")
            g.refuse(_MISSING_CLAUSE.get(which, "136.0"), f"{card.id} has no {which} ability")
    else:
        raise InputProblem(f"ability: expected an index or a keyword, got {which!r}")
    ab = abilities[idx]
    if stats.frozen(card):
        g.refuse("119.1", f"{card.id} is frozen: its abilities do not work")
    if ab.get("delay") and (card.counter("delay") > 0 or stats.marks(card).get("bare")):
        g.refuse("127.1.3", f"{card.id}'s {ab.get('keyword')} is delayed: usable once no delay counter "
                            "is left on it", also=("127.0.4",) if stats.marks(card).get("bare") else ())
    if ab.get("temporary") and card.counter("temporary") <= 0:
        g.refuse("127.2.2", f"{card.id}'s {ab.get('keyword')} is temporary: no temporary counter is left")
    return idx, ab


def activate(g: Game, a: dict[str, Any], by: str) -> None:
    st = g.state
    player = a.get("player", by)
    if player not in PLAYERS:
        raise InputProblem(f"player: unknown player {player!r}")
    card = g.card(a.get("card"))
    idx, ab = _find(g, card, a.get("ability"))
    kw = ab.get("keyword")
    targets = list(a.get("targets") or [])
    for t in targets:
        if t not in PLAYERS:
            g.card(t)
    keywords.check_targets(g, targets)                                   # 132.11
    _dying_in_combat(g, card, kw)                                        # rb7:harci-fazis.V, VII
    if kw in COMBAT_KEYWORDS:
        _direct_damage(g, player, card, idx, ab, a, targets)
    elif kw == "regeneration":
        _regenerate(g, player, card, idx, ab, a)
    elif kw == "shadow":
        _shadow(g, player, card, ab, a)
    elif kw == "exiling":
        _exiling(g, player, card, ab, a)
    else:
        _generic(g, player, card, idx, ab, a, targets)
    st.turn_info.own("abilities_used").setdefault(card.id, []).append(idx)


def _dying_in_combat(g: Game, card: Card, kw: Any) -> None:
    """rb7:harci-fazis.V, VII: a creature at 0 Ép or less uses no ability but regeneration (its
    shadow too under the reading `dying-abilities: kodex` — 136.9: usable "akkor is, ha a lény
    bármilyen módon kikerülne a játékból"; conflicts register `dying-abilities`)."""
    st = g.state
    step = combat_steps.current(g)
    if step not in ("V", "VII") or card.id not in (st.turn_info.dying or ()):
        return
    if kw == "regeneration" or (kw == "shadow" and g.rules.reading("dying-abilities") == "kodex"):
        return
    g.refuse("rb7:harci-fazis.V" if step == "V" else "rb7:harci-fazis.VII",
             f"{card.id} is at 0 Ép or less in sub-phase {step}: it may use no ability except regeneration")


def _used(g: Game, card: Card, idx: int) -> int:
    return g.state.turn_info.abilities_used.get(card.id, []).count(idx)


# ---------------------------------------------------------------------------
# combat abilities (129, rb7:direkt-sebzo-kepesseg)
# ---------------------------------------------------------------------------

def _direct_damage(g: Game, player: str, card: Card, idx: int, ab: dict[str, Any],
                   a: dict[str, Any], targets: list[str]) -> None:
    st = g.state
    cid = card.id
    rec = combat.record(st)
    if st.controller(cid) != player:
        g.refuse("rb7:harci-kepessegek", f"{cid} is not {player}'s creature in play")
    if st.phase != "combat" or rec is None or rec["struck"] or not rec["attacks"]:
        g.refuse("rb7:harci-kepessegek", "combat abilities are used in the combat phase, after at least one "
                                         "attack is declared and before the strike",
                 also=("rb7:harci-fazis.IV",))
    if cid not in st.players[player].zones["guard_post"]:
        g.refuse("rb7:harci-kepessegek", f"{cid} is not in the guard post: combat abilities are used from "
                                         "the guard post only")
    if combat_steps.past(g, "IV") or (st.version >= 2 and combat_steps.current(g) != "IV"):
        g.refuse("rb7:harci-fazis.IV", f"the combat is in sub-phase {combat_steps.current(g)}: combat "
                                       "abilities are used in IV", also=("rb7:harci-kepessegek",))
    begin_action(g, player)                                              # IV: the attacker first
    combat_steps.at_least(g, "IV")
    top = _int(ab, "x", 0)
    kinds, pay = _mixed_pay(g, cid, ab, a)                               # 129.3, 129.4
    n = _int(a, "x", sum(pay.values()) if pay is not None else top)
    if n < 0:
        g.refuse("112.0", f"X is a non-negative whole number, not {n}", also=("129.5",))
    if n > top:
        g.refuse("129.5", f"{cid}'s direct damage spends 0 to {top} VP, not {n}",
                 also=("rb7:direkt-sebzo-kepesseg",))
    if pay is not None and sum(pay.values()) != n:
        g.refuse("129.4", f"the mixed payment {pay} gives {sum(pay.values())} points, the direct damage "
                          f"is used for {n}")
    if _used(g, card, idx) >= int(ab.get("per_turn", 1)):
        g.refuse("rb7:direkt-sebzo-kepesseg", f"{cid} has used its direct damage this turn")
    if len(targets) != 1:
        g.refuse("rb7:celpont" if not targets else "rb7:direkt-sebzo-kepesseg",
                 "direct damage hits exactly one target")
    target = targets[0]
    allowed = combat.fights(st, cid)
    if target not in allowed:
        g.refuse("rb7:direkt-sebzo-kepesseg", f"{cid} fights {allowed or 'nothing'}: direct damage only at a "
                                              "creature attacking it or what it attacks")
    chosen = rec["strike_back"].get(cid)
    if chosen is not None and chosen != target:
        g.refuse("rb7:direkt-sebzo-kepesseg", f"{cid} strikes back at {chosen}: its direct damage may hit "
                                              "only that creature")
    pay_cost(g, player, pay if pay is not None else {kinds[0]: n}, {})  # 129.3, 129.4, 4.20.3
    rec["direct_damage"][cid] = target
    if combat.target_of(st, cid) is None:
        rec["strike_back"][cid] = target                                 # it strikes only there
    if st.version >= 2:
        # rb7:harci-fazis.IV: declared now, alternately; all take effect together when IV ends
        rec.setdefault("declared", []).append({"card": cid, "target": target, "amount": n,
                                               "element": ab.get("element")})
        g.emit("combat_ability_declared", card=cid, target=target, amount=n, element=ab.get("element"),
               player=player)
        return
    _direct_hit(g, cid, target, n, ab.get("element"))


def _mixed_pay(g: Game, cid: str, ab: dict[str, Any], a: dict[str, Any]
               ) -> tuple[list[str], dict[str, int] | None]:
    """129.3: a direct damage is paid in VP unless its description says otherwise (`cost_kinds`,
    the kinds of its cost, the first the default); 129.4: with several kinds, `pay: {kind: n}` mixes
    them. Returns the kinds and the payment named (None: all of the first kind)."""
    kinds = ab.get("cost_kinds", ["vp"])
    if not isinstance(kinds, list) or not kinds or repeats(kinds) \
            or any(k not in COMBAT_COST_KINDS for k in kinds):
        raise InputProblem(f"{cid}: cost_kinds: a list of {', '.join(COMBAT_COST_KINDS)}, each once")
    pay = a.get("pay")
    if pay is None or pay == {}:
        return kinds, None                      # no mix named (as before 129.4 was expressible)
    if not isinstance(pay, dict) or any(k not in COMBAT_COST_KINDS or isinstance(v, bool)
                                        or not isinstance(v, int) or v < 0 for k, v in pay.items()):
        raise InputProblem(f"pay: a combat ability is paid {{{': n, '.join(COMBAT_COST_KINDS)}: n}}, "
                           f"non-negative integers, not {pay!r}")
    for k in pay:
        if k not in kinds and pay[k]:
            g.refuse("129.3", f"{cid}'s direct damage is paid in {' or '.join(kinds)}, not in {k}",
                     also=("129.4",))
    return kinds, {k: v for k, v in pay.items() if v}


def resolve_declared(g: Game) -> bool:
    """rb7:harci-fazis.IV (hkk-case/2): the combat leaves IV — both players passed in it, or an
    `advance` runs on (nobody acts any more) — and every declared combat ability takes effect at
    once: a creature brought to 0 Ép or less by one still deals its own (two creatures may kill
    each other with direct damage); the deaths follow the reading `combat-deaths` (108.0 right
    after, or at the end of V). True when any took effect."""
    rec = combat.record(g.state)
    declared = (rec or {}).get("declared") or []
    for d in declared:
        _direct_hit(g, d["card"], d["target"], d["amount"], d.get("element"))
    if rec is not None:
        rec["declared"] = []
    return bool(declared)


def _direct_hit(g: Game, cid: str, target: str, n: int, element: str | None) -> None:
    st = g.state
    g.emit("combat_ability", card=cid, target=target, amount=n, element=element)
    if target not in PLAYERS and not st.on_table(target):
        g.emit("effect_prevented", verb="damage", clause="4.5.2", target=target, source=cid)
        return                                  # declared in IV, gone before it took effect
    if target not in PLAYERS and any(x.get("to") == "combat_abilities"
                                     for x in keywords.entries(g, st.cards[target], "immunity")):
        g.emit("damage_prevented", target=target, amount=n, element=element, clause="132.10")
        n = 0                                                            # 132.10, 132.2
    deal_damage(g, target, n, element, source=cid)
    if target in g.hit:
        # V: a creature brought to 0 Ép goes to the graveyard at the end of V; a life-saving
        # action right after the damage may still save it (the engine's window, 136.8). It dies as
        # a combat death (134.4.7: through `struck_dying`, which model/damage.py settle reads).
        st.turn_info.own("struck_dying").append(target)


# ---------------------------------------------------------------------------
# regeneration (136.6–136.8)
# ---------------------------------------------------------------------------

def _regenerate(g: Game, player: str, card: Card, idx: int, ab: dict[str, Any], a: dict[str, Any]) -> None:
    st = g.state
    cid = card.id
    if not card.is_creature or st.controller(cid) != player:
        g.refuse("136.6", f"{cid} is not {player}'s creature in play: its controller regenerates it")
    check_timing(g, player, "instant")
    begin_action(g, player, life_saving=True)                            # 136.8, 4.23.3
    n = _int(a, "x", 1)
    if n < 1:
        g.refuse("136.6", "regeneration heals at least 1 Ép")
    if card.wounds <= 0 or cid not in st.turn_info.just_damaged:
        g.refuse("136.8", f"{cid} was not damaged right before: regeneration is used right after the "
                          "damage, as a life-saving action")
    if n > card.wounds:
        g.refuse("rb7:regeneralodas", f"{cid} took {card.wounds} damage: regeneration heals that or part of "
                                      "it, never above the maximum")
    done = st.turn_info.regenerated.get(cid, 0)
    cap = stats.regeneration_cap(st, card, g.rules)                     # 136.7, a card may change it
    if done + n > cap:
        g.refuse("136.7", f"at most {cap} Ép are regenerated on a creature per turn; {done} already")
    per = _int(ab, "x", 1)
    pay_cost(g, player, {"vp": per * n}, {})                             # 136.6, 4.20.3
    st.turn_info.own("regenerated")[cid] = done + n
    g.emit("ability_activated", card=cid, ability="regeneration", player=player)
    heal(g, cid, n)


# ---------------------------------------------------------------------------
# shadow (136.9)
# ---------------------------------------------------------------------------

def _shadow(g: Game, player: str, card: Card, ab: dict[str, Any], a: dict[str, Any]) -> None:
    """136.9: the controller pays the cost as an instant action (also life-saving) and the creature
    goes back to its owner's hand; not leaving play for muscle, penalty or compensation; a life
    counter comes into play and stops the return."""
    st = g.state
    cid = card.id
    if not card.is_creature or st.controller(cid) != player:
        g.refuse("136.9", f"{cid} is not {player}'s creature in play: its controller uses its shadow")
    check_timing(g, player, "instant")
    begin_action(g, player, life_saving=True)
    _pay(g, player, card, ab, a)                                         # 99.0, 99.3, 4.20.3
    g.emit("ability_activated", card=cid, ability="shadow", player=player)
    move_card(g, cid, "hand", Cause("shadow"))


# ---------------------------------------------------------------------------
# Semmizés: X (4.16.4)
# ---------------------------------------------------------------------------

def _exiling(g: Game, player: str, card: Card, ab: dict[str, Any], a: dict[str, Any]) -> None:
    """4.16.4: "Egy gyűjtőből max. X lapot a Semmibe rakhatsz" — an activated ability: its
    controller chooses on use (`activate.cards`) at most X cards of one graveyard, which are
    exiled (4.16.0, 4.16.1: each into the Void of its graveyard); it pays the ability's `cost`."""
    st = g.state
    cid = card.id
    if st.controller(cid) != player:
        g.refuse("rb7:aktivalast-kivano-kepessegek", f"{cid} is not {player}'s card in play: its controller "
                                                     "uses its Semmizés")
    if not card.is_creature and not card.active:
        g.refuse("rb7:passzivizalas", f"{cid} is passive: a passive {card.kind} has no effect")
    check_timing(g, player, "instant")                                  # 136.3
    begin_action(g, player)                                              # 4.23.0, 4.11.6
    chosen = a.get("cards")
    if not isinstance(chosen, list) or not all(isinstance(x, str) for x in chosen) or repeats(chosen):
        raise InputProblem("cards: the cards Semmizés exiles, a list of card ids, each once")
    if "x" not in ab:
        raise InputProblem(f"{cid}: exiling: `x`, the number of cards Semmizés: X exiles at most, is required")
    x = _int(ab, "x")
    if len(chosen) > x:
        g.refuse("4.16.4", f"Semmizés: {x} puts at most {x} card(s) into the Void, {len(chosen)} named")
    yards = set()
    for x_id in chosen:
        g.card(x_id)
        loc = st.locate(x_id)
        if not loc or loc[1] != "graveyard":
            g.refuse("4.16.4", f"{x_id} is not in a graveyard: Semmizés takes cards from a graveyard",
                     also=("4.16.0",))
        yards.add(loc[0])
    if len(yards) > 1:
        g.refuse("4.16.4", "Semmizés takes its cards from one graveyard")
    _pay(g, player, card, ab, a)                                         # 99.0, 99.3, 4.20.3
    g.emit("ability_activated", card=cid, ability="exiling", player=player)
    resolve_effects(g, card, player, [], [{"exile": {"card": x_id}} for x_id in chosen])


def _pay(g: Game, player: str, card: Card, ab: dict[str, Any], a: dict[str, Any]) -> None:
    """The ability's use cost as it is now (99.0), never modified or replaced where 99.3 says so."""
    pay_cost(g, player, activation_costs.cost(g, card, ab), dict(a.get("pay") or {}), card)


# ---------------------------------------------------------------------------
# other activated abilities (136)
# ---------------------------------------------------------------------------

def _generic(g: Game, player: str, card: Card, idx: int, ab: dict[str, Any], a: dict[str, Any],
             targets: list[str]) -> None:
    st = g.state
    cid = card.id
    kw = ab.get("keyword")
    since = g.watch.mark() if g.watch is not None else None
    if "effects" not in ab:
        g.refuse("136.0", f"{cid}'s {kw} is not an ability that is activated")
    if st.controller(cid) is None:
        g.refuse("rb7:aktivalast-kivano-kepessegek", f"{cid} is not in play: abilities of cards in play are used")
    if st.controller(cid) != player and not ab.get("common"):                 # 137.4: a common ability
        g.refuse("rb7:aktivalast-kivano-kepessegek", f"{cid} is not {player}'s card in play: its controller "
                                                     "activates its abilities", also=("137.4",))
    if not card.is_creature and not card.active:
        g.refuse("rb7:passzivizalas", f"{cid} is passive: a passive {card.kind} has no effect")
    timing = ab.get("timing", "instant")
    if timing not in TIMINGS:
        raise InputProblem(f"{cid}: unknown timing {timing!r} (known: {', '.join(TIMINGS)})")
    if timing == "main":
        if st.active != player or st.phase not in ("main1", "main2"):
            g.refuse("137.1", f"{cid}'s {kw} is used only in its controller's main phase")
    else:
        check_timing(g, player, "instant", allow_preparation=timing == "preparation")
    reacting = bool(st.queue) and queue.is_reaction_ability(ab)
    if not reacting and (ab.get("reaction") == "only" or queue.prevents(ab)):
        g.refuse("137.3" if queue.prevents(ab) else "137.2",
                 f"{cid}'s {kw} is a reaction: it answers a card or ability waiting on the reaction queue, "
                 "and nothing waits there", also=("4.21.1",))
    on_play = bool(ab.get("on_play"))
    if on_play and st.turn_info.on_play != {"card": cid, "player": player}:
        g.refuse("137", f"{cid}'s {kw} is used right after the card is played, before any other action "
                        "but reactions")
    begin_action(g, player, life_saving=reacting or on_play)             # 4.11.6, 136.1; 4.23.3
    per_turn = ab.get("per_turn")
    if per_turn is not None and _used(g, card, idx) >= int(per_turn):
        g.refuse("137.1", f"{cid}'s {kw} is used at most {per_turn} time(s) per turn")
    if ab.get("needs_target") and not targets:
        g.refuse("rb7:celpont", f"{cid}'s {kw} needs a target and none is given")
    answer = None
    if reacting:
        answer = queue.answered(g, a.get("answers"))                     # 137.2, 137.3
        # 134.15: a reaction ability of a card with neutralization is a neutralization
        queue.check_answerable(g, answer, spell=False,
                               neutralization=keywords.has(g, card, "neutralization"))
    cost = activation_costs.cost(g, card, ab)                           # 99.0, 99.3: as it is now
    passivate = bool(cost.pop("passivate", False))
    if passivate:
        zone = st.zone_of(cid)
        if zone == "guard_post":
            g.refuse("5.4.5", f"{cid} is in the guard post: an ability that passivates is never used there")
        if card.attached_to:
            g.refuse("5.5.4", f"{cid} sits on {card.attached_to}: attached cards are not passivated")
        if not card.active or zone not in TABLE_ZONES:
            g.refuse("5.5.7.1", f"{cid} is passive: only an active card is passivated")
    pay_cost(g, player, cost, dict(a.get("pay") or {}), card)           # 4.20.3; 99.3
    if passivate:
        card.active = False
        g.emit("passivated", card=cid)
    g.emit("ability_activated", card=cid, ability=kw, player=player)
    if on_play:
        st.turn_info.on_play = None                                # 137: used
    entry = {"kind": "ability", "player": player, "card": cid, "ability": idx, "keyword": kw,
             "targets": targets, "effects": jcopy(ab.get("effects") or []),
             "disadvantage": bool(ab.get("disadvantage"))}                 # 4.23.1: no reaction to it
    if reacting or a.get("wait"):
        if reacting:
            entry.update(answers=answer["id"], reaction=True)
        queue.push(g, entry)                                             # 4.21.1: it waits for answers
        g.after_effect()                          # 133.2: set off by the activation, before any reaction
        if g.watch is not None:
            g.watch.defer(entry, since)           # the others wait until it has taken effect (133.2)
    else:
        g.after_effect()                          # 133.2: set off by the activation, before it works
        resolve_entry(g, entry)


def resolve_entry(g: Game, entry: dict[str, Any]) -> None:
    """An ability that was not prevented takes effect (136.5): its effects, as its card's."""
    card = g.state.cards[entry["card"]]
    resolve_effects(g, card, entry["player"], entry["targets"], entry["effects"],
                    modify=entry.get("modify", 0), disadvantage=bool(entry.get("disadvantage")))


ACTIONS: dict = {
    "activate": activate,
    # internal verbs: the answers to keyword decisions (`choose` dispatches them; never in a case)
    "_anti_discard": lambda g, a, by: keywords.anti_discard(g, a, by),
}

__all__ = ["ACTIONS", "activate", "resolve_entry", "resolve_declared"]
