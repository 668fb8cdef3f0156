"""Keyword abilities: on-play abilities, what happens when a permanent leaves play, granted
abilities, and the immunities that refuse a target.

Keywords are `abilities: [{keyword: …, x: N}]` entries of a card (the list, with the fields each
reads, is in docs/engine-semantics.md, "Keyword abilities"). Clauses:

- on-play automatic abilities (134.0–134.1.2): they come into being once, after the card was
  played successfully (not when it is put onto the table otherwise), in the order written on the
  card; the card's `effects` follow; anti-magic and anti-neutralization come last
  (rb7:anti-magia: once every other on-play effect has happened).
  - 134.4 / rb7:elet life: X life counters when played from the hand (4.22.1: a resurrection from the
    graveyard counts as from the hand) for its cost; this placing is the ability itself, not an
    "other source" (rb7:elet), so it is made under every ruleset reading.
  - 134.5 / rb7:izom muscle: `play.pay.muscle: [ids]` discards at most X cards of the hand to the
    Void; that many muscle counters go on the creature.
  - 134.6, 134.6.1 / rb7:blokkolas blocking: the opponent's maximum VP −X (never below 0), only on a
    successful play from the hand; 134.9, 134.9.1 anti-blocking: the player's own maximum VP +X.
  - 134.10–134.13 / rb7:anti-magia anti-magic: every player discards X spells (instant, sorcery,
    enchantment: rb7:varazslatok) of their choice, the player who played the card into the Void,
    the others into their graveyards; with fewer, all of them, then the hand is shown; 0: nothing.
    The order (134.13) is the playing player first, then the opponent (project default).
    134.15 anti-neutralization: the same with the cards of the hand that have `neutralization`.
  - 134.14 seduction: with a target creature of summoning cost ≤ X, it is stolen; without one the
    creature gets a strength counter (+1/+1).
  - 135.8 / rb7:ujrahasznositas recycling: `play.pay.recycle: [ids]`, at most X cards of one
    graveyard, are shuffled into their owners' decks; the player heals 1 Ép per card shuffled back.
  - 127.0.0 delay / temporary counters: a card with an ability marked `delay: X` or `temporary: X`
    gets X such counters when played successfully; not an on-play ability, and 127.0.7: nothing that
    keeps counters off the card keeps these off; 127.0.4 a card that enters play another way does
    not have them, and its delayed abilities never work (stats.marks "bare").
- leaving play or the owner's control:
  - 124.2–124.6 / rb7:izom muscle counters: the creature's controller gets, per counter, a card draw
    or 1 VP, decided for all counters in advance (124.4), all at once, one source, not waivable
    (124.3); not when the creature goes to the graveyard/Void by unforced sacrifice (124.6); the
    automatic ability comes after the creature has actually left (124.5); it needs no cost (133.1).
    The decision is the project default, made at once (a pending decision would block the steps
    that follow): 1 VP per counter while the player's VP is below the maximum, a draw for each
    counter beyond that. Event `muscle_reward {card, player, draw, vp}`.
  - 135.2, 135.3, 135.3.1 / rb7:buntetes penalty `{keyword: penalty, hp: X, vp: Y}`: the player
    whose source removes the card (or takes it from its owner) is damaged X Ép / loses Y VP; several
    penalties add up; not in combat, not for a sacrifice, not for a counter's effect.
  - 135.4, 135.5 / rb7:karpotlas compensation `{keyword: compensation, hp: X, vp: Y}`: when the
    opponent's source does it, the card's controller heals X Ép / gains Y VP.
  - rb7:jutalom reward `{keyword: reward, hp: X}`: the penalty with the roles turned — when the
    opponent's source does it, that opponent heals X Ép (its own controller's source: nothing);
    not in combat, not by poison or a weakness counter, in the preparation phase too; always a
    disadvantage.
  - which player's source: the player of the card whose `effects` are resolving (a played card, an
    activated ability); for a death by damage the controller (else owner) of the damage's `source`;
    else the active player (a direct effect step: the mover does not see the step's `by`).
  - 134.4.3–134.4.4 a life counter used against counters that would send the creature to the
    graveyard takes those counters with it, one kind per life counter.
- disadvantages: rb7:lenyek-szovegei a disadvantage (an entry with `disadvantage: true`, the
  reward) is never lost: a `lose` in force does not take it (`entries`, the one lookup).
- rb7:orzo: while a creature with `{keyword: guardian}` is in play (either player's, active or
  passive), no player is chosen as the target of a damaging instant or sorcery (111.1.0).
- granted abilities: 128.1 an ability a card receives from another (`{keyword: grant, abilities:
  [...]}` of a card sitting on it, `attached_to`) counts as its own; 119.2 when a freeze counter takes it, the one
  that came into play later wins (102.3, through the ruleset's priority order, model/priority.py).
- immunities: 132.0, 132.2 (an immune card may be targeted; it is not affected: an effect step of
  the source that names it is skipped), 132.4 magic immunity (spells and enchantments), 132.5
  source immunity (every card source), 132.5.1 and 132.6 (enchantments fall off a card that
  gains the immunity later, except the one giving it; none is put on it), 132.7 immunity to
  instants and sorceries, 132.8 mental spells (subtype `mentalis`), 132.3 poison
  immunity (no poison counter; those on it fall off when it gains the immunity; 130.1 an automatic
  consequence of a static ability), 132.10 immunity to combat abilities, 132.11 untargetable
  (refused as a target), 130.0 static abilities work without announcement, also on passive
  creatures.

This module does not import the zone mover (model/zones.py calls it, so importing it back would
be a cycle): card moves are made through the effect dispatcher the engine hands to the game
(`g.apply_effect`, model/engine.py), and the muscle draws through the mover that zones.py passes in.
Engine-private bookkeeping (freeze time, expired timed counters, "entered without its counters")
lives in `stats.marks(card)`, never in a returned state.
"""
from __future__ import annotations

from typing import Any, Callable

from . import continuous, numbers, overrides, priority, resources, spells, stats
from .errors import InputProblem
from .game import Game
from .shapes import COUNTED_MARK, repeats
from .state import PLAYERS, TABLE_ZONES, Card, State, other


from .immunity import IMMUNITY_TO, SPELL_KINDS, immune_clause  # noqa: E402,F401 (132.x, rb7:varazslatok)
TIMED = ("delay", "temporary")
ON_PLAY = ("life", "muscle", "blocking", "anti_blocking", "seduction", "recycling")
AFTER_PLAY = {"anti_magic": "134.10", "anti_neutralization": "134.15"}
DISADVANTAGES = ("reward",)                               # rb7:jutalom: "a Jutalom mindig hátrány"
# counters whose effect can send a creature to the graveyard through its Ép (134.4.3)
STAT_KILLERS = ("aging", "weakness")


def _x(ab: dict[str, Any], key: str = "x", default: int = 0) -> int:
    v = ab.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise InputProblem(f"ability {ab.get('keyword')!r}: {key} must be a non-negative integer, got {v!r}")
    return v


# ---------------------------------------------------------------------------
# abilities a card has now: its own and the granted ones (128.1, 119.2)
# ---------------------------------------------------------------------------

def granted(state: State, card: Card) -> list[tuple[dict[str, Any], Card]]:
    """128.1: (ability, giver) for each ability a card sitting on this one gives it:
    the giver's `{keyword: grant, abilities: [...]}`; and those a continuous effect in force
    grants it (`{grant: [...]}`, model/continuous.py; a timed effect's giver is its source)."""
    if not state.on_table(card.id):
        return []
    out = []
    for gid in state.attached_to(card.id):
        giver = state.cards[gid]
        for grant in stats.ability_entries(giver, "grant"):     # a frozen giver gives nothing (119.1)
            for ab in grant.get("abilities") or []:
                out.append((dict(ab), giver))
    for act in continuous.reaching(state, card.id, "grant", stats.frozen):
        giver = state.cards[act.source] if act.source in state.cards else card
        for ab in act.entry["grant"]:
            out.append((dict(ab, _continuous=True), giver))
    return out


def _grant_against_loss(g: Game, card: Card, keyword: str) -> bool | None:
    """A continuous effect in force takes the ability (`{lose: [keyword]}`): False when the loss
    holds, True when a grant of it prevails by the priority order (102 / mk:5.10), None when the
    order leaves them tied (neither holds; the card keeps what it has)."""
    st = g.state
    if not any(a.get("keyword") == keyword for act in continuous.reaching(st, card.id, "grant", stats.frozen)
               for a in act.entry["grant"]):
        return False                    # no grant of this ability: nothing contradicts the loss
    return numbers.winner_of(st, card.id, f"ability:{keyword}", g.rules.priority_policy, stats.frozen)


def _grant_beats_freeze(state: State, card: Card, giver: Card, policy: str) -> bool:
    """119.2: a continuous grant and the freeze counter: the later one wins (102.3)."""
    since = stats.marks(card).get("freeze_since", card.timestamp)
    grant = priority.Effect(continuous=True, timestamp=giver.timestamp, ability="static", id=giver.id)
    freeze = priority.Effect(continuous=True, timestamp=since, ability="static", id="freeze")
    return priority.resolve(grant, freeze, policy).winner == "a"


def entries(g: Game, card: Card, keyword: str) -> list[dict[str, Any]]:
    """The working entries of a keyword on the card: own (stats.ability_entries) and granted,
    none when an effect in force takes it (`lost`)."""
    st = g.state
    if not card.abilities and card.id not in st.hosts() and not continuous.any_in_force(st):
        return []                           # none of its own, no card sitting on it, no effect in force
    tied = False
    if continuous.reaching(st, card.id, "lose", stats.frozen, keyword):
        verdict = _grant_against_loss(g, card, keyword)
        if verdict is False:                # rb7:lenyek-szovegei: a disadvantage is never lost
            return [a for a in stats.ability_entries(card, keyword) if is_disadvantage(a)]
        tied = verdict is None     # tied by the order: neither holds — the card keeps its own
    out = list(stats.ability_entries(card, keyword))
    for ab, giver in granted(g.state, card):
        if ab.get("keyword") != keyword:
            continue
        if ab.pop("_continuous", False) and tied:
            continue
        if stats.frozen(card) and not _grant_beats_freeze(g.state, card, giver, g.rules.priority_policy):
            continue
        out.append(ab)
    return out


def has(g: Game, card: Card, keyword: str) -> bool:
    return bool(entries(g, card, keyword))


def is_disadvantage(ab: dict[str, Any]) -> bool:
    """A disadvantage (hátrány): an entry marked `disadvantage: true`, or a keyword that always is
    one (rb7:jutalom: the reward)."""
    return ab.get("disadvantage") is True or ab.get("keyword") in DISADVANTAGES


def poison_immune(g: Game, card: Card) -> bool:
    """132.3 (rb7:immunitas-meregre): `poison_immunity` or `{keyword: immunity, to: poison}`."""
    return has(g, card, "poison_immunity") or any(a.get("to") == "poison" for a in entries(g, card, "immunity"))


def cost_value(g: Game, card: Card) -> int:
    """The summoning cost as one number (rb7:lapaldozas, rb7:semmizos-idezesi-koltseg-nekron): VP,
    components, builders and nekron count as they are; a sacrifice counts 1 for items and buildings,
    3 for every other card. The cost as it is now, with the effects on it (99.7)."""
    c = stats.cost(g.state, card, g.rules)
    per_sacrifice = 1 if card.kind in ("item", "building") else 3
    return (c.get("vp", 0) + c.get("components", 0) + c.get("builders", 0) + c.get("nekron", 0)
            + per_sacrifice * c.get("sacrifice", 0))


def refresh(g: Game, card: Card, drop: Callable[[str], Any] | None = None) -> None:
    """Automatic consequences of abilities that change (130.1): 132.3 poison counters fall off;
    132.5.1, 132.6, 132.8 enchantments the card is now immune to fall off (`drop` sends one to the
    graveyard), except the one that gives the immunity."""
    st = g.state
    if not st.on_table(card.id):
        return
    if card.counter("poison") and poison_immune(g, card):
        n = card.counters.pop("poison")
        g.emit("counter_removed", card=card.id, counter="poison", count=n, clause="132.3")
    if drop is None:
        return
    for att in list(st.attached_to(card.id)):
        e = st.cards[att]
        if e.kind != "enchantment":
            continue
        others = [x for x, giver in granted(st, card) if giver.id != att and x.get("keyword") == "immunity"]
        if stats.frozen(card):
            others = []
        if any(_immune_clause(x.get("to"), e) for x in stats.ability_entries(card, "immunity") + others):
            drop(att)


_immune_clause = immune_clause            # the rules of 132.4-132.8: model/immunity.py


def immune_to_source(g: Game, card: Card, source: Card) -> str | None:
    """132.0, 132.4–132.8: the clause under which the card is immune to this source card, or None."""
    for ab in entries(g, card, "immunity"):
        clause = _immune_clause(ab.get("to"), source)
        if clause:
            return clause
    return None


def _ability_effect(card: Card, keyword: str) -> priority.Effect:
    """A card's static ability as an effect in force (102): continuous, weak (an ability entry
    has no "semmiképp" of its own), from the card's entry into play, tiltó (it keeps off)."""
    return priority.Effect(strong=False, continuous=True, timestamp=card.timestamp, ability="static",
                           prohibiting=True, id=f"{card.id}:{keyword}")


def unaffected(g: Game, source: Card, verb: str, args: dict[str, Any]) -> bool:
    """An effect step of `source` that names (`card` / `target`) a permanent immune to that source
    has no effect on it (132.0, 132.2: it may have been targeted). Emits `effect_prevented`."""
    st = g.state
    for key in ("card", "target"):
        t = args.get(key)
        if isinstance(t, str) and t in st.cards and t != source.id and st.on_table(t):
            clause = immune_to_source(g, st.cards[t], source)
            if clause and overrides.prevails(g, args, [_ability_effect(st.cards[t], "immunity")]):
                continue                          # 101.0, 102.1: a strong step over a weak immunity
            if clause:
                g.emit("effect_prevented", verb=verb, clause=clause, card=t, source=source.id,
                       target=t if key == "target" else None)
                return True
    return False


def check_targets(g: Game, targets: list[str], card: Card | None = None) -> None:
    """132.11: an untargetable card cannot be chosen as a target; 132.4–132.6, 132.8: an enchantment
    is not put on a card immune to it; rb7:orzo: while a guardian creature is in play, no player is
    the target of a damaging instant or sorcery."""
    if card is not None and any(t in PLAYERS for t in targets) and "damaging" in (spells.characteristics(card) or ()):
        guard = next((c.id for c in g.state.creatures_on_table() if has(g, c, "guardian")), None)
        if guard is not None:
            g.refuse("rb7:orzo", f"{guard} is a guardian in play: no player can be the target of a damaging "
                                 f"{card.kind}")
    for t in targets:
        if t in PLAYERS or t not in g.state.cards:
            continue
        tc = g.state.cards[t]
        if g.state.on_table(t) and has(g, tc, "untargetable"):
            g.refuse("132.11", f"{t} is untargetable: it cannot be chosen as a target")
        if card is not None and card.kind == "enchantment" and g.state.on_table(t):
            clause = immune_to_source(g, tc, card)
            if clause:
                g.refuse(clause, f"{t} is immune to {card.id}: the enchantment cannot be put on it")


# ---------------------------------------------------------------------------
# pending decisions of keyword abilities (resumed after `choose`)
# ---------------------------------------------------------------------------

_OPEN = object()


def _ask(g: Game, player: str, choice: str, count: int, options: list[str], clause: str,
         verb: str, args: dict[str, Any], card: str, resume: Any = _OPEN) -> None:
    """Open a decision; a decision already open is kept and reopened once this one is answered."""
    st = g.state
    args = dict(args, resume=st.pending if resume is _OPEN else resume)
    st.pending = {"player": player, "choice": choice, "count": count, "options": list(options),
                  "card": card, "clause": clause, "step": {verb: args}, "by": player}
    g.emit("decision_pending", player=player, choice=choice, count=count, clause=clause, card=card)


# ---------------------------------------------------------------------------
# on play (134, 135.8, 127.0.0)
# ---------------------------------------------------------------------------

def _ids(pay: dict[str, Any], key: str) -> list[str] | None:
    v = pay.get(key)
    if v is None:
        return None
    if isinstance(v, str) or not isinstance(v, list):
        raise InputProblem(f"pay.{key}: expected a list of card ids, got {v!r}")
    return list(v)


def _place(g: Game, card: Card, counter: str, n: int, clause: str) -> None:
    """Counters an ability of the card itself places (134.4, 127.0.0): no other source's limits."""
    if n <= 0:
        return
    card.counters[counter] = card.counter(counter) + n
    g.emit("counter_added", card=card.id, counter=counter, count=n, clause=clause)


def on_play(g: Game, card: Card, player: str, *, from_hand: bool, targets: list[str],
            pay: dict[str, Any], effects: Callable[[], None]) -> None:
    """Everything a successful play brings, after the card entered play (or while a spell resolves)."""
    begin_source(g, player)                                          # the player's source (135.2)
    try:
        _on_play(g, card, player, from_hand=from_hand, targets=targets, pay=pay, effects=effects)
    finally:
        end_source(g)


def _on_play(g: Game, card: Card, player: str, *, from_hand: bool, targets: list[str],
             pay: dict[str, Any], effects: Callable[[], None]) -> None:
    st = g.state
    muscle_ids = _ids(pay, "muscle")
    recycle_ids = _ids(pay, "recycle")
    permanent = st.on_table(card.id)
    if permanent:                                                    # 127.0.0, 127.0.7, 127.0.4
        stats.marks(card).pop("bare", None)
        for timed in TIMED:
            n = max([_x(ab, timed) for ab in card.abilities if ab.get(timed)] or [0])
            _place(g, card, timed, n, "127.0.0")
    if muscle_ids is not None and not stats.ability_entries(card, "muscle"):
        g.refuse("134.5", f"{card.id} has no muscle ability: no card is discarded for muscle counters")
    if recycle_ids is not None and not stats.ability_entries(card, "recycling"):
        g.refuse("135.8", f"{card.id} has no recycling ability")
    for ab in list(card.abilities):
        kw = ab.get("keyword")
        if kw not in ON_PLAY or ab not in stats.ability_entries(card, kw):
            continue
        if kw == "life" and card.is_creature and from_hand and st.on_table(card.id):
            if has(g, card, "no_counters"):
                g.emit("counter_prevented", card=card.id, counter="life", count=_x(ab, default=1),
                       clause="117.0")
            else:
                _place(g, card, "life", _x(ab, default=1), "134.4")
        elif kw == "muscle" and muscle_ids is not None and st.on_table(card.id):
            _muscle_on_play(g, card, player, _x(ab), muscle_ids)
            muscle_ids = None
        elif kw == "blocking" and from_hand:
            resources.change_max(g, other(player), "vp", -_x(ab))      # 134.6, never below 0
        elif kw == "anti_blocking" and from_hand:
            resources.change_max(g, player, "vp", _x(ab))              # 134.9
        elif kw == "seduction" and st.on_table(card.id):
            _seduce(g, card, player, _x(ab), targets)
        elif kw == "recycling" and recycle_ids is not None:
            _recycle(g, card, player, _x(ab), recycle_ids)
            recycle_ids = None
    effects()
    for ab in list(card.abilities):
        kw = ab.get("keyword")
        if kw in AFTER_PLAY and ab in stats.ability_entries(card, kw):
            _anti(g, card.id, player, _x(ab), kw)


def _muscle_on_play(g: Game, card: Card, player: str, x: int, ids: list[str]) -> None:
    """134.5: at most X cards of the hand into the Void; that many muscle counters."""
    hand = g.state.players[player].zones["hand"]
    if repeats(ids):
        raise InputProblem("pay.muscle: a card is named twice")
    if len(ids) > x:
        g.refuse("134.5", f"{card.id} has muscle {x}: at most {x} card(s) are discarded, {len(ids)} named")
    for cid in ids:
        if cid not in hand:
            g.refuse("134.5", f"{cid} is not in {player}'s hand: muscle discards from the hand")
    if not ids:
        return
    g.apply_effect(g, "discard", {"player": player, "cards": ids, "to": "void", "source": card.id}, player)
    g.apply_effect(g, "put_counter", {"card": card.id, "counter": "muscle", "count": len(ids),
                                    "source": card.id}, player)


def _seduce(g: Game, card: Card, player: str, x: int, targets: list[str]) -> None:
    """134.14: steal a target creature of summoning cost ≤ X, or else a strength counter."""
    st = g.state
    for t in targets:
        if t not in PLAYERS and t in st.cards and not st.cards.peek(t).is_creature:
            g.refuse("134.14", f"{t} is no creature: seduction steals a target creature")
    victims = [t for t in targets if t not in PLAYERS]     # creatures only: checked just above
    if victims:
        t = victims[0]
        if not st.on_table(t) or st.controller(t) == player:
            g.refuse("134.14", f"{t} is not another player's creature in play: seduction steals one")
        if cost_value(g, st.cards[t]) > x:
            g.refuse("134.14", f"{t} costs {cost_value(g, st.cards[t])}: seduction {x} steals a creature "
                               f"of summoning cost at most {x}")
        if unaffected(g, card, "steal", {"card": t}):
            return                             # 132.2, 132.5: targeted, but the source has no effect on it
        g.apply_effect(g, "steal", {"card": t, "to": player, "source": card.id}, player)
    else:
        g.apply_effect(g, "put_counter", {"card": card.id, "counter": "strength", "count": 1,
                                        "source": card.id}, player)


def _recycle(g: Game, card: Card, player: str, x: int, ids: list[str]) -> None:
    """135.8: at most X cards of one graveyard shuffled into their owners' decks; heal 1 Ép each."""
    st = g.state
    if repeats(ids):
        raise InputProblem("pay.recycle: a card is named twice")
    if len(ids) > x:
        g.refuse("135.8", f"recycling {x}: at most {x} card(s), {len(ids)} named")
    yards = set()
    for cid in ids:
        g.card(cid)
        loc = st.locate(cid)
        if not loc or loc[1] != "graveyard":
            g.refuse("135.8", f"{cid} is not in a graveyard: recycling takes cards from a graveyard")
        yards.add(loc[0])
    if len(yards) > 1:
        g.refuse("135.8", "recycling takes its cards from one graveyard")
    back = 0
    for cid in ids:
        g.apply_effect(g, "move", {"card": cid, "to": "deck_shuffle", "source": card.id}, player)
        if st.zone_of(cid) == "deck" or (st.zone_of(cid) == "void" and st.cards[cid].premade):
            back += 1                                 # 4.15.1: a premade card there counts as shuffled
    g.emit("recycled", card=card.id, player=player, count=back)
    if back:                                      # a heal like any: 99.1 may stop it (the dispatcher)
        g.apply_effect(g, "heal", {"target": player, "amount": back, "source": card.id}, player)


def _eligible(st: State, player: str, kind: str) -> list[str]:
    hand = st.players[player].zones["hand"]
    if kind == "anti_magic":
        return [c for c in hand if st.cards[c].kind in SPELL_KINDS]
    return [c for c in hand if any(a.get("keyword") == "neutralization" for a in st.cards[c].abilities)]


def _anti(g: Game, source: str, player: str, x: int, kind: str) -> None:
    """134.10–134.13: every player discards X; the playing player into the Void, the others into
    their graveyards; the order: the playing player first (134.13, project default)."""
    if x == 0:                                                       # 134.12
        return
    queue = [{"player": p, "to": "void" if p == player else "graveyard"} for p in (player, other(player))]
    _anti_queue(g, source, x, kind, queue, g.state.pending)


def _anti_queue(g: Game, source: str, x: int, kind: str, queue: list[dict[str, Any]],
                resume: dict | None) -> None:
    st = g.state
    clause = AFTER_PLAY[kind]
    while queue:
        entry, queue = queue[0], queue[1:]
        p, to = entry["player"], entry["to"]
        cards = _eligible(st, p, kind)
        if len(cards) > x:
            args = {"player": p, "to": to, "count": x, "options": cards, "queue": queue, "kind": kind,
                    "source": source}
            _ask(g, p, kind, x, cards, clause, "_anti_discard", args, source, resume=resume)
            return
        if cards:
            g.apply_effect(g, "discard", {"player": p, "cards": cards, "to": to, "source": source,
                                        COUNTED_MARK: True}, p)     # X is the keyword's, not a spell's count
        if len(cards) < x:                                            # 134.11
            g.emit("hand_revealed", player=p, cards=list(st.players[p].zones["hand"]), clause="134.11")
    if resume is not None and st.pending is None:
        st.pending = resume


def anti_discard(g: Game, a: dict[str, Any], by: str) -> None:
    """The answer to an anti-magic / anti-neutralization decision: `choose: {player, cards}`."""
    p, x, kind = a["player"], a["count"], a["kind"]
    chosen = a.get("cards")
    if not isinstance(chosen, list) or repeats(chosen):
        g.refuse(AFTER_PLAY[kind], f"{p} names the {x} card(s) to discard: cards: [ids]")
    hand_ok = set(_eligible(g.state, p, kind))
    if len(chosen) != x or not set(chosen) <= hand_ok:
        g.refuse(AFTER_PLAY[kind], f"{p} discards exactly {x} of {sorted(hand_ok)}, not {chosen}")
    g.apply_effect(g, "discard", {"player": p, "cards": chosen, "to": a["to"], "source": a["source"],
                                COUNTED_MARK: True}, p)
    _anti_queue(g, a["source"], x, kind, list(a.get("queue") or []), a.get("resume"))


# ---------------------------------------------------------------------------
# the zone mover's hooks: a card that leaves play or its owner's control, or enters play
# ---------------------------------------------------------------------------

def life_counter_used(g: Game, card: Card, cause: Any) -> None:
    """134.4.3–134.4.4: a life counter used against counters that send the creature away takes those
    counters (the sending counter, or one kind of Ép-lowering counters) with it."""
    if cause.counter:
        card.counters.pop(cause.counter, None)
        return
    if cause.kind != "destroy":
        return
    hp = stats.current_hp(g.state, card, g.rules)
    if hp is None or hp > 0:
        return
    for name in STAT_KILLERS:
        if card.counter(name) and stats.counter_works(card, name):
            n = card.counters.pop(name)
            g.emit("counter_removed", card=card.id, counter=name, count=n, clause="134.4.3")
            return


def _responsible(g: Game, card: Card, cause: Any) -> str | None:
    """Whose source removes the card (135.2, 135.4), or None when it is no player's source."""
    if cause.combat or cause.as_cost or cause.counter or cause.kind in ("attached", "create", "play"):
        return None
    if cause.kind == "sacrifice" and not cause.forced:
        return None
    if cause.kind == "destroy" and not cause.damage:
        return None                                   # Ép lowered by counters (rb7:karpotlas)
    if g.sources:
        return g.sources[-1]
    st = g.state
    if cause.kind == "destroy" and card.id in st.turn_info.damaged_by:
        return st.turn_info.damaged_by[card.id]    # who damaged it (it may die a step later, 136.8)
    if cause.kind == "destroy":
        for e in reversed(g.events):
            if e.get("event") == "damaged" and e.get("target") == card.id and e.get("source") in st.cards:
                src = e["source"]
                return st.controller(src) or st.cards[src].owner
    return g.by or st.active                          # the step's source is controlled by its `by`


def before_move(g: Game, card: Card, src_player: str, target: str, zone: str, was_on_table: bool,
                cause: Any) -> dict[str, Any]:
    """Taken while the card is still where it was: what leaving will set off (abilities work now)."""
    leaving = was_on_table and zone not in TABLE_ZONES
    from_owner = was_on_table and zone in TABLE_ZONES and target != src_player and src_player == card.owner
    rec: dict[str, Any] = {"entered": not was_on_table and zone in TABLE_ZONES, "leaving": leaving,
                           "left": leaving or from_owner}
    if not rec["left"]:
        return rec
    rec["controller"] = src_player
    if cause.kind == "shadow":                        # 136.9: not leaving play for any related effect
        rec["left"] = False
        return rec
    unforced = cause.kind == "sacrifice" and not cause.forced and zone in ("graveyard", "void")
    rec["muscle"] = 0 if unforced or not card.is_creature or not stats.counter_works(card, "muscle") \
        else card.counter("muscle")                                    # 124.2, 124.6
    pen = entries(g, card, "penalty")
    comp = entries(g, card, "compensation")
    rew = entries(g, card, "reward")
    if pen or comp or rew:
        rec["responsible"] = _responsible(g, card, cause)
        rec["penalty"] = (sum(_x(a, "hp") for a in pen), sum(_x(a, "vp") for a in pen))        # 135.3
        rec["compensation"] = (sum(_x(a, "hp") for a in comp), sum(_x(a, "vp") for a in comp))
        rec["reward"] = sum(_x(a, "hp") for a in rew)                                          # rb7:jutalom
    return rec


def after_move(g: Game, card: Card, rec: dict[str, Any], mover: Callable[..., Any]) -> None:
    """After the card has actually left (124.5): muscle, penalty, compensation; marks of play."""
    if rec["entered"]:
        card.marks.clear()
        stats.marks(card)["bare"] = True          # 127.0.4 until a successful play places its counters
    if rec["leaving"]:
        card.marks.clear()
    if not rec["left"]:
        return
    controller = rec["controller"]
    if rec["muscle"]:
        # 124.4: the player decides for all counters at once — a pending decision opened when the
        # step is done (model/engine.py `open_muscle_decision`); unanswered, the default applies
        g.state.turn_info.own("muscle_queue").append(
            {"card": card.id, "player": controller, "count": rec["muscle"], "cause": "draw"})
    who = rec.get("responsible")
    if who is None:
        return
    cid = card.id
    p_hp, p_vp = rec["penalty"]
    if p_hp or p_vp:                                                  # 135.2, 135.3
        _later(g, lambda: _suffer(g, cid, who, p_hp, p_vp))
    c_hp, c_vp = rec["compensation"]
    if (c_hp or c_vp) and who != controller:                         # 135.4, 135.5
        _later(g, lambda: _benefit(g, cid, controller, c_hp, c_vp))
    r_hp = rec["reward"]
    if r_hp and who != controller:                                   # rb7:jutalom: the opponent heals
        _later(g, lambda: _reward(g, cid, who, r_hp))


def _suffer(g: Game, cid: str, who: str, hp: int, vp: int) -> None:
    g.emit("penalty", card=cid, player=who, hp=hp, vp=vp)
    if hp:                                   # damage to a player (4.25.0), as any damage is dealt
        g.apply_effect(g, "damage", {"target": who, "amount": hp, "source": cid}, who)
    if vp:
        resources.gain_vp(g, who, -vp)


def _benefit(g: Game, cid: str, who: str, hp: int, vp: int) -> None:
    g.emit("compensation", card=cid, player=who, hp=hp, vp=vp)
    if hp:                                   # a heal like any: 99.1 may stop it (the dispatcher)
        g.apply_effect(g, "heal", {"target": who, "amount": hp, "source": cid}, who)
    if vp:
        resources.gain_vp(g, who, vp)


def _reward(g: Game, cid: str, who: str, hp: int) -> None:
    g.emit("reward", card=cid, player=who, hp=hp)
    g.apply_effect(g, "heal", {"target": who, "amount": hp, "source": cid}, who)


def _later(g: Game, fn: Callable[[], None]) -> None:
    """rb7:buntetes: the loss comes after the source's effect has fully taken place."""
    if g.sources:
        g.deferred.append(fn)
    else:
        fn()


def begin_source(g: Game, player: str) -> None:
    """A card's effects start resolving: `player`'s source (for 135.2 / 135.4)."""
    g.sources.append(player)


def end_source(g: Game) -> None:
    if g.sources:
        g.sources.pop()
    if not g.sources:
        waiting, g.deferred = g.deferred, []
        for fn in waiting:
            fn()


__all__ = ["entries", "has", "granted", "poison_immune", "cost_value", "refresh", "check_targets",
           "on_play", "anti_discard", "before_move", "after_move", "life_counter_used",
           "begin_source", "end_source"]
