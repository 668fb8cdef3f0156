"""Playing cards, paying costs, and who may act when.

Clauses:
- acting in a phase: 4.11.6 (the active player acts first in every phase; the
  other player only after the active player has acted or passed), 4.23.0
  (an action: playing a card or using an activated ability), 4.23.3 (the
  life-saving exception), rb7:kijatszasi-sorrend.
- timing: rb7:elokeszito-fazis (nothing is played in the preparation phase,
  except abilities marked for it), rb7:kijatszasi-sorrend (nothing before the
  draw is done: the draw phase), rb7:fo-fazis (the active player plays any card
  in the main phases), rb7:varazslatok (sorceries and enchantments only in
  the own main phase; instants also in the opponent's turn and in any combat
  and healing phase; the player whose turn it is not plays instants only).
- costs: 4.20.0–4.20.3 (the cost, from the player's own means, never in part),
  rb7:idezesi-koltseg, rb7:idezesi-kihozasi-koltseg (never below 0),
  rb7:epitmenyek (builders: active creatures of the player's reserve, which
  become passive), rb7:targyak (items cost szörnykomponens), rb7:lapaldozas
  and 105.0, 105.2 (a sacrifice cost: unforced, no components), 4.8.1 and
  4.18.2 (nekron: 4 cards per point from the deck top into the Void, not a
  mill), rb7:semmizos-idezesi-koltseg-nekron (in the first 3 turns one nekron
  card per turn).
- where a played card goes: 4.21.0 (playing), 4.21.1 (a card being played is
  in no zone until it resolves), 4.22.1 (spells, vision cards and resurrecting
  creatures played from the graveyard count as played from the hand), 4.13.3
  (playing from the deck is a search), 4.9.1 and 4.7.1 (instants and
  sorceries resolve and go to the graveyard), 5.3.1 (creatures to the
  reserve), 131.5–131.6 (flying creatures and buildings enter active; others
  passive), 131.8 (resurrection: from the graveyard in the own main phase),
  4.7.6 (how a card leaves the graveyard), play conditions (model/conditions.py: rb7:ketszinu-lapok,
  rb7:hegymelyi, rb7:szingularitas, rb7:lenyek-szovegei), rb7:celpont (a card needing a
  target cannot be played without one), rb7:testreszek (body parts only on
  galetkik), rb7:helyszin (one location in play), rb7:vizio (one vision card
  of a name per turn), 134.0–134.15, 135.8, 127.0.0 (on-play keyword
  abilities: model/keywords.py, called after the card enters play or while a
  spell resolves), 132.11 (an untargetable card is refused as a target),
  132.2, 132.4–132.8 (an effect step of a card naming a card immune to it is
  skipped; an enchantment is not put on a card immune to it).
- the form it is played in: rb7:ketfelekeppen-hasznalhato-lapok (`as`: a card
  usable two ways is the kind it is played as from its play on), 111.7 (`mode`:
  a modal card carries out the chosen mode), model/forms.py; 111, 99.1 (the
  `played` event of a spell carries its characteristics, model/spells.py; a
  prohibition of playing spells of one of them refuses the play).
"""
from __future__ import annotations

from typing import Any

from . import activation_costs, conditions, forms, keywords, queue, resources, spells, stats
from .shapes import COST_KEYS, repeats
from .decisions import wait_for_answer
from .effects import apply_effect, do_sacrifice
from .errors import InputProblem
from .game import Game
from .acting import acting, start_phase_record
from .state import PERMANENT_KINDS, PLAYERS, Card, jcopy, other
from .zones import Cause, lift, move_card, put_back, shuffle_deck

MAIN_PHASES = ("main1", "main2")
# what the rulebook says of each phase outside the main phases about playing cards
_PHASE_CLAUSES = {
    "exchange": ("rb7:csere-fazis",),                        # no new cards during the exchange
    "combat": ("rb7:harci-fazis", "rb7:kijatszasi-sorrend"),  # instants only around the combat
    "end": ("rb7:gyogyulasi-fazis",),                         # only instants in the healing phase
}
GALETKI = "galetki"
VISION = "vizio"


# ---------------------------------------------------------------------------
# acting in a phase (4.11.6–4.11.8): the bookkeeping lives in turn_info.acting
# ---------------------------------------------------------------------------

def begin_action(g: Game, player: str, *, life_saving: bool = False) -> None:
    """4.11.6: the non-active player acts only after the active player has acted or passed.

    An action cancels every pass made so far in the phase (the passes must come in a row, 4.11.8).
    Life-saving actions, reactions and the use of an on-play ability (4.23.3, 136.8, 137) are not
    bound by the order. In hkk-case/2 the players act alternately (4.23.3, rb7:kijatszasi-sorrend:
    the other player must be given the chance to answer): a player's second action in a row comes
    only after the other player has passed.
    """
    st = g.state
    rec = acting(st)
    if player != st.active and not rec["active_moved"] and not life_saving:
        g.refuse("4.11.6", f"{st.active} acts first in the {st.phase} phase; {player} may act once "
                           f"{st.active} has acted or passed")
    if st.version >= 2 and not life_saving and rec.get("last") == player \
            and other(player) not in rec["passed"]:
        g.refuse("rb7:kijatszasi-sorrend", f"{player} acted last: {other(player)} must first be given the "
                                           "chance to answer (act or pass)", also=("4.23.3",))
    if player == st.active:
        rec["active_moved"] = True
    if not life_saving:
        rec["last"] = player
    rec["passed"] = []


# ---------------------------------------------------------------------------
# timing
# ---------------------------------------------------------------------------

def check_timing(g: Game, player: str, kind: str, *, allow_preparation: bool = False) -> None:
    """Who may play what when (rb7:elokeszito-fazis, rb7:kijatszasi-sorrend, rb7:fo-fazis, rb7:varazslatok)."""
    st = g.state
    if st.phase == "preparation" and not allow_preparation:
        g.refuse("rb7:elokeszito-fazis", "no card is played and no ability used in the preparation phase")
    if st.phase == "draw":
        g.refuse("rb7:kijatszasi-sorrend", "nothing is played before the draw is over (draw phase)")
    if kind == "instant":
        return
    if st.active != player:
        g.refuse("rb7:varazslatok", f"a {kind} is played only in its player's own turn; "
                                    f"{player} may play instants only")
    if st.phase not in MAIN_PHASES:
        g.refuse("rb7:varazslatok" if kind in ("sorcery", "enchantment") else "rb7:fo-fazis",
                 f"a {kind} is played only in a main phase, not in {st.phase}",
                 also=_PHASE_CLAUSES.get(st.phase, ()))


# ---------------------------------------------------------------------------
# costs
# ---------------------------------------------------------------------------

def _ids(pay: dict[str, Any], key: str) -> list[str]:
    v = pay.get(key) or []
    if isinstance(v, str) or not isinstance(v, list):
        raise InputProblem(f"pay.{key}: expected a list of card ids, got {v!r}")
    return list(v)


def pay_cost(g: Game, player: str, cost: dict[str, int], pay: dict[str, Any], of: Card | None = None) -> None:
    """4.20.3: check the whole cost first, then pay all of it; never in part. `of`: the card whose
    ability's use cost this is — 99.3 may keep it from being replaced (model/activation_costs.py)."""
    st = g.state
    pl = st.players[player]
    for key, n in cost.items():
        if key not in COST_KEYS:
            raise InputProblem(f"cost: unknown cost {key!r}")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InputProblem(f"cost.{key}: a cost is a number never below 0 (rb7:idezesi-kihozasi-koltseg)")
    if cost.get("vp", 0) > pl.vp:
        g.refuse("4.20.3", f"{player} has {pl.vp} VP, the cost is {cost['vp']}")
    if cost.get("components", 0) > pl.components:
        g.refuse("4.20.3", f"{player} has {pl.components} szörnykomponens, the cost is {cost['components']}")
    builders = _ids(pay, "builders")
    sacrifices = _ids(pay, "sacrifice")
    if repeats(builders) or repeats(sacrifices):
        g.refuse("4.20.3", "a card is named twice in the payment")
    if len(builders) != cost.get("builders", 0):
        g.refuse("4.20.3", f"the cost needs {cost.get('builders', 0)} builder(s), {len(builders)} named")
    for cid in builders:
        card = g.card(cid)
        if st.controller(cid) not in (None, player):
            g.refuse("4.20.2", f"{cid} is {st.controller(cid)}'s: a cost is paid from the player's own means",
                     also=("rb7:epitmenyek",))
        if cid not in pl.zones["reserve"] or not card.is_creature or not card.active:
            g.refuse("4.20.3", f"{cid} is not an active creature in {player}'s reserve: it cannot build",
                     also=("rb7:epitmenyek",))
    if len(sacrifices) != cost.get("sacrifice", 0):
        g.refuse("4.20.3", f"the cost sacrifices {cost.get('sacrifice', 0)} permanent(s), {len(sacrifices)} named")
    for cid in sacrifices:
        g.card(cid)
        owner_side = st.controller(cid)
        if owner_side not in (None, player):
            g.refuse("4.20.2", f"{cid} is {owner_side}'s: a player sacrifices only their own permanents",
                     also=("rb7:lapaldozas", "105.0"))
        if owner_side is None:
            g.refuse("4.20.3", f"{cid} is not on the table: only a permanent can be sacrificed",
                     also=("rb7:lapaldozas",))
        if cid in builders:
            g.refuse("4.20.3", f"{cid} is named as a builder and as a sacrifice: the whole cost is paid at "
                               "once, one card cannot pay twice", also=("rb7:lapaldozas",))
    nekron = cost.get("nekron", 0) * g.rules.nekron_cards_per_point
    if nekron > len(pl.zones["deck"]):
        g.refuse("4.20.3", f"nekron {cost['nekron']} needs {nekron} cards in the deck, {player} has "
                           f"{len(pl.zones['deck'])}",
                 also=("rb7:semmizos-idezesi-koltseg-nekron",))
    # everything is payable: pay it all
    if cost.get("vp"):
        resources.spend(g, player, "vp", cost["vp"])
    if cost.get("components"):
        resources.spend(g, player, "components", cost["components"])
    for cid in builders:
        st.cards[cid].active = False
        g.emit("passivated", card=cid)
    fixed = bool(sacrifices) and of is not None and activation_costs.fixed(g, of)
    # cards sitting on another named sacrifice go first, so the host does not drag them along (5.5.5)
    for cid in sorted(sacrifices, key=lambda c: st.cards[c].attached_to not in sacrifices):
        args = {"player": player, "card": cid, "forced": False, "as_cost": True}
        if fixed:                       # 99.3: no replacement reaches this use cost
            do_sacrifice(g, args, player)
        else:
            # through the effect dispatcher: a replacement in force replaces it, and the replaced
            # sacrifice counts as paid (mk:5.12.B)
            apply_effect(g, "sacrifice", args, player)
    for cid in list(pl.zones["deck"][:nekron]):
        move_card(g, cid, "void", Cause("nekron", as_cost=True))          # 4.8.1, 4.18.2


# ---------------------------------------------------------------------------
# play
# ---------------------------------------------------------------------------

def _check_targets(g: Game, card, targets: list[str]) -> None:
    st = g.state
    for t in targets:
        if t not in PLAYERS:
            g.card(t)
    if card.needs_target and not targets:
        g.refuse("rb7:celpont", f"{card.id} needs a target and none is given")
    keywords.check_targets(g, targets, card)           # 132.11, 132.4–132.8 (hook: keywords)
    if card.kind == "body_part":
        host = targets[0] if targets else None
        if host is None or host in PLAYERS or not st.on_table(host) \
                or not st.cards[host].is_creature or not st.cards[host].has_subtype(GALETKI):
            g.refuse("rb7:testreszek", f"{card.id} is a body part: it is put only on a galetki in play")
    elif card.kind == "enchantment" and targets and targets[0] not in PLAYERS \
            and not st.on_table(targets[0]):
        g.refuse("rb7:celpont", f"{targets[0]} is not in play: an enchantment sits only on a card in play")


def _limits(g: Game, player: str, card) -> None:
    """Per-turn limits: rb7:vizio (one vision card of a name), rb7:semmizos-idezesi-koltseg-nekron."""
    st = g.state
    if card.has_subtype(VISION):
        name = card.name or card.id
        seen = st.turn_info.own("visions_played").setdefault(player, [])
        if name in seen:
            g.refuse("rb7:vizio", f"{player} has already played a vision card named {name!r} this turn")
        seen.append(name)
    if stats.cost(st, card, g.rules).get("nekron", 0) > 0 and st.players[st.active].turn <= 3:
        n = st.turn_info.nekron_played.get(player, 0)
        if n >= 1:
            g.refuse("rb7:semmizos-idezesi-koltseg-nekron",
                     "in the first 3 turns only one nekron card may be played per turn")
        st.turn_info.own("nekron_played")[player] = n + 1


def play(g: Game, a: dict[str, Any], by: str) -> None:
    """`play`: the card is played (4.21.0) and comes into being at once, or — `wait: true`, or a
    reaction card answering the reaction queue — waits on the queue for answers (4.21.1,
    model/queue.py) until both players pass (model/bidding.py resolves it)."""
    since = g.watch.mark() if g.watch is not None else None
    entry = announce(g, a, by)
    if entry.get("queued"):
        _to_queue(g, entry)
        g.after_effect()                     # 133.2: set off by the play, before any reaction
        if g.watch is not None:
            g.watch.defer(entry, since)      # the others wait until the play is done (133.2)
    else:
        g.after_effect()                     # 133.2: set off by the play, before it comes into being
        come_into_being(g, entry)


def announce(g: Game, a: dict[str, Any], by: str) -> dict[str, Any]:
    """Everything before a card comes into being: where it is played from, the timing, who may act,
    the targets, the per-turn limits, the cost (paid whole, 4.20.3), the event `played` (it counts
    as played from now on, whether it comes into being or not, 4.21.0). Returns the queue entry."""
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
    resurrects = card.is_creature and keywords.has(g, card, "resurrection")
    if frm == "graveyard" and not (card.kind in ("instant", "sorcery") or card.has_subtype(VISION)
                                   or resurrects):
        g.refuse("4.7.6", f"{cid} cannot be played from the graveyard")
    if frm == "graveyard" and resurrects and not card.has_subtype(VISION) \
            and (st.active != player or st.phase not in MAIN_PHASES):
        g.refuse("131.8", "a resurrecting creature is played from the graveyard only in its player's main phase")
    choose_form(g, player, card, a)                     # rb7:ketfelekeppen-hasznalhato-lapok, 111.7, 99.1
    check_timing(g, player, card.kind)
    targets = list(a.get("targets") or [])
    reacting = bool(st.queue) and queue.is_reaction_card(card)
    saving = any(t in (st.turn_info.dying or ()) for t in targets)
    begin_action(g, player, life_saving=saving or reacting)                # 4.11.6; 4.23.3 exceptions
    entry: dict[str, Any] = {"kind": "card", "player": player, "card": cid, "from": frm,
                             "targets": targets, "pay": dict(a.get("pay") or {}),
                             "from_hand": frm in ("hand", "graveyard")}   # 4.22.1
    if reacting:
        answer = queue.answered(g, a.get("answers"))                      # rb7:kijatszasi-sorrend
        queue.check_answerable(g, answer, spell=queue.is_spell(card),
                               neutralization=keywords.has(g, card, "neutralization"))
        entry.update(answers=answer["id"], reaction=True, queued=True)
    elif a.get("wait"):
        entry["queued"] = True
    _check_targets(g, card, targets)
    _limits(g, player, card)
    conditions.check(g, player, card, entry["from_hand"])   # rb7:ketszinu-lapok, rb7:hegymelyi, rb7:szingularitas
    extras = _extras(g, player, cid, a.get("with"))
    pay = dict(a.get("pay") or {})
    pay_cost(g, player, stats.cost(g.state, card, g.rules), pay)        # 99.7: the cost as it is now
    conditions.fulfil(g, player, card, pay)                              # mk:5.01.C, mk:5.12.B
    conditions.note_played(g, player, entry["from_hand"])                # rb7:szingularitas
    g.emit("played", player=player, card=cid, **{"from": frm}, characteristics=spells.characteristics(card))
    if extras:
        entry["with"] = [{"card": x} for x in extras]
    return entry


def choose_form(g: Game, player: str, card, a: dict[str, Any]) -> None:
    """From the moment it is played the card is the form it is played as (`as`,
    rb7:ketfelekeppen-hasznalhato-lapok) with the mode chosen (`mode`, 111.7), model/forms.py; a
    prohibition of playing spells of its characteristics refuses it (99.1, model/spells.py)."""
    forms.choose(g, card, a.get("as"), a.get("mode"))
    spells.check_play(g, player, card)


def _extras(g: Game, player: str, cid: str, ids: Any) -> list[str]:
    """`play.with`: the further cards the played card brings into play (4.21.2): permanents of the
    player's hand, deck or graveyard."""
    if ids is None:
        return []
    if not isinstance(ids, list) or not all(isinstance(x, str) for x in ids) or repeats(ids):
        raise InputProblem("with: a list of the card ids the played card brings into play")
    st = g.state
    for x in ids:
        card = g.card(x)
        if x == cid or card.kind not in PERMANENT_KINDS:
            raise InputProblem(f"with: {x} is no further permanent the card could bring into play")
        loc = st.locate(x)
        if not loc or loc[0] != player or loc[1] not in ("hand", "deck", "graveyard"):
            g.refuse("4.21.0", f"{x} is not in {player}'s hand, deck or graveyard: the card cannot bring it "
                               "into play")
    return list(ids)


def _to_queue(g: Game, entry: dict[str, Any]) -> None:
    """4.21.1: the card (and its further cards) leave their zones for the reaction queue."""
    cid = entry["card"]
    entry["spot"] = list(lift(g, cid))
    if entry["from"] == "deck":
        shuffle_deck(g, entry["player"])                                  # 4.13.3: a search
    for extra in entry.get("with") or ():
        extra["spot"] = list(lift(g, extra["card"]))
    entry.pop("queued", None)
    queue.push(g, entry)


def come_into_being(g: Game, entry: dict[str, Any]) -> None:
    """A played card comes into being (it was not prevented): a permanent enters the table with its
    on-play abilities, a spell's effects are carried out and it goes to the graveyard. A card that
    waited on the queue comes from there (`spot`: where it was played from)."""
    st = g.state
    cid, player, frm, targets = entry["card"], entry["player"], entry["from"], entry["targets"]
    card = st.cards[cid]
    spot = tuple(entry["spot"]) if entry.get("spot") else None
    modify = entry.get("modify", 0)
    conditions.note_in_play(g, player, card)                              # rb7:szingularitas
    effects = lambda: resolve_effects(g, card, player, targets, modify=modify)    # noqa: E731
    if card.kind in PERMANENT_KINDS:
        dest = "reserve" if card.is_creature else "table"
        if spot is not None:
            put_back(g, cid, spot)
        move_card(g, cid, dest, Cause("search" if frm == "deck" else "play"), to_player=player)  # 4.13.3
        if frm == "deck" and spot is None:
            shuffle_deck(g, player)
        if card.kind in ("enchantment", "body_part") and targets and targets[0] not in PLAYERS:
            card.attached_to = targets[0]
            st.hosts_cache = None
            card.active = True                                             # 5.5.4
            keywords.refresh(g, st.cards[targets[0]],    # 128.1, 132.3, 132.5.1: granted abilities (hook)
                             drop=lambda att: move_card(g, att, "graveyard", Cause("effect")))
        if card.kind == "location":                                        # rb7:helyszin
            for other_loc in [c.id for c in st.permanents() if c.kind == "location" and c.id != cid]:
                move_card(g, other_loc, "graveyard", Cause("effect"))
        _bring_extras(g, entry)
        # hook (keywords): on-play abilities (134: life, muscle, blocking, …; 135.8; 127.0.0), then effects
        keywords.on_play(g, card, player, from_hand=entry["from_hand"], targets=targets,
                         pay=entry["pay"], effects=effects)
        open_on_play_window(g, card, player)                               # 137
    else:
        # 4.21.1: while it resolves the card is in no zone
        if spot is None:
            spot = lift(g, cid)
            if frm == "deck":
                shuffle_deck(g, player)                                    # 4.13.3: a search
        _bring_extras(g, entry)
        # hook (keywords): a spell's keyword abilities (134.6.1 blocking, 134.10 anti-magic …) with its effects
        keywords.on_play(g, card, player, from_hand=entry["from_hand"], targets=targets,
                         pay=entry["pay"], effects=effects)
        if st.locate(cid) is None:            # 4.5.2: nothing moves a card in no zone
            put_back(g, cid, spot)
            move_card(g, cid, "graveyard", Cause("resolve"))               # 4.7.1


def _bring_extras(g: Game, entry: dict[str, Any]) -> None:
    """The further cards a card brings into play come with it (not played from the hand, 4.22.2)."""
    for extra in entry.get("with") or ():
        x = extra["card"]
        if extra.get("spot"):
            put_back(g, x, tuple(extra["spot"]))
        card = g.state.cards[x]
        move_card(g, x, "reserve" if card.is_creature else "table", Cause("play"), to_player=entry["player"])
        keywords.on_play(g, card, entry["player"], from_hand=False, targets=[], pay={},
                         effects=lambda: None)


def open_on_play_window(g: Game, card, player: str) -> None:
    """137: a card whose abilities include one used at its play (`on_play: true`): until its player
    uses it or does anything else, only reactions may come (model/bidding.py)."""
    if any(ab.get("on_play") for ab in card.abilities) and g.state.on_table(card.id):
        g.state.turn_info.on_play = {"card": card.id, "player": player}


def _substitute(value: Any, targets: list[str]) -> Any:
    """"$target" → the first target, also inside nested steps (a `delay`'s `step`: its decisions are
    made when the effect is played, 114.4)."""
    if value == "$target" and targets:
        return targets[0]
    if isinstance(value, list):
        return [_substitute(v, targets) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, targets) for k, v in value.items()}
    return value


def resolve_effects(g: Game, card, player: str, targets: list[str],
                    effects: list[dict[str, Any]] | None = None, modify: int = 0,
                    disadvantage: bool = False) -> None:
    """Carry out `effects` (project field; the card's own by default): steps in the `when` form,
    with the card as `source`, its player as `by`, "$target" standing for the first target.
    `modify`: what a reaction added to the amounts of its damage and healing (never below 0).
    `disadvantage`: the effects are the card's disadvantage (hátrány), a source of its own
    (99.5.1; 134.4.8 in model/zones.py)."""
    steps = jcopy(card.effects if effects is None else effects)
    if modify:
        for step in steps:
            for verb, args in step.items():
                if verb in ("damage", "heal") and isinstance(args, dict) and isinstance(args.get("amount"), int):
                    args["amount"] = max(0, args["amount"] + modify)
    keywords.begin_source(g, player)        # hook (keywords): whose source it is, 135.2 / 135.4
    outer = g.disadvantage_of
    g.disadvantage_of = card.id if disadvantage else None
    try:
        for i, step in enumerate(steps):
            if not isinstance(step, dict) or len(step) != 1:
                raise InputProblem(f"{card.id}: an effect is a mapping with one verb, got {step!r}")
            (verb, args), = step.items()
            args = {k: _substitute(v, targets) for k, v in (args or {}).items()}
            args.setdefault("source", card.id)
            if keywords.unaffected(g, card, verb, args):   # 132.0, 132.4–132.8 immune to this source (hook)
                continue
            apply_effect(g, verb, args, player)
            g.after_effect()                            # 133.2: "immediately" abilities (model/triggers.py)
            if wait_for_answer(g, card.id, player,      # a decision opened (e.g. 4.17.2)
                               lambda: [{v: {k: _substitute(x, targets) for k, x in (a or {}).items()}}
                                        for st_ in steps[i + 1:] for v, a in st_.items()]):
                break
    finally:
        g.disadvantage_of = outer
        keywords.end_source(g)              # a penalty comes after the whole effect (rb7:buntetes)


def resume_effects(g: Game, rest: dict[str, Any]) -> None:
    """Carry out the effects of a card that waited for a decision (`pending.then`, model/engine.py)."""
    card = g.card(rest["card"])
    resolve_effects(g, card, rest["player"], [], effects=rest["effects"])


__all__ = ["play", "announce", "come_into_being", "pay_cost", "check_timing", "begin_action", "acting",
           "start_phase_record", "resolve_effects", "resume_effects", "open_on_play_window", "MAIN_PHASES"]
