"""The closed vocabularies of `hkk-case/1`, from one source.

docs/spec/hkk-vocabulary.md documents every entry listed here (checked by
tests/test_spec_docs.py). This module holds, as data:

* ``KINDS``: card kinds (from the engine's ``model.state.KINDS``);
* ``KEYWORDS``: keyword abilities with the fields each reads; ``ACTIVATED_FIELDS``
  and ``TIMED_FIELDS`` that any ability entry may carry; ``KEYWORD_ALIASES``
  (the engine's other spellings, which ``kodex check`` rejects naming the
  canonical keyword); ``IMMUNITY_TO``, ``TIMINGS``;
* ``COUNTERS``: the counters the Kódex lists (117.0–127.2) plus the project's
  ``strength``/``weakness``; a counter the kit does not know is written with
  the prefix ``x-`` (``EXTENSION_PREFIX``), does nothing by itself (117.2);
* ``EVENTS``: events with their fields and the fields an implementation must
  carry;
* ``MOVE_CAUSES``: the values of ``moved.cause`` and ``MOVE_CAUSE_BY_VERB``;
* (the refusal clauses per verb and situation are the refusal table's,
  conformance/refusals.yaml; ``python -m conformance.vocabulary`` writes its page,
  docs/spec/hkk-refusals.md, with the others);
* ``CARD_FIELDS``, ``RETURNED_CARD_FIELDS``, ``PLAYER_FIELDS``, ``THEN_FIELDS``:
  the field names of a card, a player and ``then``.

It is used in two ways:

1. ``python -m conformance.vocabulary`` regenerates the vocabulary parts of the
   JSON Schema (``conformance/schema/hkk-case-1.schema.json``) and
   docs/spec/hkk-vocabulary.md; tests check both committed files equal
   :func:`generated_schema` / :func:`render_doc` (``--check`` tells).
2. :func:`check_case` is called by the loader: an unknown keyword, counter, card
   kind, event, event field, card field or player field is an input error with a
   did-you-mean; an alias is an input error naming the canonical name.
"""
from __future__ import annotations

import copy
import difflib
import functools
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from model.state import ICONS
from model.state import KEYWORD_ALIASES as _ENGINE_ALIASES
from model.state import KINDS as _ENGINE_KINDS
from model.state import SKIPPABLE as SKIPPABLE_PHASES

from conformance.verbs import (ALL_VERBS, ELEMENTS, FORMATS, MOVE_DESTINATIONS, PHASES, ZONES,  # noqa: F401
                               step_args_schema, verbs_of)

from conformance.verbs import SKIPPABLE as _VERB_SKIPPABLE
assert _VERB_SKIPPABLE == SKIPPABLE_PHASES, "model.state.SKIPPABLE changed: update conformance/verbs.py"

SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "hkk-case-1.schema.json"
EXTENSION_PREFIX = "x-"

# --------------------------------------------------------------------------
# card kinds

KINDS: dict[str, str] = {
    "creature": "lény: stands in the reserve or guard post; has Sebzés (`damage`) and Ép (`hp`)",
    "instant": "azonnali varázslat: played in any phase but preparation and draw; resolves, then to the graveyard",
    "sorcery": "általános varázslat: played in the player's own main phases; resolves, then to the graveyard",
    "enchantment": "bűbáj: a permanent on `table`; with targets it sits on the first (`attached_to`)",
    "item": "tárgy: a permanent on `table`",
    "building": "építmény: a permanent on `table`, enters passive; `hp` is its SP",
    "skill": "képzettség: a permanent on `table`",
    "body_part": "testrész: a permanent on `table`; with targets it sits on the first (`attached_to`)",
    "location": "helyszín: a permanent on `table`",
}
assert tuple(KINDS) == tuple(_ENGINE_KINDS), "model.state.KINDS changed: update KINDS"

# --------------------------------------------------------------------------
# keyword abilities


@dataclass(frozen=True)
class Keyword:
    fields: tuple[str, ...]
    clause: str
    meaning: str


IMMUNITY_TO: dict[str, str] = {
    "fire": "132.9: damage of that element is 0", "ice": "132.9", "acid": "132.9",
    "lightning": "132.9",
    "poison": "132.3: no poison counter; those on it fall off",
    "combat_abilities": "132.10: direct damage has no effect on it",
    "magic": "132.4: spells — instants, sorceries and enchantments — do not affect it; enchantments on it fall off (132.5.1), except the card that gives the immunity",
    "source": "132.5: no card affects it; enchantments on it fall off (132.5.1), except the card that gives the immunity",
    "enchantment": "132.6: no enchantment is put on it; those it is immune to fall off (132.5.1), except the card that gives the immunity",
    "instant_sorcery": "132.7: instants and sorceries do not affect it",
    "mental": "132.8: spells of subtype `mentalis` do not affect it",
}
TIMINGS = ("instant", "main", "preparation")

KEYWORDS: dict[str, Keyword] = {
    "life": Keyword(("x",), "134.4", "X life counters when played from the hand for its cost (a resurrection from the graveyard counts, 4.22.1); `x` absent: 1"),
    "muscle": Keyword(("x",), "134.5", "`play.pay.muscle: [ids]`: at most X cards of the hand into the Void; that many muscle counters on the creature"),
    "blocking": Keyword(("x",), "134.6", "on a successful play from the hand the opponent's maximum VP −X (never below 0)"),
    "anti_blocking": Keyword(("x",), "134.9", "on a successful play from the hand the player's own maximum VP +X"),
    "anti_magic": Keyword(("x",), "134.10", "after the card's other on-play effects every player discards X spells: the playing player into the Void, the other into the graveyard; the playing player first"),
    "anti_neutralization": Keyword(("x",), "134.15", "as `anti_magic`, with the cards of the hand that have `neutralization`"),
    "seduction": Keyword(("x",), "134.14", "with `targets: [creature]` of summoning cost ≤ X the creature is stolen (the cost as one number: VP + szörnykomponens + builders + Nekron, each sacrifice 3, or 1 for an item or building: rb7:lapaldozas); a target immune to the source is not stolen (132.5, `effect_prevented`); without a target a strength counter on the card"),
    "recycling": Keyword(("x",), "135.8", "`play.pay.recycle: [ids]`: at most X cards of one graveyard shuffled into their owners' decks; 1 Ép healed per card"),
    "poison": Keyword(("x",), "135.1", "a strike of the creature on a creature puts X poison counters on it; `x` absent: 1"),
    "penalty": Keyword(("hp", "vp"), "135.2", "when the card leaves play or its owner's control by a player's source, that player is damaged `hp` and loses `vp`"),
    "compensation": Keyword(("hp", "vp"), "135.4", "when the opponent's source does it, the card's controller heals `hp` and gains `vp`"),
    "regeneration": Keyword(("x",), "136.6", "activated by the controller after the creature is damaged (`activate: {ability: regeneration, x: n}`): heals n Ép for X VP per Ép (136.6; `x` absent: 1), at most 4 a turn (136.7); a life-saving action"),
    "shadow": Keyword(("cost",), "136.9", "activated: pays `cost`; the creature goes back to its owner's hand (not leaving play for related effects)"),
    "direct_damage": Keyword(("x", "element", "cost_kinds"), "129", "combat ability: `activate` with `x: n` (0 ≤ n ≤ X; `x` absent: X = 0) pays n VP (or the kind `cost_kinds` names first; with several, `activate.pay` mixes them, 129.4) and deals n to the creature or player the card fights"),
    "immunity": Keyword(("to",), "132.0", "immune to what `to` names (see the immunity table)"),
    "poison_immunity": Keyword((), "132.3", "the same as `{keyword: immunity, to: poison}`"),
    "undamageable": Keyword((), "132.12", "damage to it is always 0"),
    "untargetable": Keyword((), "132.11", "refused as a target of a card or an ability"),
    "unaffected_by": Keyword(("counter",), "132.13", "that counter may lie on the card but does nothing"),
    "no_counters": Keyword((), "117.0", "no counter can be put on it, except its own delay / temporary counters (127.0.7)"),
    "grant": Keyword(("abilities",), "128.1", "on a card sitting on another (`attached_to`): the host has these abilities as its own"),
    "flying": Keyword((), "131.5", "enters play active (131.6); attacks and blocks by the flying rules"),
    "magic_attack": Keyword((), "131.1", "may deal damage in the strike to a creature with `magic_defense`"),
    "magic_defense": Keyword((), "131.1", "a creature without `magic_attack` deals it 0 in the strike"),
    "invisibility": Keyword((), "131.3", "may attack the player or a building past the guard post while no `see_invisible` creature guards"),
    "see_invisible": Keyword((), "131.4", "in the guard post: invisible attackers must attack like the others"),
    "resurrection": Keyword((), "131.8", "may be played from the graveyard (`play.from: graveyard`)"),
    "no_control_change": Keyword((), "131.10", "its controller cannot change"),
    "uncopyable": Keyword((), "131.11", "Nem másolható: no copy of the card is made (`copy`) and its abilities are not copied even in part (`copy_abilities`); works in the graveyard, hand and deck too ([hkk-cards.md](hkk-cards.md#copies-copy-and-copy_abilities-13111))"),
    "anchor": Keyword((), "4.14.4", "Horgony / Nem lehet (kézbe) visszavenni: the card can in no way be returned from the table to a hand — by an effect (`move` to `hand`: `effect_prevented`), a cost or its own shadow (refused); an ability (a `lose` or a freeze counter takes it) that works while the card is passive, on buildings too (rb7:horgony)"),
    "guardian": Keyword((), "rb7:orzo", "Őrző: while a creature with it is in play (either player's, active or passive), no player may be chosen as a target of a damaging instant or sorcery (`play` refused)"),
    "exiling": Keyword(("x", "cost"), "4.16.4", "Semmizés: X — activated (`activate` with `cards: [ids]`): at most X cards of one graveyard into the Void (exiled, 4.16.0); pays `cost`; `x` required"),
    "reward": Keyword(("hp",), "rb7:jutalom", "Jutalom: when the card leaves play (to the hand too) or its owner's control by the opponent's source, that opponent heals `hp` (not in combat, by poison or a weakness counter; its own controller's source: nothing); always a disadvantage: a `lose` does not take it"),
    "neutralization": Keyword((), "134.15", "marks a card as a neutralizer: as a reaction its play, and a reaction ability of it, is a neutralization, which anti-neutralization bars; anti-neutralization makes players discard such cards"),
}
# fields any ability entry may carry: 127.0.0 delay / temporary
TIMED_FIELDS = ("delay", "temporary")
# an activated ability of the card's own (136, 137): any keyword not listed above, with `effects`
ACTIVATED_FIELDS = ("cost", "effects", "timing", "per_turn", "needs_target", "common")
ABILITY_FIELD_MEANING: dict[str, str] = {
    "keyword": "the ability's name",
    "x": "the ability's number X (a non-negative integer)",
    "hp": "Ép (a non-negative integer)",
    "vp": "VP (a non-negative integer)",
    "to": "what the card is immune to (immunity table)",
    "counter": "a counter name",
    "element": "`fire`, `ice`, `acid` or `lightning`",
    "abilities": "a list of ability entries",
    "cost": "the cost: the keys of a card's `cost`, and `passivate: true` (the card turns passive)",
    "effects": "steps in the `when` form, carried out with the card as `source`; `\"$target\"` is the first target",
    "timing": "`instant` (default), `main` or `preparation`",
    "per_turn": "how many times a turn at most (absent: no limit)",
    "needs_target": "`true`: cannot be activated without `targets`",
    "common": "`true`: any player may use it, paying its cost (137.4)",
    "delay": "X delay counters when played; works once none is left (127.1)",
    "temporary": "X temporary counters when played; works while one is left (127.2)",
    "cost_kinds": "`direct_damage`: the kinds of its cost, `vp` (the default) and / or `components`, the first paying when `activate.pay` is absent; with several, `activate.pay: {vp: n, components: m}` mixes them (129.3, 129.4)",
}
KEYWORD_ALIASES: dict[str, str] = dict(_ENGINE_ALIASES)
assert set(KEYWORD_ALIASES.values()) <= set(KEYWORDS), "an alias names an unknown keyword"
assert not set(KEYWORD_ALIASES) & set(KEYWORDS)

# --------------------------------------------------------------------------
# counters


@dataclass(frozen=True)
class Counter:
    clause: str
    meaning: str


COUNTERS: dict[str, Counter] = {
    "poison": Counter("121.1", "creatures only; one more in each of its controller's preparation phases; at least as many as its current Ép: to the graveyard"),
    "sleep": Counter("118.1", "creatures only; at once passive into its controller's reserve; no activation; one comes off each preparation phase (118.3)"),
    "freeze": Counter("119.1", "the card's own abilities do not work; one comes off each preparation phase (119.3)"),
    "life": Counter("134.4", "creatures only; one is removed instead of the creature leaving play or changing controller (134.4.0–134.4.8)"),
    "muscle": Counter("124.1", "creatures only; +1/+1 each; when it leaves, a reward per counter (124.2–124.6)"),
    "aging": Counter("123.1", "creatures only: kept off a building by 123.2, off any other non-creature by 117.0 (`counter_prevented`); −1/−1 each"),
    "level": Counter("125.2", "adventurers only (subtype `kalandozo`, 125.1); +1/+1 each"),
    "delay": Counter("127.1", "one comes off each preparation phase while the card's abilities work; its `delay` abilities work once none is left"),
    "temporary": Counter("127.2", "one comes off each preparation phase while the card's abilities work; its `temporary` abilities work while one is left"),
    "fading": Counter("122.1", "one more each preparation phase; at least the card's summoning cost: to the graveyard"),
    "strength": Counter("117.3", "project reading: +1/+1 each"),
    "weakness": Counter("117.4", "project reading: −1/−1 each"),
}

# --------------------------------------------------------------------------
# events


@dataclass(frozen=True)
class Event:
    fields: tuple[str, ...]          # every field it may carry
    required: tuple[str, ...]        # the fields an implementation must carry
    meaning: str


def _ev(fields: str, required: str | None, meaning: str) -> Event:
    f = tuple(fields.split())
    r = tuple((required if required is not None else fields).split())
    assert set(r) <= set(f)
    return Event(f, r, meaning)


EVENTS: dict[str, Event] = {
    "moved": _ev("card from to from_player to_player counts_as cause", "card from to cause",
                 "a card changed place; `from`/`to` are zone names (`to` may be `removed`; `from` is `created` for a new card); `counts_as` where a rule says it counts as another zone (4.16.2, 4.15.1)"),
    "removed_from_game": _ev("card clause", None, "the card left the game (premade 96.8, standalone token rb7:jelzo)"),
    "created": _ev("card player zone", None, "a card came into being (96.6)"),
    "played": _ev("player card from characteristics", "player card", "a card was played (its cost paid); an instant or sorcery carries its `characteristics` (111, [hkk-cards.md](hkk-cards.md#spell-characteristics-111))"),
    "drew": _ev("player card", None, "a draw (4.12); not for the opening hand"),
    "discarded": _ev("player card to", None, "a card discarded from the hand (4.17)"),
    "milled": _ev("player card to", None, "a card milled from the deck (4.18, 4.13.2)"),
    "exiled": _ev("card player to", "card player", "a card exiled from a graveyard to the Void (4.16)"),
    "shuffled": _ev("player", None, "the player's deck was shuffled"),
    "hand_revealed": _ev("player cards clause", "player cards", "the hand was shown (134.11; never with X = 0, 134.12)"),
    "sacrificed": _ev("player card forced", None, "a permanent sacrificed; `forced` true for kényszerített áldozás (104)"),
    "died": _ev("card", None, "a creature was destroyed"),
    "destroyed": _ev("card", None, "a building was destroyed"),
    "dying": _ev("card", None, "a creature reached 0 Ép by damage; a life-saving action may still save it"),
    "saved": _ev("card", None, "a dying creature was saved"),
    "life_counter_used": _ev("card", None, "a life counter was removed instead of the creature leaving (134.4)"),
    "damaged": _ev("target amount element source", "target amount", "damage dealt (`amount` after prevention)"),
    "damage_prevented": _ev("target amount element clause", "target amount", "damage that a rule made 0"),
    "healed": _ev("target amount", None, "Ép actually gained"),
    "wounds_healed": _ev("card", None, "a card's wounds vanished (end of turn)"),
    "hp_excess_lost": _ev("player amount", None, "Ép above the maximum, lost (3.18)"),
    "vp_excess_lost": _ev("player amount", None, "VP above the maximum, lost (3.18)"),
    "vp_gained": _ev("player amount", None, "VP actually gained"),
    "vp_lost": _ev("player amount", None, "VP destroyed (115.0)"),
    "vp_spent": _ev("player amount", None, "VP paid as a cost"),
    "components_gained": _ev("player amount from", "player amount", "szörnykomponens gained; `from` the creature that yielded them"),
    "components_lost": _ev("player amount", None, "szörnykomponens destroyed (115.0)"),
    "components_spent": _ev("player amount", None, "szörnykomponens paid as a cost"),
    "max_hp_changed": _ev("player delta value", None, "the maximum Ép changed by `delta` to `value`"),
    "max_vp_changed": _ev("player delta value", None, "the maximum VP changed by `delta` to `value`"),
    "hp_sacrificed": _ev("player amount", None, "Ép sacrifice (103)"),
    "max_hp_sacrificed": _ev("player amount", None, "maximum-Ép sacrifice"),
    "counter_added": _ev("card counter count clause", "card counter count", "counters put on a card"),
    "counter_removed": _ev("card counter count clause", "card counter count", "counters taken off a card"),
    "counter_prevented": _ev("card counter count clause", "card counter clause", "counters a rule kept off the card"),
    "control_changed": _ev("card from to", None, "a permanent changed controller (5.6.2)"),
    "passivated": _ev("card", None, "an active permanent turned passive"),
    "activated": _ev("card", None, "a passive permanent turned active"),
    "ability_activated": _ev("card ability player", None, "an activated ability was used"),
    "abilities_copied": _ev("card source abilities", "card source", "the permanent `card` got the abilities of `source` (`copy_abilities`, 131.11); `abilities` their keywords"),
    "combat_ability": _ev("card target amount element", "card target amount", "a combat ability was used (129)"),
    "attack_declared": _ev("attacker target", None, "an attack"),
    "strike_back_chosen": _ev("defender attacker player", None, "the defender's choice of whom it strikes back"),
    "strike": _ev("attacker target amount back", "attacker target amount", "a strike in combat; `back: true` for a strike back"),
    "muscle_reward": _ev("card player draw vp", None, "the reward for muscle counters (124.2–124.6): `draw` cards and `vp` VP"),
    "penalty": _ev("card player hp vp", "card player", "a penalty (135.2)"),
    "compensation": _ev("card player hp vp", "card player", "a compensation (135.4)"),
    "reward": _ev("card player hp", "card player", "a reward (rb7:jutalom): `player` heals `hp`"),
    "phase_skipped": _ev("phase player", None, "a phase of the active player's turn did not take place (4.10.7): the turn passed over it"),
    "recycled": _ev("card player count", None, "recycling (135.8)"),
    "effect_prevented": _ev("verb clause card target player source", "clause",
                            "an effect, or part of it, that a rule stopped (4.24.2); the effect did what it could, the steps after it still apply; which of `card`, `target`, `player`, `source` it carries: [hkk-rules.md](hkk-rules.md#actions-and-effects); the clause per situation: [hkk-refusals.md](hkk-refusals.md)"),
    "decision_pending": _ev("player choice count clause card", "player choice", "the game waits for a `choose`"),
    "conflict_resolved": _ev("winner clause policy unresolved target subject losers", "",
                             "a conflict of effects resolved (102 / mk:5.10): by `resolve_conflict`, or by the engine when a step brings about (or changes the outcome of) a contradiction of effects in force — then `target` (the card or player), `subject` (`number:<name>`, `ability:<keyword>`, `action:<name>`, `replace:<event>`) and `losers` (ids); `winner` and `clause` when the order decides, `unresolved: true` and neither when it leaves them tied: what each origin carries is in [hkk-effects.md](hkk-effects.md#numbers-how-sebzés-and-maximum-ép-are-computed)"),
    "replaced": _ev("verb target card effect clause", "verb target card",
                    "an effect was replaced (mk:5.12.B): `verb` the event replaced, `target` whom it would have happened to, `card` the replacing card, `effect` the entry's id"),
    "effect_started": _ev("effect source affects", "effect", "a timed effect came into being (99.4); `affects` what it reaches (99.5)"),
    "effect_ended": _ev("effect", None, "a timed effect ended (99.4)"),
    "resource_delayed": _ev("effect at player", "effect at", "a delayed resource was set up (114); one that comes on an event (hkk-case/2) carries `trigger`, its pattern, instead of `at`"),
    "resource_arrived": _ev("effect player", "effect", "a delayed resource came: its step follows (114.1)"),
    "repeated": _ev("card clause", "card", "the effects of a card were repeated (106)"),
    "combat_step": _ev("step", None, "the combat moved to a sub-phase (rb7:harci-fazis I–VII)"),
    "passed": _ev("player phase", None, "a player passed (4.11.7)"),
    "turn_started": _ev("player turn", None, "a turn began; `turn` is the player's own-turn count"),
    "phase_started": _ev("phase player", None, "a phase began"),
    "phase_ended": _ev("phase player", None, "a phase ended"),
    "game_ended": _ev("winner draw", "", "the game is decided: `winner`, or `draw: true`"),
}

# --------------------------------------------------------------------------
# moved.cause

MOVE_CAUSES: dict[str, str] = {
    "draw": "a draw (4.12), also a muscle reward's draw",
    "opening_hand": "the opening hand of `start_game` (not a draw, 4.12.2)",
    "search": "taken out of the deck into the hand, the reserve or onto it (4.13); playing from the deck",
    "return": "`move` to `hand` from anywhere but the deck",
    "shuffle": "`move` to `deck_top`, `deck_bottom` or `deck_shuffle`; recycling",
    "exile": "graveyard → Void (4.16), also `move` of a graveyard card to `void`",
    "discard": "from the hand to the graveyard or Void (`discard`, `move` of a hand card, anti-magic)",
    "mill": "from the deck to the graveyard or Void (`mill`, `search`/`move` of a deck card there, 4.13.2)",
    "nekron": "the nekron cost: deck top → Void (4.8.1)",
    "sacrifice": "`sacrifice`, `sacrifice_for_components`, a sacrifice cost",
    "destroy": "a creature or building destroyed (Ép 0, poison, fading)",
    "play": "a permanent played onto the table",
    "resolve": "an instant or sorcery after it resolved (4.7.1)",
    "effect": "`move` to the graveyard, Void or table from elsewhere; enchantments falling off; vision cards at the end of turn",
    "exchange": "the `exchange` action",
    "steal": "`steal` (and `move` to a table zone of the other player)",
    "create": "`create`, `copy`: the card comes into being (`from: created`)",
    "attached": "a card attached to one that leaves goes to the graveyard (5.5.5) or changes controller with it",
    "shadow": "the shadow ability: back to the owner's hand (136.9)",
    "prevented": "hkk-case/2: a prevented card from the reaction queue to its owner's graveyard (4.21.2)",
}
MOVE_CAUSE_BY_VERB: dict[str, str] = {
    "draw": "draw",
    "start_game": "opening_hand, then draw",
    "discard": "discard",
    "mill": "mill",
    "search": "search (to hand, reserve, deck_top); mill (to graveyard, void)",
    "move": "see the `move` table (MOVE_CAUSE_OF_MOVE)",
    "exile": "exile",
    "sacrifice": "sacrifice",
    "sacrifice_for_components": "sacrifice",
    "play": "play (permanents), resolve (instants, sorceries), nekron (its cost), sacrifice (its cost), search (from the deck)",
    "exchange": "exchange",
    "steal": "steal",
    "create": "create",
    "copy": "create",
    "activate": "shadow (the shadow ability); the causes of the ability's effects",
    "advance": "draw, destroy, effect (vision cards)",
}
MOVE_CAUSE_OF_MOVE: dict[tuple[str, str], str] = {
    ("deck", "hand"): "search", ("any other", "hand"): "return",
    ("any", "deck_top / deck_bottom / deck_shuffle"): "shuffle",
    ("deck", "graveyard / void"): "mill", ("hand", "graveyard / void"): "discard",
    ("graveyard", "void"): "exile (an exile)",
    ("any other", "graveyard / void / reserve / guard_post / table"): "effect",
}

# --------------------------------------------------------------------------
# field names

CARD_FIELDS: dict[str, str] = {
    "id": "the card's id (only in a `create` step; under `cards` the key is the id)",
    "kind": "the card kind",
    "subtypes": "a list of subtype names",
    "name": "display name (default: the id)",
    "owner": "`A` or `B`",
    "controller": "on the table only",
    "cost": "`{vp, components, builders, sacrifice, nekron}`; returned: the cost now, with the effects on it (99.7)",
    "damage": "printed Sebzés in `given`; the current one when returned",
    "hp": "printed Ép (a building's SP) in `given`; the current one when returned",
    "components_yield": "szörnykomponens the creature yields",
    "active": "on the table: active (`true`) or passive",
    "counters": "counter name → count",
    "wounds": "damage taken this turn",
    "premade": "an előre kikészített lap (96.0), tóken cards included",
    "standalone_token": "an önálló jelző creature (not a card)",
    "abilities": "a list of ability entries",
    "attached_to": "the card this one sits on",
    "effects": "steps carried out when the card resolves",
    "needs_target": "cannot be played without targets",
    "bonus": "`{damage, hp}` an attached card gives the card it sits on",
    "continuous": "project addition: the card's continuous effects while it is on the table (99.4, 102; [hkk-effects.md](hkk-effects.md#continuous-effects-the-card-field-continuous))",
    "replace": "project addition: the card's replacement effects while it is on the table (mk:5.12; [hkk-effects.md](hkk-effects.md#replacement-effects-the-card-field-replace))",
    "just_damaged": "project addition: `true` when the last step damaged the creature and a life-saving action may follow (136.8); accepted in `given`",
    "colors": "project addition: the card's colours, one or two; a card of two colours is both (rb7:ketszinu-lapok) and needs one of them shown or controlled to be played; a clan is its god's colour (rb7:lapok-szine-klanja-kapcsolat-a-hkk-istenekkel) ([hkk-effects.md](hkk-effects.md#play-conditions-colors-and-condition))",
    "condition": "project addition: the card's play conditions, each `{colors: [...]}`, `{controls: {kind, subtype, icon}}` (a card so described under the player's control in play) or one step (`discard`, `mill`, `sacrifice_hp`) its player fulfils when playing it (mk:5.01.C, mk:5.12.B; [hkk-effects.md](hkk-effects.md#play-conditions-colors-and-condition))",
    "play_as": "project addition: kind → the card's fields in another form it may be played as (`play.as`; rb7:ketfelekeppen-hasznalhato-lapok, [hkk-cards.md](hkk-cards.md#cards-usable-two-ways-play_as))",
    "modes": "project addition: the modes of a modal card, `[{effects, needs_target}]`, one chosen at its play (`play.mode`; 111.7, [hkk-cards.md](hkk-cards.md#modal-spells-modes-1117))",
    "icons": "project addition: the card's icons that carry a rule, not subtypes nor abilities: `hegymelyi` (rb7:hegymelyi: a spell with it is played only while its player controls a hegymélyi creature; [hkk-effects.md](hkk-effects.md#play-conditions-colors-and-condition))",
    "original": "project addition: a card on the table in a form it was played as, with copied abilities or a mode chosen: the fields (and `kind`) it takes back when it leaves the table (returned; accepted in `given`, [hkk-cards.md](hkk-cards.md#cards-usable-two-ways-play_as))",
}
RETURNED_CARD_FIELDS: dict[str, str] = {
    "zone": "where the card is: a zone name or `removed`",
    "player": "the player whose zone lists it (absent when removed)",
    "max_hp": "the current maximum Ép",
    "base_damage": "the printed Sebzés",
    "base_hp": "the printed Ép",
    "base_cost": "the printed cost, when effects change it (99.7)",
    "dying": "`true` while a life-saving action may still save the creature",
    "attacking": "`true` from the attack's declaration to the end of the turn",
}
PLAYER_FIELDS: dict[str, str] = {
    "hp": "current Ép", "max_hp": "maximum Ép", "vp": "current VP", "max_vp": "maximum VP",
    "components": "szörnykomponens", "turn": "how many turns of the player's own have begun",
    "base_max_hp": "project addition, returned when effects in force change it: the maximum Ép without them (accepted in `given`)",
    "base_max_vp": "project addition, returned when effects in force change it: the maximum VP without them (accepted in `given`)",
    "skip_phases": "project addition: the phases the player's next turn passes over (4.10.7, `skip_phase`), returned when there are any (accepted in `given`)",
    **{z: f"the {z} zone, a list of card ids" for z in ZONES},
}
THEN_FIELDS: dict[str, str] = {
    "players": "player → pattern over the player's fields",
    "cards": "card id → pattern over the card's fields",
    "turn": "`{active, phase}`, and `combat_step` (I–VII) in the combat phase",
    "lasting": "the timed effects in force (99.4), a list",
    "delayed": "the delayed resources still to come (114), a list",
    "removed": "ids of cards that left the game",
    "pending": "the open decision",
    "seed": "the random generator's seed",
    "ruleset": "the ruleset the state was computed under",
    "error": "a step must be refused",
    "events": "events that must occur in this order",
    "no_events": "event patterns none of which may occur (project addition, change 13)",
    "result": "`ongoing`, `{winner}` or `{draw: true}`",
}

# --------------------------------------------------------------------------
# hkk-case/2: what the version adds (docs/spec/hkk-reactions.md). A case of format hkk-case/1 may
# use none of it; every name above stays valid in hkk-case/2 with the same meaning.

V2_SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "hkk-case-2.schema.json"
V2_CARD_FIELDS: dict[str, str] = {
    "reaction": "hkk-case/2: `true`: an instant reaction card (azonnali reakció lap, rb7:kijatszasi-sorrend): an instant that may also answer a card or ability waiting on the reaction queue",
}
V2_KEYWORDS: dict[str, Keyword] = {
    "no_reaction": Keyword(("to",), "132.14", "hkk-case/2: nothing may react to the card's play or to the permanent's abilities; `to`: `any` (default), `spells` (no reaction spell), `abilities` (no reaction ability)"),
}
V2_ABILITY_FIELDS: dict[str, str] = {
    "trigger": "hkk-case/2: an automatic ability (133.0): the event pattern that sets it off (`$self`, `$controller`, `$opponent` stand for the card, its controller, the other player); its `event` is any event but the records of automatic abilities themselves (`triggered`, `missed`, `made_up`), which set none off; with a `cost` it is an activated related effect (4.24.3.0)",
    "immediately": "hkk-case/2: with `trigger`: carried out at once, before the rest of the action and its reactions (133.2)",
    "reaction": "hkk-case/2: `true`: also usable as a reaction; `only`: only as a reaction (137.2); an ability with a `prevent` step is always one (137.3)",
    "on_play": "hkk-case/2: `true`: usable only right after the card's successful play, before any other action but reactions (137)",
    "disadvantage": "hkk-case/2: `true`: a disadvantage (hátrány): activating it is an action nobody may react to (4.23.1); an automatic one is an automatic effect (133.3)",
}
V2_EVENTS: dict[str, Event] = {
    "queued": _ev("entry card player ability answers clause", "entry card player",
                  "hkk-case/2: a card being played or an ability being used waits on the reaction queue (4.21.1); `answers`: the entry a reaction answers"),
    "resolved": _ev("entry card player clause", "entry card",
                    "hkk-case/2: a queue entry comes into being (it was not prevented), last in first out"),
    "prevented": _ev("entry card player ability clause", "entry card",
                     "hkk-case/2: a queue entry was prevented: a card goes to the graveyard (4.21.2), an ability does nothing (136.5)"),
    "prevent_set": _ev("entry card clause", "entry",
                       "hkk-case/2: a resolving reaction prevents the entry it answers (137.3)"),
    "modify_set": _ev("entry card amount clause", "entry amount",
                      "hkk-case/2: a resolving reaction changes the amounts of the entry it answers"),
    "returned": _ev("card to player clause", "card to",
                    "hkk-case/2: a further card of a prevented card goes back where it was played from (4.21.2)"),
    "triggered": _ev("card ability keyword player clause", "card ability",
                     "hkk-case/2: an automatic ability is carried out (133.0; 133.2 at once)"),
    "missed": _ev("card ability player lost clause", "card ability",
                  "hkk-case/2: the players forgot an automatic effect (`forgotten`); `lost: true` for an automatic reaction, which cannot be made up (133.4)"),
    "made_up": _ev("card ability player clause", "card ability",
                   "hkk-case/2: a forgotten automatic effect is carried out (133.4)"),
    "combat_ability_declared": _ev("card target amount element player", "card target amount",
                                   "hkk-case/2: a combat ability declared in IV; it takes effect with the others when IV ends (rb7:harci-fazis.IV)"),
}
# the records of automatic abilities themselves: no automatic ability is set off by one, so a
# trigger may not name them (docs/spec/hkk-reactions.md, "Readings the kit chose")
AUTOMATIC_RECORDS = ("triggered", "missed", "made_up")
V2_EVENT_FIELDS: dict[str, tuple[str, ...]] = {"passed": ("queue",), "resource_delayed": ("trigger",)}
V2_THEN_FIELDS: dict[str, str] = {
    "queue": "hkk-case/2: the reaction queue, bottom first: `[{id, kind, player, card, ability, targets, answers, reaction, with, from, prevented, modify}]` (4.21.1)",
    "missed": "hkk-case/2: the forgotten automatic effects that may still be made up this turn: `[{card, ability, player}]` (133.4)",
}
V2_RETURNED_CARD_FIELDS: dict[str, str] = {}


@functools.lru_cache(maxsize=None)
def vocabulary(version: int) -> dict[str, dict]:
    """The names of a format version: card fields, keywords, ability fields, events, then fields."""
    two = version >= 2
    events = dict(EVENTS)
    if two:
        for name, extra in V2_EVENT_FIELDS.items():
            ev = events[name]
            events[name] = Event(ev.fields + extra, ev.required, ev.meaning)
        events.update(V2_EVENTS)
    return {"card": {**CARD_FIELDS, **(V2_CARD_FIELDS if two else {})},
            "keywords": {**KEYWORDS, **(V2_KEYWORDS if two else {})},
            "ability_fields": (*ACTIVATED_FIELDS, *(V2_ABILITY_FIELDS if two else ())),
            "events": events,
            "then": {**THEN_FIELDS, **(V2_THEN_FIELDS if two else {})}}


# --------------------------------------------------------------------------
# did-you-mean


def suggest(word: Any, options) -> str:
    close = difflib.get_close_matches(str(word), list(options), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def is_extension(name: Any) -> bool:
    return isinstance(name, str) and name.startswith(EXTENSION_PREFIX) and len(name) > 2


# --------------------------------------------------------------------------
# checking a case: (pointer, message, suppress) triples; `suppress` is the
# pointer under which the schema's own, less helpful errors are dropped.

Problem = tuple[str, str, str]


def _ptr(base: str, *segs: Any) -> str:
    return base + "".join("/" + str(s).replace("~", "~0").replace("/", "~1") for s in segs)


def check_ability(ab: Any, ptr: str, version: int = 1) -> Iterator[Problem]:
    if not isinstance(ab, dict):
        return
    voc = vocabulary(version)
    keywords, own_fields = voc["keywords"], voc["ability_fields"]
    kw = ab.get("keyword")
    if not isinstance(kw, str):
        return
    kptr = _ptr(ptr, "keyword")
    if kw in KEYWORD_ALIASES:
        yield kptr, (f"keyword {kw!r} is another spelling of {KEYWORD_ALIASES[kw]!r}: write "
                     f"{KEYWORD_ALIASES[kw]!r}"), ptr
        return
    if kw in keywords:
        allowed = {"keyword", *keywords[kw].fields, *TIMED_FIELDS}
        for name in ab:
            if name not in allowed:
                yield _ptr(ptr, name), (f"unknown field {name!r} of keyword {kw!r}"
                                        + suggest(name, allowed)
                                        + f"; its fields: {', '.join(sorted(allowed - {'keyword'}))}"), ptr
        if kw == "immunity" and "to" in ab and ab["to"] not in IMMUNITY_TO:
            yield _ptr(ptr, "to"), (f"unknown immunity {ab['to']!r}" + suggest(ab["to"], IMMUNITY_TO)
                                    + f"; known: {', '.join(IMMUNITY_TO)}"), ptr
        if kw == "unaffected_by" and "counter" in ab:
            yield from _check_counter_name(ab["counter"], _ptr(ptr, "counter"), ptr)
        for j, sub in enumerate(ab.get("abilities") or [] if kw == "grant" else []):
            yield from check_ability(sub, _ptr(ptr, "abilities", j), version)
        return
    # not a keyword of the Kódex: an activated ability of the card's own, defined by its effects
    if "effects" not in ab:
        yield kptr, (f"unknown keyword {kw!r}" + suggest(kw, list(keywords) + list(KEYWORD_ALIASES))
                     + "; an ability of the card's own (an activated ability, 136) must have "
                       "`effects`"), ptr
        return
    allowed = {"keyword", *own_fields, *TIMED_FIELDS}
    for name in ab:
        if name not in allowed:
            yield _ptr(ptr, name), (f"unknown field {name!r} of an activated ability"
                                    + suggest(name, allowed)), ptr


def _check_counter_name(name: Any, ptr: str, suppress: str) -> Iterator[Problem]:
    if not isinstance(name, str) or name in COUNTERS or is_extension(name):
        return
    yield ptr, (f"unknown counter {name!r}" + suggest(name, COUNTERS)
                + f"; a counter the Kódex does not list is written {EXTENSION_PREFIX}{name}"), suppress


def check_card(card: Any, ptr: str, returned: bool = False,
               given: bool = False, version: int = 1) -> Iterator[Problem]:
    """Problems of a card definition (``given``: a card of ``given.cards``, where the
    returned-only fields are accepted and ignored, so a returned state can be given
    back) or of a pattern over a returned card (``returned``)."""
    if not isinstance(card, dict):
        return
    fields = {**vocabulary(version)["card"], **(RETURNED_CARD_FIELDS if returned or given else {})}
    for name in card:
        if name not in fields:
            yield _ptr(ptr, name), (f"unknown card field {name!r}" + suggest(name, fields)), \
                _ptr(ptr, name)
    kind = card.get("kind")
    if "kind" in card and kind not in KINDS:
        yield _ptr(ptr, "kind"), (f"unknown card kind {kind!r}" + suggest(kind, KINDS)
                                  + f"; known: {', '.join(KINDS)}"), _ptr(ptr, "kind")
    counters = card.get("counters")
    if isinstance(counters, dict):
        for name in counters:
            cptr = _ptr(ptr, "counters", name)
            yield from _check_counter_name(name, cptr, _ptr(ptr, "counters"))
    abilities = card.get("abilities")
    if isinstance(abilities, list) and not returned:
        for j, ab in enumerate(abilities):
            yield from check_ability(ab, _ptr(ptr, "abilities", j), version)
    effects = card.get("effects")
    if isinstance(effects, list) and not returned:
        yield from check_steps(effects, _ptr(ptr, "effects"), version)
    if isinstance(abilities, list) and not returned:
        for j, ab in enumerate(abilities):
            if isinstance(ab, dict) and isinstance(ab.get("effects"), list):
                yield from check_steps(ab["effects"], _ptr(ptr, "abilities", j, "effects"), version)
    if returned:
        return
    for j, mode in enumerate(card.get("modes") if isinstance(card.get("modes"), list) else []):
        if isinstance(mode, dict):
            yield from check_steps(mode.get("effects"), _ptr(ptr, "modes", j, "effects"), version)
    forms = card.get("play_as")
    for kind, form in (forms.items() if isinstance(forms, dict) else ()):
        yield from check_card(form, _ptr(ptr, "play_as", kind), version=version)
    if isinstance(card.get("original"), dict):
        yield from check_card(card["original"], _ptr(ptr, "original"), version=version)


def check_steps(steps: Any, ptr: str, version: int = 1) -> Iterator[Problem]:
    if not isinstance(steps, list):
        return
    for i, step in enumerate(steps):
        if not isinstance(step, dict) or len(step) != 1:
            continue
        (verb, args), = step.items()
        if not isinstance(args, dict):
            continue
        sptr = _ptr(ptr, i, verb)
        if verb in ("put_counter", "remove_counter") and "counter" in args:
            yield from _check_counter_name(args["counter"], _ptr(sptr, "counter"), _ptr(sptr, "counter"))
        if verb == "create" and isinstance(args.get("card"), dict):
            yield from check_card(args["card"], _ptr(sptr, "card"), version=version)


def check_event(ev: Any, ptr: str, version: int = 1) -> Iterator[Problem]:
    if not isinstance(ev, dict) or not isinstance(ev.get("event"), str):
        return
    events = vocabulary(version)["events"]
    name = ev["event"]
    if name not in events:
        yield _ptr(ptr, "event"), (f"unknown event {name!r}" + suggest(name, events)), ptr
        return
    allowed = {"event", *events[name].fields}
    for f in ev:
        if f not in allowed:
            yield _ptr(ptr, f), (f"unknown field {f!r} of event {name!r}" + suggest(f, allowed)
                                 + f"; its fields: {', '.join(events[name].fields) or 'none'}"), ptr


def check_case(case: Any, cptr: str, version: int = 1) -> list[Problem]:
    """Every vocabulary problem of one case (a mapping as read from YAML) of a format version."""
    out: list[Problem] = []
    if not isinstance(case, dict):
        return out
    then_fields = vocabulary(version)["then"]
    given = case.get("given")
    if isinstance(given, dict) and isinstance(given.get("cards"), dict):
        for cid, card in given["cards"].items():
            out.extend(check_card(card, _ptr(cptr, "given", "cards", cid), given=True, version=version))
    out.extend(check_steps(case.get("when"), _ptr(cptr, "when"), version))
    then = case.get("then")
    if isinstance(then, dict):
        tptr = _ptr(cptr, "then")
        for name in then:
            if name not in then_fields:
                out.append((_ptr(tptr, name), f"unknown field {name!r} in then"
                            + suggest(name, then_fields), _ptr(tptr, name)))
        if isinstance(then.get("cards"), dict):
            for cid, card in then["cards"].items():
                out.extend(check_card(card, _ptr(tptr, "cards", cid), returned=True, version=version))
        if isinstance(then.get("players"), dict):
            for p, pl in then["players"].items():
                if isinstance(pl, dict):
                    for name in pl:
                        if name not in PLAYER_FIELDS:
                            q = _ptr(tptr, "players", p, name)
                            out.append((q, f"unknown player field {name!r}"
                                        + suggest(name, PLAYER_FIELDS), q))
        for key in ("events", "no_events"):
            if isinstance(then.get(key), list):
                for j, ev in enumerate(then[key]):
                    out.extend(check_event(ev, _ptr(tptr, key, j), version))
    return out


# --------------------------------------------------------------------------
# the schema


def _ability_schema() -> dict:
    nonneg = {"type": "integer", "minimum": 0}
    field_schema = {
        "keyword": {"type": "string", "minLength": 1},
        "x": nonneg, "hp": nonneg, "vp": nonneg, "per_turn": nonneg, "delay": nonneg,
        "temporary": nonneg,
        "to": {"enum": list(IMMUNITY_TO)},
        "counter": {"$ref": "#/$defs/counter_name"},
        "element": {"enum": list(ELEMENTS)},
        "abilities": {"type": "array", "items": {"$ref": "#/$defs/ability"}},
        "cost": {"$ref": "#/$defs/ability_cost"},
        "effects": {"type": "array", "items": {"$ref": "#/$defs/step"}},
        "timing": {"enum": list(TIMINGS)},
        "needs_target": {"type": "boolean"}, "common": {"type": "boolean"},
        "cost_kinds": {"type": "array", "minItems": 1, "uniqueItems": True,
                       "items": {"enum": ["vp", "components"]}},
    }
    props = {k: {"description": ABILITY_FIELD_MEANING[k], **v} for k, v in field_schema.items()}
    branches = []
    for kw, spec in KEYWORDS.items():
        allowed = ["keyword", *spec.fields, *TIMED_FIELDS]
        branches.append({"if": {"properties": {"keyword": {"const": kw}}},
                         "then": {"propertyNames": {"enum": allowed}}})
    branches.append({
        "if": {"properties": {"keyword": {"not": {"enum": list(KEYWORDS)}}}},
        "then": {"required": ["effects"],
                 "properties": {"keyword": {"not": {"enum": list(KEYWORD_ALIASES)}}},
                 "propertyNames": {"enum": ["keyword", *ACTIVATED_FIELDS, *TIMED_FIELDS]}}})
    return {
        "title": "An ability entry",
        "description": "A keyword of docs/spec/hkk-vocabulary.md with its fields, or an activated "
                       "ability of the card's own: any other name, with `effects`.",
        "type": "object",
        "properties": props,
        "required": ["keyword"],
        "additionalProperties": False,
        "allOf": branches,
    }


def _event_schema() -> dict:
    branches = [{"if": {"properties": {"event": {"const": name}}},
                 "then": {"propertyNames": {"enum": ["event", *ev.fields]}}}
                for name, ev in EVENTS.items()]
    return {
        "title": "An event pattern",
        "description": "An event of docs/spec/hkk-vocabulary.md with some of its fields.",
        "type": "object",
        "properties": {"event": {"enum": list(EVENTS)}},
        "required": ["event"],
        "allOf": branches,
    }


def shapes_condition_steps() -> tuple[str, ...]:
    from model import shapes   # the engine's own list: one source for both
    return shapes.CONDITION_STEPS


def shapes_controls_fields() -> tuple[str, ...]:
    from model import shapes   # the engine's own list: one source for both
    return shapes.CONTROLS_FIELDS


def _effect_schemas(version: int = 1) -> dict:
    """The shapes of model/shapes.py as JSON Schema: continuous entries, timed effects,
    replacement effects, delayed resources, the combat sub-phases."""
    from model import shapes   # the engine's own lists of names: one source for both
    integer = {"type": "integer"}
    common = {"id": {"type": "string", "minLength": 1},
              "scope": {"anyOf": [{"enum": list(shapes.SCOPES)},
                                  {"type": "array", "items": {"$ref": "#/$defs/card_or_player"}},
                                  {"type": "object", "description": "a zone scope (99.6)",
                                   "properties": {"zones": {"type": "array", "minItems": 1,
                                                            "items": {"enum": list(shapes.SCOPE_ZONES)}},
                                                  "player": {"enum": list(shapes.PLAYER_SCOPES)},
                                                  "kind": {"type": "string", "minLength": 1},
                                                  "color": {"type": "string", "minLength": 1}},
                                   "additionalProperties": False}]},
              "strong": {"type": "boolean"}, "prohibiting": {"type": "boolean"},
              "settles": {"type": "array", "items": {"type": "string", "minLength": 1}},
              "ability": {"enum": [None, "static", "activated", "automatic"]}}
    entry = {
        "title": "A continuous effect (project addition; docs/spec/hkk-rules.md)",
        "type": "object",
        "properties": {**common,
                       "number": {"enum": list(shapes.NUMBERS + shapes.AMOUNT_NUMBERS)},
                       "add": integer, "set": integer, "limit": integer,
                       "grant": {"type": "array", "items": {"$ref": "#/$defs/ability"}},
                       "lose": {"type": "array", "items": {"type": "string", "minLength": 1}},
                       "prohibit": {"enum": list(shapes.PROHIBITIONS)},
                       "spells": {"type": "array", "minItems": 1,
                                  "items": {"enum": list(shapes.CHARACTERISTICS)},
                                  "description": "with `prohibit: play`: the characteristics of the "
                                                 "spells it forbids (111)"},
                       "require": {"enum": list(shapes.REQUIREMENTS)}},
        "additionalProperties": False,
        "oneOf": [{"required": ["number"], "oneOf": [{"required": ["add"]}, {"required": ["set"]}]},
                  {"required": ["grant"]}, {"required": ["lose"]}, {"required": ["prohibit"]},
                  {"required": ["require"]}],
        # `spells` with `prohibit: play` only, and always there (111; model/shapes.py)
        "if": {"required": ["prohibit"], "properties": {"prohibit": {"const": "play"}}},
        "then": {"required": ["spells"]},
        "else": {"not": {"required": ["spells"]}},
    }
    lasting = {
        "title": "A timed effect in force (99.4; project addition)",
        "type": "object",
        "properties": {"id": {"type": "string", "minLength": 1}, "source": {"$ref": "#/$defs/card_id"},
                       "by": {"$ref": "#/$defs/player"}, "effect": {"$ref": "#/$defs/continuous_entry"},
                       "affects": {"type": "array", "items": {"$ref": "#/$defs/card_or_player"}},
                       "until": {"enum": ["end_of_turn", "end_of_phase", "turns"]},
                       "turns_left": {"type": "integer", "minimum": 1},
                       "created": {"type": "integer", "minimum": 0}},
        "required": ["id", "effect", "affects"],
        "additionalProperties": False,
    }
    replacer = {
        "title": "A replacement effect (mk:5.12; project addition)",
        "type": "object",
        "properties": {**common, "event": {"enum": list(shapes.REPLACEABLE)},
                       "instead": {"type": "array", "items": {
                           "type": "object", "minProperties": 1, "maxProperties": 1,
                           "propertyNames": {"enum": list(verbs_of(version))},
                           "description": "a step; \"$target\" / \"$amount\" stand for whom the "
                                          "event would happen to and its amount"}}},
        "required": ["event", "instead"],
        "additionalProperties": False,
    }
    delayed = {
        "title": "A delayed resource to come (114; project addition)",
        "type": "object",
        "properties": {"id": {"type": "string", "minLength": 1}, "at": {"enum": list(shapes.DELAYED_AT)},
                       "step": {"$ref": "#/$defs/step"}, "by": {"$ref": "#/$defs/player"},
                       "source": {"$ref": "#/$defs/card_id"}, "created": {"type": "integer", "minimum": 0}},
        "required": ["at", "step"],
        "additionalProperties": False,
    }
    step = {"title": "A sub-phase of combat (rb7:harci-fazis)",
            "anyOf": [{"enum": list(shapes.COMBAT_STEPS)}, {"type": "integer", "minimum": 1, "maximum": 7}]}
    return {"continuous_entry": entry, "lasting": lasting, "replacer": replacer, "delayed": delayed,
            "combat_step": step}


def _form_schemas(card: dict) -> None:
    """The card fields of the forms a card may be in (model/forms.py): `modes`, `play_as`,
    `original` — each form a card's fields of that form."""
    from model.forms import FORM_FIELDS   # the engine's own list: one source for both
    card["modes"] = {"type": "array", "minItems": 2, "description": CARD_FIELDS["modes"], "items": {
        "type": "object", "required": ["effects"], "additionalProperties": False,
        "properties": {"effects": {"type": "array", "items": {"$ref": "#/$defs/step"}},
                       "needs_target": {"type": "boolean"}}}}
    form = {"type": "object", "additionalProperties": False,
            "properties": {name: copy.deepcopy(card[name]) for name in FORM_FIELDS}}
    card["play_as"] = {"type": "object", "description": CARD_FIELDS["play_as"],
                       "propertyNames": {"enum": list(KINDS)}, "additionalProperties": form}
    original = copy.deepcopy(form)
    original["properties"]["kind"] = copy.deepcopy(card["kind"])
    card["original"] = {**original, "minProperties": 1, "description": CARD_FIELDS["original"]}


def _counters_schema() -> dict:
    count = {"type": "integer", "minimum": 0}
    return {
        "type": "object",
        "description": "counter name -> count; 0 and absent are the same; a counter the Kódex "
                       f"does not list is written {EXTENSION_PREFIX}<name>",
        "properties": {c: dict(count) for c in COUNTERS},
        "patternProperties": {"^x-.+$": dict(count)},
        "additionalProperties": False,
    }


def generated_schema(current: dict | None = None) -> dict:
    """The case schema with every vocabulary part generated from this module
    (and the per-verb definitions from conformance/verbs.py)."""
    schema = copy.deepcopy(current if current is not None else
                           json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    d = schema["$defs"]
    card = d["card"]["properties"]
    card["kind"] = {"enum": list(KINDS), "description": "sorcery = általános, enchantment = bűbáj"}
    # a returned state can be given back: its returned-only fields are accepted and ignored
    for name, meaning in RETURNED_CARD_FIELDS.items():
        card[name] = {"description": f"returned only, ignored in given: {meaning}"}
    given_props = d["given"]["properties"]
    given_props["ruleset"] = {"type": "string",
                              "description": "returned only, ignored in given: " + THEN_FIELDS["ruleset"]}
    pending = given_props["pending"]["properties"]
    pending["step"] = {"type": "object", "description": "the step the answer completes (one verb "
                       "and its arguments)"}
    pending["by"] = {"$ref": "#/$defs/player", "description": "the player controlling the step's source"}
    pending["then"] = {"type": "array", "description": "the steps of the card's effects that wait "
                       "for the answer"}
    pending["default"] = {"description": "what an unanswered decision falls back to (the muscle "
                          "reward, 124.4: `{draw, vp}`)"}
    card["counters"] = {"$ref": "#/$defs/counters"}
    card["abilities"] = {"type": "array", "description": "ability entries",
                         "items": {"$ref": "#/$defs/ability"}}
    d["counters"] = _counters_schema()
    d["counter_name"] = {"title": "A counter name",
                         "anyOf": [{"enum": list(COUNTERS)},
                                   {"type": "string", "pattern": "^x-.+$"}]}
    d["ability"] = _ability_schema()
    cost = copy.deepcopy(card["cost"])
    cost["properties"]["passivate"] = {"type": "boolean",
                                       "description": "the card turns passive (an ability's cost)"}
    cost["description"] = "an ability's cost: a card's cost, and passivate"
    d["ability_cost"] = cost
    d["event"] = _event_schema()
    d.update(_effect_schemas())
    given_props["lasting"] = {"type": "array", "items": {"$ref": "#/$defs/lasting"},
                              "description": "project addition: the timed effects in force (99.4)"}
    given_props["delayed"] = {"type": "array", "items": {"$ref": "#/$defs/delayed"},
                              "description": "project addition: the delayed resources to come (114)"}
    d["given"]["properties"]["turn"]["properties"]["combat_step"] = {"$ref": "#/$defs/combat_step"}
    for name in ("base_max_hp", "base_max_vp"):
        d["player_state"]["properties"][name] = {"type": "integer", "minimum": 0,
                                                 "description": PLAYER_FIELDS[name]}
    d["player_state"]["properties"]["skip_phases"] = {
        "type": "array", "uniqueItems": True, "items": {"enum": list(SKIPPABLE_PHASES)},
        "description": PLAYER_FIELDS["skip_phases"]}
    card["continuous"] = {"type": "array", "items": {"$ref": "#/$defs/continuous_entry"},
                          "description": CARD_FIELDS["continuous"]}
    card["replace"] = {"type": "array", "items": {"$ref": "#/$defs/replacer"},
                       "description": CARD_FIELDS["replace"]}
    card["just_damaged"] = {"type": "boolean", "description": CARD_FIELDS["just_damaged"]}
    names = {"type": "array", "items": {"type": "string", "minLength": 1}}
    card["colors"] = {**names, "maxItems": 2, "description": CARD_FIELDS["colors"]}
    card["icons"] = {"type": "array", "items": {"enum": list(ICONS)}, "description": CARD_FIELDS["icons"]}
    card["condition"] = {"type": "array", "description": CARD_FIELDS["condition"], "items": {
        "type": "object", "minProperties": 1, "maxProperties": 1,
        "properties": {"colors": {**names, "minItems": 1},
                       "controls": {"type": "object", "minProperties": 1, "additionalProperties": False,
                                    "properties": {k: {"type": "string", "minLength": 1}
                                                   for k in shapes_controls_fields()}},
                       **{v: {"type": "object"} for v in shapes_condition_steps()}},
        "additionalProperties": False}}
    card["base_cost"] = {**copy.deepcopy(card["cost"]), "description": RETURNED_CARD_FIELDS["base_cost"]}
    _form_schemas(card)
    d["card_pattern"] = {
        "title": "A pattern over a returned card",
        "type": "object",
        "propertyNames": {"enum": list(CARD_FIELDS) + list(RETURNED_CARD_FIELDS)},
        "properties": {"counters": {"type": "object",
                                    "propertyNames": {"$ref": "#/$defs/counter_name"}},
                       "kind": {"enum": list(KINDS)}},
    }
    d["player_pattern"] = {"title": "A pattern over a returned player", "type": "object",
                           "propertyNames": {"enum": list(PLAYER_FIELDS)}}
    then = d["then"]
    then["properties"]["events"]["items"] = {"$ref": "#/$defs/event"}
    then["properties"]["no_events"] = {
        "type": "array", "minItems": 1, "items": {"$ref": "#/$defs/event"},
        "description": "project addition (change 13): event patterns none of which may occur; "
                       "an event matching any of them (the fields it names) fails the case"}
    then["properties"]["cards"]["additionalProperties"] = {"$ref": "#/$defs/card_pattern"}
    then["properties"]["players"]["properties"] = {p: {"$ref": "#/$defs/player_pattern"}
                                                   for p in ("A", "B")}
    for extra in ("turn", "pending", "seed", "ruleset"):
        then["properties"].setdefault(extra, {"description": THEN_FIELDS[extra]})
    then["propertyNames"] = {"enum": list(THEN_FIELDS)}
    d["given"]["properties"]["turn"]["properties"]["phase"] = {"enum": list(PHASES)}
    step = d["step"]
    v1_verbs = verbs_of(1)
    step["propertyNames"] = {"enum": list(v1_verbs)}
    step["properties"] = {v: {"$ref": f"#/$defs/verb_{v}"} for v in v1_verbs}
    for v in v1_verbs.values():
        d[f"verb_{v.name}"] = step_args_schema(v)
    assert set(MOVE_DESTINATIONS)  # the move destinations are in verbs.py
    return schema


def generated_schema_v2(v1: dict | None = None) -> dict:
    """The schema of hkk-case/2: hkk-case/1's with the names the version adds (V2_*, the verbs and
    arguments of conformance/verbs.py with `since: 2`)."""
    schema = copy.deepcopy(v1 if v1 is not None else generated_schema())
    schema["$id"] = "hkk-case-2.schema.json"
    schema["title"] = schema.get("title", "").replace("hkk-case/1", "hkk-case/2")
    schema["description"] = ("hkk-case/2: hkk-case/1 with the reaction queue, automatic abilities and "
                             "the combat as the rulebook plays it (docs/spec/hkk-reactions.md). "
                             + schema.get("description", ""))
    schema["properties"]["format"] = {"const": "hkk-case/2", "description": "the format and its version"}
    d = schema["$defs"]
    card = d["card"]["properties"]
    for name, meaning in V2_CARD_FIELDS.items():
        card[name] = {"type": "boolean", "description": meaning}
    ab = d["ability"]
    nonneg = {"type": "integer", "minimum": 0}
    d["trigger"] = {"title": "An event pattern: the `trigger` of an automatic ability or of a delayed resource",
                    "type": "object", "required": ["event"],
                    "properties": {"event": {"enum": [e for e in vocabulary(2)["events"]
                                                      if e not in AUTOMATIC_RECORDS]}}}
    d["delayed"]["properties"]["trigger"] = {"$ref": "#/$defs/trigger",
                                             "description": "hkk-case/2, instead of `at`: it comes once, on "
                                                            "an event of this pattern (114.2)"}
    d["delayed"]["required"] = ["step"]
    d["delayed"]["oneOf"] = [{"required": ["at"]}, {"required": ["trigger"]}]
    ab["properties"].update({
        "trigger": {"$ref": "#/$defs/trigger", "description": V2_ABILITY_FIELDS["trigger"]},
        "immediately": {"type": "boolean", "description": V2_ABILITY_FIELDS["immediately"]},
        "reaction": {"enum": [True, False, "only"], "description": V2_ABILITY_FIELDS["reaction"]},
        "on_play": {"type": "boolean", "description": V2_ABILITY_FIELDS["on_play"]},
        "disadvantage": {"type": "boolean", "description": V2_ABILITY_FIELDS["disadvantage"]},
    })
    keywords = vocabulary(2)["keywords"]
    branches = []
    for kw, spec in keywords.items():
        allowed = ["keyword", *spec.fields, *TIMED_FIELDS]
        branches.append({"if": {"properties": {"keyword": {"const": kw}}},
                         "then": {"propertyNames": {"enum": allowed}}})
    branches.append({
        "if": {"properties": {"keyword": {"not": {"enum": list(keywords)}}}},
        "then": {"required": ["effects"],
                 "properties": {"keyword": {"not": {"enum": list(KEYWORD_ALIASES)}}},
                 "propertyNames": {"enum": ["keyword", *vocabulary(2)["ability_fields"], *TIMED_FIELDS]}}})
    ab["allOf"] = branches
    ab["properties"]["to"] = {"enum": list(IMMUNITY_TO) + ["any", "spells", "abilities"],
                              "description": ABILITY_FIELD_MEANING["to"] + "; for `no_reaction`: any, spells, abilities"}
    del nonneg
    events = vocabulary(2)["events"]
    d["event"]["properties"]["event"] = {"enum": list(events)}
    d["event"]["allOf"] = [{"if": {"properties": {"event": {"const": name}}},
                            "then": {"propertyNames": {"enum": ["event", *ev.fields]}}}
                           for name, ev in events.items()]
    then = d["then"]
    for name, meaning in V2_THEN_FIELDS.items():
        then["properties"][name] = {"description": meaning}
    then["propertyNames"] = {"enum": list(vocabulary(2)["then"])}
    d["card_pattern"]["propertyNames"] = {"enum": list(vocabulary(2)["card"]) + list(RETURNED_CARD_FIELDS)}
    verbs = verbs_of(2)
    d["step"]["propertyNames"] = {"enum": list(verbs)}
    d["step"]["properties"] = {v: {"$ref": f"#/$defs/verb_{v}"} for v in verbs}
    d["replacer"] = _effect_schemas(2)["replacer"]
    for v in verbs.values():
        d[f"verb_{v.name}"] = step_args_schema(v, 2)
    return schema


DOC_PATH = Path(__file__).resolve().parents[1] / "docs" / "spec" / "hkk-vocabulary.md"

_DOC_INTRO = """\
# The closed vocabularies of `hkk-case/1`

Normative. Every name a case may use for a keyword, a counter, a card kind, an
event, an event field, a `moved.cause`, a card field, a player field or a field
of `then` is listed here; nothing else is valid. A case that uses another name
is an input error of the case (`kodex check` exits 2 and names the file, the
line, the JSON pointer and the nearest known name); the JSON Schema
(`conformance/schema/hkk-case-1.schema.json`) is closed the same way.
The names a meaning marks "hkk-case/2:" (and the field `passed.queue`) are
valid only in files of format `hkk-case/2`
([hkk-reactions.md](hkk-reactions.md); schema
`conformance/schema/hkk-case-2.schema.json`).

This page is generated from the kit's vocabulary module together with the
schema (`python -m conformance.vocabulary`); a test checks both are current.
The rules behind the names are in [hkk-rules.md](hkk-rules.md).

A name whose meaning begins with *hkk-case/2:* belongs to that version of the
format only ([hkk-reactions.md](hkk-reactions.md)): a case of format
`hkk-case/1` may not use it (an event field so marked is emitted only in a
case of format `hkk-case/2`).

Extension names:

- **Counters the kit does not know** are written with the prefix `x-`
  (`x-charge`, `x-mana`). Such a counter does only what the card that made it
  says; by itself it changes nothing (Kódex 117.2). An implementation returns
  it under the same name.
- **An ability of the card's own** (an activated ability, 136) may have any
  name that is not a keyword below, and must have `effects`. Without `effects`
  an unknown name is an error (`keyword: block` is rejected: did you mean
  `blocking`?).
- Fields named `x-…` are allowed at the file and case level only (ignored).
"""


def _table(head: tuple[str, ...], rows) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
    return "\n".join(out) + "\n"


def _code(names) -> str:
    return ", ".join(f"`{n}`" for n in names) if names else "—"


# the `clause` of every event: an addition of the reference engine (change 26 of hkk-versions.md)
EVENT_CLAUSE_DOC = """
### The `clause` of an event

An addition (change 26 of [hkk-versions.md](hkk-versions.md)): the reference
engine gives every event the clauses that produced it, so that a judge can read
why it happened (`kodex explain`). `clauses` lists them (ids of the catalog:
`kodex clause ID`), the rule that named itself first; on an event whose row
above does not list `clause`, `clause` is the first of them (a card moved from
the table to the Void by an effect: `clause: "97.0"`, `clauses: ["97.0",
"4.16.2"]`). The events whose row lists `clause` keep the meaning given there
(the clause that stopped, prevented or decided something, present where such a
rule named it): a poison counter put on in the preparation phase is
`counter_added` with `clauses: ["121.1"]` and no `clause`; a conflict the
priority order leaves undecided (`unresolved: true`) has no `clause` and
`clauses` names the order that left it undecided (`102` or `mk:5.10`).

An implementation **need not send** `clauses`, nor `clause` where the table
above does not list it, and no case can require them (`kodex check` rejects a
field an event does not list; `clauses` is no event's field).
"""


def render_doc() -> str:
    """The page of every name, hkk-case/2's included (their meanings say "hkk-case/2:")."""
    v2 = vocabulary(2)
    parts = [_DOC_INTRO]
    parts.append("\n## Card kinds\n\n" + _table(("kind", "meaning"),
                 ((f"`{k}`", m) for k, m in KINDS.items())))
    parts.append("\n## Keyword abilities\n\nAn entry of a card's `abilities`: "
                 "`{keyword: NAME, ...fields}`. Every entry may also carry "
                 f"{_code(TIMED_FIELDS)} (127.0.0).\n\n"
                 + _table(("keyword", "fields", "clause", "meaning"),
                          ((f"`{k}`", _code(v.fields), v.clause, v.meaning)
                           for k, v in v2["keywords"].items())))
    parts.append("\nAn activated ability of the card's own (any other name, with `effects`) "
                 f"has the fields {_code(ACTIVATED_FIELDS)} and {_code(TIMED_FIELDS)}.\n\n"
                 "### Ability fields\n\n"
                 + _table(("field", "meaning"), ((f"`{k}`", m) for k, m in
                                                 {**ABILITY_FIELD_MEANING, **V2_ABILITY_FIELDS}.items())))
    parts.append("\n### Immunities (`{keyword: immunity, to: ...}`)\n\n"
                 + _table(("to", "meaning"), ((f"`{k}`", m) for k, m in IMMUNITY_TO.items())))
    parts.append(f"\n### Timings of an activated ability\n\n{_code(TIMINGS)}\n")
    parts.append("\n### Other spellings (rejected)\n\nThese names are refused with the "
                 "canonical keyword named:\n\n"
                 + _table(("written", "write"), ((f"`{a}`", f"`{c}`")
                                                 for a, c in KEYWORD_ALIASES.items())))
    parts.append("\n## Counters\n\n`counters: {NAME: count}` on a card; `put_counter` / "
                 "`remove_counter` `counter:`. A count of 0 and an absent counter are the same. "
                 "Other counters: `x-NAME` (see above).\n\n"
                 + _table(("counter", "clause", "meaning"),
                          ((f"`{k}`", v.clause, v.meaning) for k, v in COUNTERS.items())))
    parts.append("\n## Events\n\nAn event is `{event: NAME, ...fields}`. An implementation "
                 "emits the *required* fields of every event it emits (the others where they "
                 "apply: a field whose value is none is left out); a case's `then.events` may "
                 "name any of the fields.\n\n"
                 + _table(("event", "required fields", "other fields", "meaning"),
                          ((f"`{k}`", _code(v.required),
                            _code([f for f in v.fields if f not in v.required]),
                            v.meaning + (f" (hkk-case/2 adds {_code(V2_EVENT_FIELDS[k])})"
                                         if k in V2_EVENT_FIELDS else ""))
                           for k, v in v2["events"].items())))
    parts.append(EVENT_CLAUSE_DOC)
    parts.append("\n## `moved.cause`\n\n" + _table(("cause", "when"), (
        (f"`{k}`", m) for k, m in MOVE_CAUSES.items())))
    parts.append("\n### Per verb\n\n" + _table(("verb", "cause"), (
        (f"`{k}`", m) for k, m in MOVE_CAUSE_BY_VERB.items())))
    parts.append("\n### The `move` verb\n\n" + _table(("from", "to", "cause"), (
        (a, b, c) for (a, b), c in MOVE_CAUSE_OF_MOVE.items())))
    parts.append("\n## Refusal clauses\n\nWhich clause a refusal or an `effect_prevented` names, "
                 "per verb and situation, in the order of the checks, and which co-clauses are "
                 "accepted: [hkk-refusals.md](hkk-refusals.md).\n")
    parts.append("\n## Card fields\n\n" + _table(("field", "meaning"), (
        (f"`{k}`", m) for k, m in v2["card"].items())))
    parts.append("\n### Returned only\n\nFields an implementation returns and `then` may "
                 "name, but `given` never sets (a returned state given back as `given` may "
                 "carry them; they are ignored on input):\n\n"
                 + _table(("field", "meaning"), ((f"`{k}`", m) for k, m in
                                                 RETURNED_CARD_FIELDS.items())))
    parts.append("\n## Player fields\n\n" + _table(("field", "meaning"), (
        (f"`{k}`", m) for k, m in PLAYER_FIELDS.items())))
    parts.append("\n## Fields of `then`\n\n" + _table(("field", "meaning"), (
        (f"`{k}`", m) for k, m in v2["then"].items())))
    return "".join(parts)


def render(schema: dict) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from conformance.atomicio import write_text
    from conformance import refusals
    v1 = generated_schema()
    outputs = {SCHEMA_PATH: render(v1), V2_SCHEMA_PATH: render(generated_schema_v2(v1)),
               DOC_PATH: render_doc(), refusals.DOC_PATH: refusals.markdown()}
    if "--check" in argv:
        stale = [p for p, text in outputs.items()
                 if not p.exists() or p.read_text(encoding="utf-8") != text]
        for p in stale:
            print(f"{p} differs from the generated one: run python -m conformance.vocabulary")
        return 1 if stale else 0
    for p, text in outputs.items():
        write_text(p, text)
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
