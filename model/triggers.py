"""Automatic abilities: abilities that work by themselves when their condition is met.

Card data: an ability entry with `trigger: {event: NAME, field: value, …}` and `effects` is an
automatic ability (133.0); it works while its card is on the table and its abilities work (a
frozen card's do not, 119.1; a passive non-creature's do not, 5.5.8; one it lost does not). The
pattern's values may be `$self` (this card), `$controller` / `$opponent` (the card's controller /
the other player); the effects may name those too, and `$card`, `$target`, `$player` (the
event's fields).

Clauses covered
---------------
* 133.0: it works whatever the players want, when its condition is met; its working is a related
  effect of the action that set it off (4.24.0) — 4.24.1: no action of its own (who acts first,
  4.11.6, and the alternation of hkk-case/2 do not apply to it).
* 133.1, 136.0, 4.24.3.0, 135.7.1: an automatic ability has no cost; an entry with `trigger` and a
  `cost` is an *activated* related effect: its controller decides whether to pay and use it (a
  pending decision `use`, default: not used).
* 133.2 (`immediately: true`): it does not wait for the action that set it off, nor for its other
  related effects, nor for reactions: it is carried out at once (after the effect that met its
  condition, before anything else), even if the card whose play set it off is later prevented.
  Without `immediately` it comes when the action's own effects are done (docs/engine-semantics.md):
  for a play or activation that waits on the reaction queue, once that entry has resolved or been
  prevented (right after it, before the next entry); what an automatic ability's effects set off
  comes in turn.
* 4.24.3.1: the activated related effects come after every automatic one; 4.24.3.3: alternately,
  first the player who has the right to act (the active player); 4.24.3.4: a player who has none
  left does not stop the other from using several in a row.
* 4.10.4: the active player orders what happens at once in their turn: two or more automatic
  abilities set off together are a pending decision `order` of the active player (default: the
  order their cards came into play, 102.3; an ability set off twice keeps its settings-off in the
  order they came).
* 133.3: automatic effects are automatic abilities and disadvantages (`disadvantage: true`): the
  same rules.
* 133.4: an automatic effect forgotten by the players (`forgotten: [card or card#index]` on the step
  that set it off) may be made up until the end of the turn (`make_up`), except an automatic
  reaction, which is lost.
* 132.16, 137.3: an automatic ability that prevents (or is `reaction: true`) is an automatic
  reaction: set off by a card or ability going on the reaction queue, it goes on the queue as a
  reaction to it, with every property of its card (a spell's automatic reaction is a reaction spell).
"""
from __future__ import annotations

from itertools import zip_longest
from typing import Any

from . import activation_costs, delayed, keywords, queue, stats
from .errors import InputProblem, Refusal
from .game import Game
from .state import PLAYERS, TABLE_ZONES, Card, jcopy, other

MAX_FIRINGS = 64            # automatic abilities set off within one step: more is a loop of the case


def _label(cid: str, idx: int) -> str:
    return f"{cid}#{idx}"


class Watch:
    """The automatic abilities of one step: what the events set off, carried out at the right time."""

    def __init__(self, g: Game, forgotten: Any = None):
        self.g = g
        self.now: list[dict[str, Any]] = []        # immediately (133.2)
        self.due: list[dict[str, Any]] = []        # when the action's own effects are done
        self.fired = 0
        if forgotten is not None and (not isinstance(forgotten, list)
                                      or not all(isinstance(x, str) for x in forgotten)):
            raise InputProblem("forgotten: a list of card ids or card#index of automatic abilities")
        self.forgotten = set(forgotten or ())

    # -- noticing ---------------------------------------------------------
    def saw(self, ev: dict[str, Any]) -> None:
        st = self.g.state
        if ev["event"] in ("triggered", "missed", "made_up"):   # the records: they set off nothing
            return
        if st.delayed:
            self._delayed(ev)
        if not st.trigger_cards:
            return
        for cid in sorted(st.trigger_cards, key=lambda c: (st.cards.peek(c).timestamp, c)):
            card = st.cards.peek(cid)
            controller = _controller(st, card, ev)
            if controller is None or stats.frozen(card) or (not card.is_creature and not card.active
                                                            and st.on_table(cid)):
                continue
            for idx, ab in enumerate(card.abilities):
                trig = ab.get("trigger")
                if not isinstance(trig, dict) or not _matches(trig, ev, cid, controller):
                    continue
                if ab.get("keyword") and _lost(self.g, card, ab["keyword"]):
                    continue
                rec = {"card": cid, "ability": idx, "player": controller, "event": dict(ev)}
                if cid in self.forgotten or _label(cid, idx) in self.forgotten:
                    self._forget(rec, ab)
                elif ab.get("immediately"):
                    self.now.append(rec)
                else:
                    self.due.append(rec)

    def _delayed(self, ev: dict[str, Any]) -> None:
        """114.2: a delayed resource waiting for this event is set off — once: it leaves the state's
        list now, and comes when the action is done, like an ordinary automatic ability."""
        st = self.g.state
        for item in delayed.waiting(st):
            if _matches(item["trigger"], ev, item.get("source"), item["by"]):
                st.delayed.remove(item)
                self.due.append({"delayed": item, "player": item["by"], "event": dict(ev)})

    def _forget(self, rec: dict[str, Any], ab: dict[str, Any]) -> None:
        """133.4: nobody noticed it; it may be made up this turn — an automatic reaction may not."""
        st = self.g.state
        reaction = queue.is_reaction_ability(ab)
        self.g.emit("missed", card=rec["card"], ability=rec["ability"], player=rec["player"],
                    lost=True if reaction else None, clause="133.4")
        if not reaction:
            st.missed.append({"card": rec["card"], "ability": rec["ability"], "player": rec["player"],
                              "event": rec["event"]})

    # -- carrying out -----------------------------------------------------
    def run_immediate(self) -> None:
        """133.2: the "immediately" abilities set off so far, in order. One set off by an effect of
        a running ability waits for nothing ("sem az esetleges többi kapcsolódó hatásra"): it comes
        right after that effect, before the ability's next one (each ability gathers what its own
        effects set off in a list of its own); those set off together with it wait for it."""
        while self.now:
            rec = self.now.pop(0)
            outer, self.now = self.now, []
            try:
                fire(self.g, rec, self)
                self.run_immediate()
            finally:
                self.now = outer + self.now

    def run_due(self) -> None:
        """The end of an action: the automatic abilities it set off, in the order the active player
        decides when several (4.10.4), then the activated related effects (4.24.3.1) — and then
        those that these set off in turn (133.0: whenever the condition is met), until none is left
        or a decision waits (what is set off meanwhile then waits for it too)."""
        st = self.g.state
        self.run_immediate()
        while self.due and st.pending is None:
            due, self.due = self.due, []
            automatic = [r for r in due if not _cost(self.g, r)]
            activated = _alternately([r for r in due if _cost(self.g, r)], st.active)
            if len(automatic) > 1:
                _ask_order(self.g, automatic, activated)
                return
            run_list(self.g, automatic + activated, self)
            self.run_immediate()
        if self.due and st.pending is not None:
            st.pending.setdefault("then_triggers", []).extend(self.due)
            self.due = []

    # -- the reaction queue -----------------------------------------------
    def mark(self) -> int:
        """Where an announcement (a play, an activation) begins among the abilities due."""
        return len(self.due)

    def defer(self, entry: dict[str, Any], since: int) -> None:
        """133.2, 4.23.5: the ordinary automatic abilities set off by announcing `entry` (its costs,
        `played`, `queued`) wait until it has resolved or been prevented: the action is done then.
        Automatic reactions do not wait: they answer it while it waits (132.16)."""
        waiting = [r for r in self.due[since:] if "delayed" in r
                   or not queue.is_reaction_ability(_ability(self.g, r))]
        if waiting:
            self.due[since:] = [r for r in self.due[since:] if r not in waiting]
            entry.setdefault("after", []).extend(waiting)

    def entry_done(self, entry: dict[str, Any]) -> None:
        """An entry of the queue has resolved or been prevented: what its announcement and its
        resolution set off comes now, before the next entry (docs/spec/hkk-reactions.md)."""
        self.due[0:0] = entry.pop("after", None) or []
        self.run_due()


def _alternately(activated: list[dict[str, Any]], active: str) -> list[dict[str, Any]]:
    """4.24.3.3: the players use the activated related effects of an action alternately, the one
    who has the right to act (the active player) first; 4.24.3.4: one who has none left does not
    stop the other from using several in a row."""
    mine = [r for r in activated if r["player"] == active]
    theirs = [r for r in activated if r["player"] != active]
    return [r for pair in zip_longest(mine, theirs) for r in pair if r is not None]


def _ask_order(g: Game, automatic: list[dict[str, Any]], later: list[dict[str, Any]]) -> None:
    """4.10.4: the active player decides the order of the automatic abilities set off together;
    the options (and the default) in the order their cards came into play (102.3), an ability set
    off more than once keeping the order of its settings-off."""
    st = g.state
    automatic = sorted(automatic, key=lambda r: _since(st, r))
    labels = [_rec_label(r) for r in automatic]
    active = st.active
    st.pending = {"player": active, "choice": "order", "options": labels, "count": len(labels),
                  "step": {"_order_triggers": {"due": jcopy(automatic), "later": jcopy(later)}},
                  "by": active, "default": labels}
    g.emit("decision_pending", player=active, choice="order", count=len(labels), clause="4.10.4")


def run_list(g: Game, records: list[dict[str, Any]], watch: Watch | None = None) -> None:
    for n, rec in enumerate(records):
        if g.state.pending is not None:                  # a decision opened: the rest waits for it
            g.state.pending.setdefault("then_triggers", []).extend(records[n:])
            return
        fire(g, rec, watch)


def order_triggers(g: Game, a: dict[str, Any], by: str) -> None:
    """`_order_triggers` (completed by `choose: {value: [labels in order]}`): 4.10.4."""
    due = list(a["due"])
    labels = [_rec_label(r) for r in due]
    value = a.get("value", labels)
    if not isinstance(value, list) or sorted(map(str, value)) != sorted(labels):
        g.refuse("4.10.4", f"the order names each of {labels} once")
    ordered = []
    for v in value:                     # a label named twice: its settings-off in the order they came
        n = labels.index(v)
        labels[n] = None
        ordered.append(due[n])
    run_list(g, ordered + list(a.get("later") or []), g.watch)


def fire(g: Game, rec: dict[str, Any], watch: Watch | None = None) -> None:
    """Carry out one automatic ability (or delayed resource, 114.2) that its event set off."""
    st = g.state
    if watch is not None:
        watch.fired += 1
        if watch.fired > MAX_FIRINGS:
            raise InputProblem(f"{_rec_label(rec)}: automatic abilities set each other off more than "
                               f"{MAX_FIRINGS} times in one step (a loop)")
    if "delayed" in rec:
        delayed.arrive(g, rec["delayed"])
        return
    card = st.cards.peek(rec["card"])
    ab = _ability(g, rec)
    g.emit("triggered", card=card.id, ability=rec["ability"], keyword=ab.get("keyword"),
           player=rec["player"], clause="133.2" if ab.get("immediately") else "133.0")
    effects = _bind(ab.get("effects") or [], rec)
    if queue.is_reaction_ability(ab):
        _react(g, card, rec, ab, effects)
        return
    if ab.get("cost"):
        st.pending = {"player": rec["player"], "choice": "use", "options": [True, False],
                      "card": card.id, "ability": rec["ability"], "cost": dict(ab["cost"]),
                      "step": {"_use_related": {"rec": jcopy(rec), "effects": effects}},
                      "by": rec["player"], "default": False}
        g.emit("decision_pending", player=rec["player"], choice="use", card=card.id, clause="4.24.3.0")
        return
    _carry_out(g, card, rec["player"], effects, bool(ab.get("disadvantage")))


def use_related(g: Game, a: dict[str, Any], by: str) -> None:
    """`_use_related` (completed by `choose: {value: true|false}`): 4.24.3.0 — pay and use it, or not."""
    rec = a["rec"]
    value = a.get("value", False)
    if not isinstance(value, bool):
        g.refuse("4.24.3.0", "an activated related effect is answered with value: true (use it) or false")
    if not value:
        return
    from .play import pay_cost
    card = g.state.cards.peek(rec["card"])
    ab = _ability(g, rec)
    pay_cost(g, rec["player"], activation_costs.cost(g, card, ab), {}, card)
    _carry_out(g, card, rec["player"], a["effects"])


def make_up(g: Game, a: dict[str, Any], by: str) -> None:
    """`make_up: {player, card, ability}` (133.4): a forgotten automatic effect is carried out now."""
    st = g.state
    player = a.get("player", by)
    if player not in PLAYERS:
        raise InputProblem(f"player: unknown player {player!r}")
    cid, ability = a.get("card"), a.get("ability")
    g.peek(cid)
    for n, m in enumerate(st.missed):
        ab = st.cards.peek(m["card"]).abilities[m["ability"]]
        if m["card"] == cid and m["player"] == player and (
                ability is None or ability == m["ability"] or ability == ab.get("keyword")):
            st.missed.pop(n)
            g.emit("made_up", card=cid, ability=m["ability"], player=player, clause="133.4")
            fire(g, m, g.watch)
            return
    g.refuse("133.4", f"no forgotten automatic effect of {cid} waits to be made up by {player} this turn "
                      "(an automatic reaction never does)")


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def _ability(g: Game, rec: dict[str, Any]) -> dict[str, Any]:
    return g.state.cards.peek(rec["card"]).abilities[rec["ability"]]


def _cost(g: Game, rec: dict[str, Any]) -> Any:
    """The cost of what was set off: an activated related effect's (4.24.3.0); an automatic ability
    (133.1) and a delayed resource have none."""
    return None if "delayed" in rec else _ability(g, rec).get("cost")


def _rec_label(rec: dict[str, Any]) -> str:
    """How an `order` decision names what was set off: `card#index`, or a delayed resource's id."""
    return rec["delayed"]["id"] if "delayed" in rec else _label(rec["card"], rec["ability"])


def _since(st, rec: dict[str, Any]) -> int:
    """102.3: when it came into play — its card, or the delayed resource when it was set up."""
    return rec["delayed"]["created"] if "delayed" in rec else st.cards.peek(rec["card"]).timestamp


def _controller(st, card: Card, ev: dict[str, Any]) -> str | None:
    """The player whose automatic ability it is now: its card's controller on the table; a card that
    this very event takes off the table still sees it (its leaving sets it off)."""
    ctrl = st.controller(card.id)
    if ctrl is not None:
        return ctrl
    if ev.get("card") == card.id and ev.get("from") in TABLE_ZONES and ev["event"] == "moved":
        return ev.get("from_player")
    return None


def _lost(g: Game, card: Card, keyword: str) -> bool:
    from . import continuous
    return continuous.any_in_force(g.state) and not keywords.has(g, card, keyword) \
        and any(ab.get("keyword") == keyword for ab in card.abilities)


def _matches(trig: dict[str, Any], ev: dict[str, Any], cid: str, controller: str) -> bool:
    for k, want in trig.items():
        if want == "$self":
            want = cid
        elif want == "$controller":
            want = controller
        elif want == "$opponent":
            want = other(controller)
        if ev.get(k) != want:
            return False
    return True


def _bind(effects: list[dict[str, Any]], rec: dict[str, Any]) -> list[dict[str, Any]]:
    """The effects with `$card`, `$target`, `$player` standing for the event's fields, `$self` for
    the ability's card, `$controller` / `$opponent` for its controller and the other player."""
    ev = rec["event"]
    names = {"$card": ev.get("card"), "$target": ev.get("target"), "$player": ev.get("player"),
             "$self": rec["card"], "$controller": rec["player"], "$opponent": other(rec["player"])}

    def sub(v: Any) -> Any:
        if isinstance(v, str) and v in names:
            return names[v]
        if isinstance(v, list):
            return [sub(x) for x in v]
        if isinstance(v, dict):
            return {k: sub(x) for k, x in v.items()}
        return v
    return [sub(s) for s in jcopy(effects)]


def _carry_out(g: Game, card: Card, player: str, effects: list[dict[str, Any]],
               disadvantage: bool = False) -> None:
    from .play import resolve_effects
    resolve_effects(g, g.state.cards[card.id], player, [], effects, disadvantage=disadvantage)


def _react(g: Game, card: Card, rec: dict[str, Any], ab: dict[str, Any],
           effects: list[dict[str, Any]]) -> None:
    """An automatic reaction (132.16, 137.3): it answers the entry whose going on the queue set it
    off, as a reaction with its card's properties."""
    st = g.state
    target = queue.entry_of(st, rec["event"].get("entry")) if rec["event"].get("entry") else None
    verb = next(iter(effects[0])) if effects and isinstance(effects[0], dict) else "prevent"
    if target is None:
        g.emit("effect_prevented", verb=verb, clause="4.21.1", source=card.id)
        return
    try:
        queue.check_answerable(g, target, spell=queue.is_spell(card),
                               neutralization=keywords.has(g, card, "neutralization"))
    except Refusal as no:                # its effect does nothing; the effects of a card name it
        g.emit("effect_prevented", verb=verb, clause=no.clause, source=card.id)     # as `source`
        return
    watch = g.watch                      # an automatic reaction is hkk-case/2's: its steps have a watch
    since = watch.mark()
    entry = queue.push(g, {"kind": "trigger", "player": rec["player"], "card": card.id,
                           "ability": rec["ability"], "keyword": ab.get("keyword"), "targets": [],
                           "effects": effects, "answers": target["id"], "reaction": True})
    watch.defer(entry, since)


__all__ = ["Watch", "fire", "order_triggers", "use_related", "make_up", "run_list", "MAX_FIRINGS"]
