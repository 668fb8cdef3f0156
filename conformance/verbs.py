"""The verbs of `hkk-case/1` steps, as data.

A step of a case's ``when`` is a one-key mapping ``{verb: {arguments}}``
(docs/spec/hkk-case-format.md, "The steps (`when`)"). This module lists

* ``SPEC_VERBS``: the version-1 verbs of the spec, the player actions
  (``start_game`` … ``choose``) and the effects of a source (``damage`` …
  ``activate_card``), with the arguments of the spec's tables;
* ``PROJECT_VERBS``: the kit's additions (docs/spec/hkk-verbs.md, "Verbs the kit
  added", which tests/test_schema.py checks against them): ``pass``, ``shuffle``,
  ``search``, ``resolve_conflict``, the effects of hkk-effects.md, ``skip_phase``, ``return_szkritter`` and the
  reactions of hkk-case/2;
* ``ALL_VERBS``: both, in that order.

Each :class:`Verb` carries its arguments (:class:`Arg`, with a type tag), the
required ones, and the arguments every step may carry (``source``, ``by``).
The loader (``conformance/loader.py``) uses the type tags to find card ids in
steps; the JSON Schema (``conformance/schema/hkk-case-1.schema.json``) holds a
definition per verb whose properties and ``required`` are built from this
module by :func:`step_args_schema` (checked by ``tests/test_schema.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

PLAYERS = ("A", "B")
PHASES = ("preparation", "draw", "main1", "exchange", "combat", "main2", "end")
ZONES = ("deck", "hand", "reserve", "guard_post", "table", "graveyard", "void")
MOVE_DESTINATIONS = ("hand", "deck_top", "deck_bottom", "deck_shuffle", "graveyard",
                     "void", "reserve", "guard_post", "table")
ELEMENTS = ("fire", "ice", "acid", "lightning")
SKIPPABLE = PHASES[:-1]      # 4.10.7: the phases a turn may pass over (model.state.SKIPPABLE)

# Argument type tags. Those in CARD_TYPES carry card ids the loader checks.
#   player          "A" or "B"
#   card            a card id
#   cards           a list of card ids
#   card_or_player  a card id, or "A"/"B"
#   targets         a list of card ids or players
#   attacks         a list of {attacker: card id, target: card id or player}
#   card_def        a card definition with an `id` (create)
#   effects         resolve_conflict's effect list
#   amount/count    a non-negative integer;  integer: any integer
#   boolean, string, enum (with values), ability (index or keyword), any
CARD_TYPES = frozenset({"card", "cards", "card_or_player", "attacks"})


@dataclass(frozen=True)
class Arg:
    name: str
    type: str
    description: str
    values: tuple[str, ...] = ()
    since: int = 1                 # the version of the case format that added it (hkk-case/N)


@dataclass(frozen=True)
class Verb:
    name: str
    group: str                     # "action", "effect" (spec) or "project"
    description: str
    args: tuple[Arg, ...]
    required: tuple[str, ...] = ()
    clauses: tuple[str, ...] = ()  # where the rules of the verb live, informative
    one_of: tuple[str, ...] = ()   # at least one of these arguments is given
    since: int = 1                 # the version of the case format that added it (hkk-case/N)

    @property
    def arg_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.args)

    @property
    def allowed(self) -> frozenset[str]:
        """Every argument name the verb accepts, including ``source``/``by``."""
        return frozenset(self.arg_names) | frozenset(COMMON_ARGS)

    def arg(self, name: str) -> Arg | None:
        for a in self.args:
            if a.name == name:
                return a
        return COMMON_ARGS.get(name)


COMMON_ARGS: dict[str, Arg] = {
    "source": Arg("source", "string",
                  "the card whose effect the step is; without one the effect comes from an "
                  "unnamed source controlled by `by`"),
    "by": Arg("by", "player", "the player controlling the step's source (default: the active "
                              "player)"),
    "forgotten": Arg("forgotten", "cards_or_abilities",
                     "hkk-case/2: the automatic abilities this step sets off that the players "
                     "forget (card ids, or `card#index`): not carried out, they may be made up "
                     "this turn (133.4; docs/spec/hkk-reactions.md)", since=2),
}


def _p(desc="the player (default: the step's `by`, else the active player)"):
    return Arg("player", "player", desc)


_SPEC_ACTIONS = (
    Verb("start_game", "action",
         "both players draw their opening hand (3.6), then the first player's first turn runs "
         "to main1",
         (Arg("first", "player", "the starting player"),), (), ("3.6",)),
    Verb("play", "action", "play a card",
         (_p(), Arg("card", "card", "the card played"),
          Arg("from", "enum", "where the card is played from (default hand)",
              ("hand", "graveyard", "deck")),
          Arg("targets", "targets", "the targets chosen"),
          Arg("pay", "any", "choices of how the cost is paid"),
          Arg("wait", "boolean", "hkk-case/2: the card waits on the reaction queue for answers "
                                 "before it comes into being (4.21.1)", since=2),
          Arg("answers", "string", "hkk-case/2: a reaction card: the queue entry (or card) it "
                                   "answers (default: the top of the queue)", since=2),
          Arg("with", "cards", "hkk-case/2: the further cards the played card brings into play "
                               "(4.21.2)", since=2),
          Arg("as", "string", "project addition: the kind a card usable two ways is played as "
                              "(`play_as`, rb7:ketfelekeppen-hasznalhato-lapok)"),
          Arg("mode", "count", "project addition: the mode chosen for a modal card (`modes`, "
                               "111.7), its index")),
         ("card",)),
    Verb("activate", "action", "activate an ability of a card",
         (_p(), Arg("card", "card", "the card whose ability is activated"),
          Arg("ability", "ability", "the ability: index or keyword"),
          Arg("targets", "targets", "the targets chosen"),
          Arg("x", "integer", "the value of X"),
          Arg("pay", "any", "choices of how the ability's cost is paid (builders, sacrifice; a "
                            "combat ability's mix of kinds `{vp, components}`, 129.4)"),
          Arg("cards", "cards", "project addition: the cards the ability takes, chosen on use "
                                "(`exiling`, Semmizés: X: at most X cards of one graveyard, 4.16.4)"),
          Arg("wait", "boolean", "hkk-case/2: the ability waits on the reaction queue for answers "
                                 "before it takes effect (4.21.1, 136.5)", since=2),
          Arg("answers", "string", "hkk-case/2: a reaction ability: the queue entry (or card) it "
                                   "answers (default: the top of the queue)", since=2)),
         ("card",)),
    Verb("advance", "action",
         "run the game forward to the next start of a phase, carrying out every automatic step "
         "on the way; stops early when the game ends",
         (Arg("to", "enum", "the phase", PHASES),
          Arg("step", "combat_step", "project addition: with `to: combat`, the sub-phase I–VII to "
                                     "stop in (rb7:harci-fazis; docs/spec/hkk-verbs.md)")), ("to",)),
    Verb("exchange", "action", "the exchange (csere) of the guard post and the reserve",
         (_p(), Arg("guard_post", "cards", "the guard post afterwards, left to right"),
          Arg("reserve", "cards", "the reserve afterwards, left to right")),
         (), ("5.4",)),
    Verb("attack", "action", "declare attacks",
         (_p(), Arg("attacks", "attacks", "the attacks: [{attacker, target}], the target a "
                                          "creature or building id or a player")),
         ("attacks",)),
    Verb("strike_back", "action",
         "the defender's choice of which attacker it strikes back when two attack it",
         (_p(), Arg("defender", "card", "the defending creature"),
          Arg("attacker", "card", "the attacker struck back")),
         ("defender", "attacker")),
    Verb("sacrifice_for_components", "action", "sacrifice creatures for szörnykomponens",
         (_p(), Arg("cards", "cards", "the creatures sacrificed")), ("cards",)),
    Verb("choose", "action", "answer a pending choice",
         (_p(), Arg("cards", "cards", "the cards chosen"),
          Arg("value", "any", "the value chosen")),
         (), ("4.23.5",)),
)

_SPEC_EFFECTS = (
    Verb("damage", "effect", "deal damage",
         (Arg("target", "card_or_player", "a card or a player"),
          Arg("amount", "amount", "how much"),
          Arg("element", "enum", "the element of the damage", ELEMENTS),
          Arg("targets", "targets", "project addition: several at once, each the whole (modified) "
                                    "amount (111.1.2–111.1.3)"),
          Arg("split", "split", "project addition: target -> share of the amount, modified once "
                                "before the split (111.1.4)")),
         ("amount",), (), ("target", "targets", "split")),
    Verb("heal", "effect", "heal (never above the maximum, 3.18)",
         (Arg("target", "card_or_player", "a card or a player"),
          Arg("amount", "amount", "how much"),
          Arg("targets", "targets", "project addition: several at once (111.2.3)"),
          Arg("split", "split", "project addition: target -> share, modified once before the "
                                "split (111.2.4)")),
         ("amount",), ("3.18",), ("target", "targets", "split")),
    Verb("draw", "effect", "draw cards",
         (_p(), Arg("count", "count", "how many (default 1)")), (), ("4.12",)),
    Verb("discard", "effect", "discard from the hand",
         (_p(), Arg("count", "count", "how many"),
          Arg("cards", "cards", "which (who chooses per 4.17.2)"),
          Arg("to", "enum", "graveyard (default) or void", ("graveyard", "void")),
          Arg("as_cost", "boolean", "the discard is a cost (paid in full or refused, 4.17.5)")),
         (), ("4.17",)),
    Verb("mill", "effect", "pakliból dobás: from the top of the deck",
         (_p(), Arg("count", "count", "how many"),
          Arg("to", "enum", "graveyard (default) or void", ("graveyard", "void")),
          Arg("as_cost", "boolean", "the mill is a cost (4.18.3)")),
         (), ("4.18",)),
    Verb("move", "effect", "move a card to a zone",
         (Arg("card", "card", "the card"),
          Arg("to", "enum", "the destination", MOVE_DESTINATIONS)),
         ("card", "to")),
    Verb("exile", "effect", "semmizés: from the graveyard to the Void",
         (Arg("card", "card", "the card"),), ("card",), ("4.16",)),
    Verb("put_counter", "effect", "put counters on a card",
         (Arg("card", "card", "the card"), Arg("counter", "string", "the counter's name"),
          Arg("count", "count", "how many (default 1)")),
         ("card", "counter")),
    Verb("remove_counter", "effect", "remove counters from a card",
         (Arg("card", "card", "the card"), Arg("counter", "string", "the counter's name"),
          Arg("count", "count", "how many (default 1)")),
         ("card", "counter")),
    Verb("sacrifice", "effect", "sacrifice a permanent",
         (_p(), Arg("card", "card", "the card"),
          Arg("forced", "boolean", "kényszerített áldozás (104)")),
         ("card",), ("104",)),
    Verb("sacrifice_hp", "effect", "Ép sacrifice (103)",
         (_p(), Arg("amount", "amount", "how much"),
          Arg("as_cost", "boolean", "as a cost: refused with fewer Ép (103.2)")),
         ("amount",), ("103",)),
    Verb("sacrifice_max_hp", "effect", "maximum-Ép sacrifice",
         (_p(), Arg("amount", "amount", "how much"),
          Arg("as_cost", "boolean", "as a cost")),
         ("amount",), ("103",)),
    Verb("change_max_hp", "effect", "change the maximum Ép",
         (_p(), Arg("delta", "integer", "the change (negative lowers)")), ("delta",)),
    Verb("change_max_vp", "effect", "change the maximum VP",
         (_p(), Arg("delta", "integer", "the change (negative lowers)")), ("delta",)),
    Verb("gain_vp", "effect", "gain VP (never above the maximum, 3.18); a negative amount destroys VP (115.0), never below 0",
         (_p(), Arg("amount", "integer", "how much (negative: destroyed)")), ("amount",)),
    Verb("gain_components", "effect", "gain szörnykomponens; a negative amount destroys them (115.0), never below 0",
         (_p(), Arg("amount", "integer", "how much (negative: destroyed)")), ("amount",)),
    Verb("steal", "effect", "gazdacsere: change the controller of a permanent",
         (Arg("card", "card", "the card"), Arg("to", "player", "the new controller")),
         ("card",), ("5.6.2",)),
    Verb("create", "effect", "create a card (előre kikészített lap, 96)",
         (_p(), Arg("card", "card_def", "the definition, as under `cards`, with an `id`"),
          Arg("zone", "enum", "the zone it is created in", ZONES)),
         ("card",), ("96",)),
    Verb("passivate", "effect", "turn an active permanent passive",
         (Arg("card", "card", "the card"),), ("card",), ("5.5.7",)),
    Verb("activate_card", "effect", "turn a passive permanent active",
         (Arg("card", "card", "the card"),), ("card",)),
)

_PROJECT = (
    Verb("shuffle", "project", "shuffle the deck with the state's seeded generator (4.15.0)",
         (_p(),), (), ("4.15.0",)),
    Verb("search", "project",
         "take a named card out of the deck (4.13); to the graveyard/Void it is a mill (4.13.2)",
         (_p(), Arg("card", "card", "the card"),
          Arg("to", "enum", "the destination (default hand)",
              ("hand", "reserve", "deck_top", "graveyard", "void"))),
         ("card",), ("4.13",)),
    Verb("resolve_conflict", "project",
         "resolve two contradicting effects by the ruleset's priority order (102)",
         (Arg("effects", "effects", "the effects: [{id, strong, continuous, timestamp, ability, "
                                    "prohibiting, settles}]"),
          Arg("policy", "string", "the priority policy")),
         ("effects",), ("102",)),
    Verb("add_effect", "project",
         "a one-shot effect creates a timed effect (99.4) that reaches only what is in play now (99.5)",
         (Arg("effect", "continuous_entry", "the effect: a continuous-effect entry"),
          Arg("until", "until", "end_of_turn (default), end_of_phase or {turns: N}"),
          Arg("id", "string", "the timed effect's id (default lasting-<n>)")),
         ("effect",), ("99.4", "99.5")),
    Verb("delay", "project",
         "a delayed resource (114): the step comes at `at` (hkk-case/2: or on an event, `trigger`), its "
         "decisions made now (114.4)",
         (Arg("at", "enum", "when it comes", ("end_of_turn", "end_of_phase", "next_preparation")),
          Arg("step", "step", "the step carried out then"),
          Arg("id", "string", "the delayed resource's id (default delayed-<n>)"),
          Arg("trigger", "trigger", "hkk-case/2, instead of `at`: it comes once, when an event of this "
                               "pattern happens (an automatic ability's `trigger`, 114.2; "
                               "docs/spec/hkk-effects.md)", since=2)),
         ("step",), ("114",), one_of=("at", "trigger")),
    Verb("repeat", "project",
         "the effects of a card or of one of its abilities carried out again (106), the decisions "
         "made again",
         (Arg("card", "card", "the card whose effects are repeated"),
          Arg("ability", "ability", "an ability of the card (index or keyword) instead of its effects"),
          Arg("targets", "targets", "the targets chosen again (106.2)")),
         ("card",), ("106",)),
    Verb("copy", "project",
         "a token copy of a card, as it is now, comes into being under `player`'s control (131.11; "
         "96.6, 96.7); an `uncopyable` card is not copied",
         (_p("the player who gets the copy (its owner and controller; default: the step's `by`)"),
          Arg("card", "card", "the card copied"),
          Arg("id", "string", "the copy's id (a card id the case does not define)")),
         ("card", "id"), ("131.11", "96")),
    Verb("copy_abilities", "project",
         "the permanent `to` gets the abilities of the card `from` while it stays on the table "
         "(131.11: not from an `uncopyable` card, not even in part)",
         (Arg("from", "card", "the card whose abilities are copied"),
          Arg("to", "card", "the permanent that gets them")),
         ("from", "to"), ("131.11", "128.1")),
    Verb("pass", "project",
         "the player does not wish to act further in this phase (4.11.7); two passes in a row "
         "end the phase (4.11.8)",
         (_p(),), (), ("4.11.7", "4.11.8")),
    Verb("skip_phase", "project",
         "an effect: the player's next turn passes over the phase — it does not take place, nor "
         "do the effects timed to it (4.10.7); the end phase is never skipped",
         (_p("the player whose next turn skips the phase (default: the step's `by`)"),
          Arg("phase", "enum", "the phase skipped", SKIPPABLE)),
         ("phase",), ("4.10.7",)),
    Verb("return_szkritter", "project",
         "whenever the player could use an instant, they spend 1 VP and take a szkritter creature "
         "of theirs (subtype `szkritter`, owned and controlled) back from the table into their "
         "hand (rb7:szkritter); not an ability",
         (_p(), Arg("card", "card", "the szkritter creature")),
         ("card",), ("rb7:szkritter",)),
)

# hkk-case/2 (docs/spec/hkk-reactions.md)
_VERSION_2 = (
    Verb("make_up", "project",
         "a forgotten automatic effect is carried out now, until the end of the turn (133.4)",
         (_p(), Arg("card", "card", "the card whose automatic ability was forgotten"),
          Arg("ability", "ability", "the ability: index or keyword")),
         ("card",), ("133.4",), since=2),
    Verb("prevent", "project",
         "a reaction's effect: the card or ability it answers is prevented (137.3, 4.21.2)",
         (Arg("entry", "string", "the queue entry prevented (default: the one the reaction answers)"),),
         (), ("137.3", "4.21.2"), since=2),
    Verb("modify", "project",
         "a reaction's effect: the damage and healing of what it answers change by `amount`",
         (Arg("amount", "integer", "added to every damage / heal amount (never below 0)"),
          Arg("entry", "string", "the queue entry modified (default: the one the reaction answers)")),
         ("amount",), ("rb7:kijatszasi-sorrend",), since=2),
)

# 101.0, 102.1: an effect step whose text says "mindenképpen" (model/overrides.py): it prevails
# over a prohibition or an immunity the priority order puts below it
STRONG_VERBS = ("damage", "heal", "draw", "passivate", "put_counter", "remove_counter", "steal", "move")
_STRONG = Arg("strong", "boolean", "project addition: the step's text says \"mindenképpen\" (101.0, 102.1): a "
                                "prohibition or immunity the priority order puts below it does not stop it "
                                "(docs/spec/hkk-effects.md#strong-steps)")


# mk:5.11.A for steps, mk:5.12.D: the limit of a step (model/limits.py)
LIMIT_VERBS = ("gain_vp", "heal", "damage")
_LIMIT = Arg("limit", "integer", "project addition: the korlátozó tényező (mk:5.11.A): `gain_vp` / `heal` raise "
                                 "the value not above it, `damage` lowers the Ép not below it; a replacement "
                                 "keeps it (mk:5.12.D; docs/spec/hkk-effects.md#the-limit-of-a-step)")


def _with_strong(v: Verb) -> Verb:
    v = replace(v, args=v.args + (_STRONG,)) if v.name in STRONG_VERBS else v
    return replace(v, args=v.args + (_LIMIT,)) if v.name in LIMIT_VERBS else v


_SPEC_EFFECTS = tuple(_with_strong(v) for v in _SPEC_EFFECTS)
_PROJECT = tuple(_with_strong(v) for v in _PROJECT)
SPEC_VERBS: dict[str, Verb] = {v.name: v for v in _SPEC_ACTIONS + _SPEC_EFFECTS}
PROJECT_VERBS: dict[str, Verb] = {v.name: v for v in _PROJECT + _VERSION_2}
ALL_VERBS: dict[str, Verb] = {**SPEC_VERBS, **PROJECT_VERBS}
FORMATS = ("hkk-case/1", "hkk-case/2")     # the case formats, oldest first (docs/spec/hkk-versions.md)


def version_of(fmt: str) -> int:
    """The version number of a case format name (``hkk-case/2`` → 2)."""
    return FORMATS.index(fmt) + 1


def verbs_of(version: int) -> dict[str, Verb]:
    """The verbs a case of that format version may use."""
    return {n: v for n, v in ALL_VERBS.items() if v.since <= version}
ACTION_VERBS = tuple(v.name for v in _SPEC_ACTIONS)
EFFECT_VERBS = tuple(v.name for v in _SPEC_EFFECTS)

assert not set(SPEC_VERBS) & set(PROJECT_VERBS)
for _v in ALL_VERBS.values():
    assert set(_v.required) <= set(_v.arg_names), _v.name
    assert not set(_v.arg_names) & set(COMMON_ARGS), _v.name


# --------------------------------------------------------------------------
# JSON Schema fragments (the schema file's per-verb definitions are these)

def arg_schema(arg: Arg) -> dict:
    """The JSON Schema of one argument (``$ref``s point into the case schema's ``$defs``)."""
    t = arg.type
    if t == "player":
        s = {"$ref": "#/$defs/player"}
    elif t == "card":
        s = {"$ref": "#/$defs/card_id"}
    elif t == "cards":
        s = {"type": "array", "items": {"$ref": "#/$defs/card_id"}}
    elif t == "card_or_player":
        s = {"$ref": "#/$defs/card_or_player"}
    elif t == "targets":
        s = {"type": "array", "items": {"$ref": "#/$defs/card_or_player"}}
    elif t == "attacks":
        s = {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/attack"}}
    elif t == "card_def":
        s = {"$ref": "#/$defs/new_card"}
    elif t == "effects":
        s = {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/conflict_effect"}}
    elif t in ("amount", "count"):
        s = {"type": "integer", "minimum": 0}
    elif t == "integer":
        s = {"type": "integer"}
    elif t == "boolean":
        s = {"type": "boolean"}
    elif t == "string":
        s = {"type": "string", "minLength": 1}
    elif t == "enum":
        s = {"enum": list(arg.values)}
    elif t == "ability":
        s = {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "minLength": 1}]}
    elif t == "split":
        s = {"type": "object", "minProperties": 1,
             "propertyNames": {"$ref": "#/$defs/card_or_player"},
             "additionalProperties": {"type": "integer", "minimum": 0}}
    elif t == "combat_step":
        s = {"$ref": "#/$defs/combat_step"}
    elif t == "continuous_entry":
        s = {"$ref": "#/$defs/continuous_entry"}
    elif t == "until":
        s = {"anyOf": [{"enum": ["end_of_turn", "end_of_phase"]},
                       {"type": "object", "properties": {"turns": {"type": "integer", "minimum": 1}},
                        "required": ["turns"], "additionalProperties": False}]}
    elif t == "step":
        s = {"$ref": "#/$defs/step"}
    elif t == "trigger":
        s = {"$ref": "#/$defs/trigger"}
    elif t == "cards_or_abilities":
        s = {"type": "array", "items": {"type": "string", "pattern": "^[^#]+(#[0-9]+)?$"}}
    elif t == "any":
        s = {}
    else:  # pragma: no cover - guarded by the tests
        raise ValueError(f"unknown argument type {t!r}")
    return {"description": arg.description, **s}


def step_args_schema(verb: Verb, version: int = 1) -> dict:
    """The JSON Schema of a verb's argument mapping (``{verb: <this>}``) in a format version."""
    props = {a.name: arg_schema(a) for a in verb.args if a.since <= version}
    for a in COMMON_ARGS.values():
        if a.since <= version:
            props[a.name] = arg_schema(a)
    out = {
        "title": f"{verb.name} ({'project addition' if verb.group == 'project' else verb.group})",
        "description": verb.description,
        "type": "object",
        "properties": props,
        "additionalProperties": False,
    }
    if verb.required:
        out["required"] = list(verb.required)
    one_of = [name for name in verb.one_of if verb.arg(name).since <= version]
    if one_of:
        out["anyOf"] = [{"required": [name]} for name in one_of]
    return out
