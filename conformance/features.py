"""Features: the parts of the rules a case needs an implementation to have, derived from the case.

Covers docs/spec/hkk-profiles.md ("Features"). An observation (conformance.profiles) is what a
case's ``then`` looks at; a feature is what its ``given``, ``when`` and ``then`` use. An
implementation declares in ``hello`` the features it implements (``"features": [...]``; absent:
all of them); a case needing an undeclared one is skipped by the harness with the feature named
(``unsupported: ["feature:NAME"]``), never sent, never passed. The features and what makes a case
need one (:func:`needs`), read from the whole case, the steps inside cards' ``effects`` included:

``continuous``
    a card with ``continuous`` entries (docs/spec/hkk-effects.md);
``lasting``
    a timed effect: the verb ``add_effect``, or ``lasting`` in ``given`` / ``then``;
``replace``
    a card with ``replace`` entries (mk:5.12);
``split``
    a ``damage`` / ``heal`` with ``targets`` or ``split`` (111.1.3–111.2.4);
``repeat``
    the verb ``repeat`` (106);
``delay``
    a delayed resource: the verb ``delay``, or ``delayed`` in ``given`` / ``then`` (114);
``combat_steps``
    the combat sub-phases: ``advance.step``, ``turn.combat_step``, ``combat_step`` events;
``windows``
    the life-saving window (136.8): a card's ``just_damaged`` in ``given`` / ``then``, or a
    regeneration activated (usable only right after the damage);
``decisions``
    pending decisions: the verb ``choose``, ``pending`` in ``given`` / ``then``, or a
    ``decision_pending`` event (4.23.5, 124.4);
``priority``
    contradicting effects decided by the priority order: the verb ``resolve_conflict`` or a
    ``conflict_resolved`` event (102, mk:5.10);
``reactions``
    hkk-case/2: the reaction queue — ``wait`` or ``answers`` on a step, a card with ``reaction:
    true``, an ability with ``reaction`` or ``on_play``, the verbs ``prevent`` / ``modify``,
    ``queue`` in ``then``, or a queue event (docs/spec/hkk-reactions.md);
``triggers``
    hkk-case/2: automatic abilities — an ability with ``trigger``, a delayed resource with
    ``trigger`` (a ``delay`` step's or one of ``given.delayed``, 114.2), a step's ``forgotten``, the
    verb ``make_up``, ``missed`` in ``then``, or a ``triggered`` / ``missed`` / ``made_up`` event;
``settles``
    an effect whose text settles a contradiction with another: ``settles`` on a conflict effect,
    a continuous or a replace entry (mk:5.10.A);
``costs``
    costs as numbers: an entry on ``cost_vp`` … ``cost_nekron`` (99.7) or ``ability_cost_vp`` …
    ``ability_cost_nekron`` (99.0, 99.3), or ``base_cost`` in ``then``;
``zone_scopes``
    a scope given as a mapping ``{zones, player, kind, color}`` (99.6);
``conditions``
    a card with ``colors``, ``condition`` or ``icons``, or of the subtype ``szingularitas``
    (rb7:ketszinu-lapok, mk:5.01.C, rb7:hegymelyi, rb7:szingularitas);
``rule_numbers``
    an entry on a ruleset number a card changes: ``regeneration_cap`` (136.7),
    ``guard_post_size`` (5.4.3), ``draw_per_turn`` (rb7:huzasi-fazis);
``strong_steps``
    a step with ``strong: true`` (101.0, 102.1);
``step_limits``
    a step with ``limit`` (mk:5.11.A for steps, mk:5.12.D);
``spells``
    the characteristics of spells (111): a card with ``modes``, a ``play`` with ``mode``, an entry
    ``prohibit: play`` (its ``spells``), the numbers ``spell_discard`` / ``spell_draw``, or a
    ``played`` event naming ``characteristics`` in ``then``;
``two_way``
    cards usable two ways (rb7:ketfelekeppen-hasznalhato-lapok): a card with ``play_as`` or
    ``original``, or a ``play`` with ``as``;
``copies``
    copies (131.11): the verbs ``copy`` / ``copy_abilities``, the keyword ``uncopyable``, or an
    ``abilities_copied`` event;
``mixed_costs``
    a combat ability whose cost names its kinds (``cost_kinds``, 129.3–129.4);
``card_marks``
    the marks of a card that carry a rule: the keywords ``anchor`` (4.14.4), ``guardian``
    (rb7:orzo), ``reward`` (rb7:jutalom), ``exiling`` (4.16.4), a card of the subtype ``avatar``
    (rb7:avatar), or a ``reward`` event;
``skipped_phases``
    a phase a turn passes over (4.10.7): a player's ``skip_phases`` in ``given`` / ``then``, or a
    ``phase_skipped`` event (the verb ``skip_phase`` is declared with the verbs).

Rulesets are declared with ``rulesets`` and verbs with ``verbs`` (protocol 1); a feature
covers what no verb name shows.
"""
from __future__ import annotations

from typing import Any

FEATURES = ("continuous", "lasting", "replace", "split", "repeat", "delay", "combat_steps",
            "windows", "decisions", "priority", "reactions", "triggers", "settles", "costs",
            "zone_scopes", "conditions", "rule_numbers", "strong_steps", "step_limits", "spells",
            "two_way", "copies", "mixed_costs", "card_marks", "skipped_phases")

# a step's verb -> the feature it needs by itself
_VERB_FEATURES = {"add_effect": "lasting", "repeat": "repeat", "delay": "delay",
                  "choose": "decisions", "resolve_conflict": "priority",
                  "prevent": "reactions", "modify": "reactions", "make_up": "triggers",
                  "copy": "copies", "copy_abilities": "copies"}
# an event named in then.events / then.no_events -> the feature
_EVENT_FEATURES = {"combat_step": "combat_steps", "decision_pending": "decisions",
                   "conflict_resolved": "priority",
                   **{e: "reactions" for e in ("queued", "resolved", "prevented", "prevent_set",
                                               "modify_set", "returned")},
                   **{e: "triggers" for e in ("triggered", "missed", "made_up")},
                   "abilities_copied": "copies", "reward": "card_marks",
                   "phase_skipped": "skipped_phases"}
# top-level keys of given / then -> the feature
_STATE_FEATURES = {"lasting": "lasting", "delayed": "delay", "pending": "decisions",
                   "queue": "reactions", "missed": "triggers"}
# keys of a step's arguments -> the feature
_ARG_FEATURES = {"wait": "reactions", "answers": "reactions", "with": "reactions",
                 "forgotten": "triggers", "strong": "strong_steps", "limit": "step_limits"}
# keys of an ability entry -> the feature
_ABILITY_FEATURES = {"trigger": "triggers", "reaction": "reactions", "on_play": "reactions"}
# keywords and subtypes that carry a rule of their own
MARK_KEYWORDS = ("anchor", "guardian", "reward", "exiling")
MARK_SUBTYPES = ("avatar",)

__all__ = ["FEATURES", "needs", "missing"]


def _verbs() -> frozenset[str]:
    from conformance.verbs import ALL_VERBS
    return frozenset(ALL_VERBS)


# the keys a mapping must have for any check of `_node` to apply (a mapping with none of them,
# e.g. a player's or a zone's, is only walked through)
_NODE_KEYS = frozenset(("continuous", "replace", "just_damaged", "settles", "number", "base_cost",
                        "scope", "kind", "keyword", "skip_phases", "modes", "prohibit", "spells",
                        "play_as", "original", "cost_kinds", "reaction", "trigger"))


def _walk(value: Any, found: set[str], verbs: frozenset[str]) -> None:
    """Every mapping and list inside ``value``: steps (a mapping of one known verb to its
    arguments) and card definitions (a mapping with ``continuous`` / ``replace`` lists)."""
    stack = [value]
    pop, push = stack.pop, stack.extend
    while stack:
        node = pop()
        if isinstance(node, dict):
            if len(node) == 1:
                (verb, args), = node.items()
                if verb in verbs and (args is None or isinstance(args, dict)):
                    _step(verb, args, found)
            if not _NODE_KEYS.isdisjoint(node):
                _node(node, found)
            push([v for v in node.values() if isinstance(v, _CONTAINERS)])
        elif isinstance(node, list):
            push([v for v in node if isinstance(v, _CONTAINERS)])   # ids and numbers hold nothing


_CONTAINERS = (dict, list)
# the values of a top-level key of given / then that do not count as given (absent, or empty)
_NOT_GIVEN = (None, [], {})


def _step(verb: str, args: dict | None, found: set[str]) -> None:
    """What a step (one known verb and its arguments) needs."""
    if verb in _VERB_FEATURES:
        found.add(_VERB_FEATURES[verb])
    if isinstance(args, dict):
        if verb in ("damage", "heal") and ("split" in args or "targets" in args):
            found.add("split")
        if verb == "advance" and args.get("step") is not None:
            found.add("combat_steps")
        if verb == "activate" and args.get("ability") == "regeneration":
            found.add("windows")
        if verb == "play" and "mode" in args:
            found.add("spells")
        if verb == "play" and "as" in args:
            found.add("two_way")
        found.update(f for k, f in _ARG_FEATURES.items() if k in args)


def _node(node: dict, found: set[str]) -> None:
    """What a mapping holding one of `_NODE_KEYS` needs (a card, an ability, an effect ...)."""
    get = node.get
    # a card's `continuous` is a list (`resolve_conflict`'s entries carry a flag of that name)
    if isinstance(get("continuous"), list) and node["continuous"]:
        found.add("continuous")
    if isinstance(get("replace"), list) and node["replace"]:
        found.add("replace")
    if "just_damaged" in node:
        found.add("windows")
    if isinstance(get("settles"), list):
        found.add("settles")
    number = get("number")
    if isinstance(number, str) and number.startswith(("cost_", "ability_cost_")) or "base_cost" in node:
        found.add("costs")
    if number in ("regeneration_cap", "guard_post_size", "draw_per_turn"):
        found.add("rule_numbers")
    if isinstance(get("scope"), dict):
        found.add("zone_scopes")
    kind = "kind" in node
    subtypes = get("subtypes") if kind and isinstance(get("subtypes"), list) else ()
    if kind and (get("colors") or get("condition") or get("icons") or "szingularitas" in subtypes):
        found.add("conditions")
    keyword = get("keyword")
    if keyword in MARK_KEYWORDS or any(t in MARK_SUBTYPES for t in subtypes):
        found.add("card_marks")
    if get("skip_phases"):
        found.add("skipped_phases")
    if get("modes") or get("prohibit") == "play" or "spells" in node \
            or number in ("spell_discard", "spell_draw"):
        found.add("spells")
    if get("play_as") or get("original"):
        found.add("two_way")
    if keyword == "uncopyable":
        found.add("copies")
    if "cost_kinds" in node and isinstance(keyword, str):
        found.add("mixed_costs")
    if get("reaction") is True and kind:
        found.add("reactions")                # an instant reaction card
    if isinstance(keyword, str):              # an ability entry
        found.update(f for k, f in _ABILITY_FEATURES.items() if get(k) not in (None, False))
    if isinstance(get("trigger"), dict) and "step" in node:
        found.add("triggers")                 # a delayed resource that comes on an event (114.2)


def _regenerates_by_index(given: Any, when: Any) -> bool:
    """An ``activate`` naming a card's regeneration by its index."""
    cards = given.get("cards") if isinstance(given, dict) else None
    for step in when if isinstance(when, list) else []:
        args = step.get("activate") if isinstance(step, dict) else None
        if not isinstance(args, dict) or not isinstance(cards, dict):
            continue
        idx, card = args.get("ability"), cards.get(args.get("card"))
        abilities = card.get("abilities") if isinstance(card, dict) else None
        if isinstance(idx, int) and not isinstance(idx, bool) and isinstance(abilities, list) \
                and 0 <= idx < len(abilities) and isinstance(abilities[idx], dict) \
                and abilities[idx].get("keyword") == "regeneration":
            return True
    return False


def needs(given: Any, when: Any, then: Any) -> list[str]:
    """The features a case needs, in the order of :data:`FEATURES`."""
    found: set[str] = set()
    verbs = _verbs()
    for part in (given, then):
        if isinstance(part, dict):
            for key, feature in _STATE_FEATURES.items():
                if part.get(key) not in _NOT_GIVEN:
                    found.add(feature)
            turn = part.get("turn")
            if isinstance(turn, dict) and turn.get("combat_step") is not None:
                found.add("combat_steps")
    _walk(given, found, verbs)
    _walk(when, found, verbs)
    if "windows" not in found and _regenerates_by_index(given, when):
        found.add("windows")
    if isinstance(then, dict):
        for key in ("events", "no_events"):
            for ev in then.get(key) or []:
                if isinstance(ev, dict) and ev.get("event") in _EVENT_FEATURES:
                    found.add(_EVENT_FEATURES[ev["event"]])
                if isinstance(ev, dict) and ev.get("event") == "played" and "characteristics" in ev:
                    found.add("spells")
        _walk(then.get("cards"), found, verbs)
    return [f for f in FEATURES if f in found]


def missing(needed: list[str], declared: list[str] | tuple[str, ...] | None) -> list[str]:
    """The features in ``needed`` that ``declared`` lacks (None: every feature is declared)."""
    if declared is None:
        return []
    return [f for f in needed if f not in declared]
