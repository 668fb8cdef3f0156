"""The game state: players, zones, cards — the base state only.

Covers the shape of `hkk-case/1` (`given` and the returned state) and the
zones of Kódex 4.2 (deck), 4.4 (hand), 4.7 (graveyard), 4.8 (Void), 5.3
(reserve), 5.4 (guard post), 5.5 (other permanents on the table), with the
owner (5.6.1) kept on the card and the controller (5.6.2) derived from the
zone that lists it. Computed values (current Sebzés and Ép with counters and
bonuses) are not stored: model/stats.py derives them.
"""
from __future__ import annotations

import marshal
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any, Collection, Iterator

from .errors import InputProblem
from .turn_info import TurnInfo
from .forms import FORM_FIELDS, check_modes
from .ruleset import Ruleset
from .shapes import (check_condition, check_delayed, check_entry, check_lasting, check_replacer,
                     check_step)

PLAYERS = ("A", "B")
PHASES = ("preparation", "draw", "main1", "exchange", "combat", "main2", "end")
ZONES = ("deck", "hand", "reserve", "guard_post", "table", "graveyard", "void")
TABLE_ZONES = ("reserve", "guard_post", "table")
KINDS = ("creature", "instant", "sorcery", "enchantment", "item", "building", "skill",
         "body_part", "location")
PERMANENT_KINDS = ("creature", "enchantment", "item", "building", "skill", "body_part", "location")

# card fields this module reads; every other field of a card definition is kept verbatim
_CARD_FIELDS = {"kind", "subtypes", "name", "owner", "controller", "cost", "damage", "hp",
                "components_yield", "active", "counters", "wounds", "premade", "standalone_token",
                "abilities", "attached_to", "bonus", "effects", "needs_target", "id",
                "continuous", "replace", "just_damaged", "reaction", "colors", "condition",
                "play_as", "modes", "original", "icons",
                # returned-only fields, accepted back so a returned state can be a `given`
                "zone", "player", "max_hp", "base_damage", "base_hp", "base_cost", "dying", "attacking"}


def jcopy(x: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, tuples, sets of plain values): the engine's
    bookkeeping and card data are only such data (the case loader and the protocol read JSON values
    only). `marshal` copies them in C, several times faster than `copy.deepcopy` on the hot path of
    `State.clone` and `Card.copy`."""
    return marshal.loads(marshal.dumps(x))


def other(player: str) -> str:
    return "B" if player == "A" else "A"


@dataclass(slots=True)          # 32 fields: a slotted card takes a fifth of the memory of a dict one
class Card:
    id: str
    kind: str
    owner: str
    reaction: bool                # an instant reaction card (rb7:kijatszasi-sorrend): also played as a reaction
    name: str | None = None
    subtypes: list[str] = field(default_factory=list)
    cost: dict[str, int] = field(default_factory=dict)
    base_damage: int | None = None
    base_hp: int | None = None
    components_yield: int = 0
    active: bool = True
    counters: dict[str, int] = field(default_factory=dict)
    wounds: int = 0
    premade: bool = False
    standalone_token: bool = False
    abilities: list[dict[str, Any]] = field(default_factory=list)
    attached_to: str | None = None
    bonus: dict[str, int] = field(default_factory=dict)
    effects: list[dict[str, Any]] = field(default_factory=list)
    continuous: list[dict[str, Any]] = field(default_factory=list)   # model/continuous.py
    replace: list[dict[str, Any]] = field(default_factory=list)      # model/replacement.py
    needs_target: bool = False
    colors: list[str] = field(default_factory=list)     # rb7:ketszinu-lapok: a card of two colours is both
    icons: list[str] = field(default_factory=list)      # the card's icons (rb7:hegymelyi), not subtypes
    condition: list[dict[str, Any]] = field(default_factory=list)   # play conditions (model/conditions.py)
    # rb7:ketfelekeppen-hasznalhato-lapok: kind -> the fields of the other forms the card may be
    # played as (FORM_FIELDS, as Card attributes); 111.7: the modes of a modal card, one chosen at
    # play; `original`: the attributes a played form, a chosen mode or copied abilities replaced,
    # taken back when the card leaves the table (model/forms.py, model/zones.py)
    play_as: dict[str, dict[str, Any]] = field(default_factory=dict)
    modes: list[dict[str, Any]] = field(default_factory=list)
    original: dict[str, Any] | None = None
    enters_active: bool = False   # the definition says `active: true` (131.6.1): enters the table active
    timestamp: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    # engine-private marks of a permanent (119.2 freeze time, 127.0.4/127.0.6 timed counters);
    # part of the base state (compared, copied), never in a returned state
    marks: dict[str, Any] = field(default_factory=dict)

    def copy(self) -> "Card":
        """A copy sharing nothing mutable with this card (faster than deepcopy on the hot path).
        Every field is named here (a slotted class has no `__dict__` to copy in one go;
        tests/test_state_copy.py checks that none is missing)."""
        c = object.__new__(Card)
        c.id, c.kind, c.owner, c.reaction, c.name = self.id, self.kind, self.owner, self.reaction, self.name
        c.base_damage, c.base_hp, c.components_yield = self.base_damage, self.base_hp, self.components_yield
        c.active, c.wounds, c.premade, c.standalone_token = self.active, self.wounds, self.premade, \
            self.standalone_token
        c.attached_to, c.needs_target, c.enters_active, c.timestamp = self.attached_to, self.needs_target, \
            self.enters_active, self.timestamp
        c.continuous, c.replace, c.condition = self.continuous, self.replace, self.condition   # never changed in place
        c.subtypes = list(self.subtypes)
        c.colors = list(self.colors)
        c.icons = list(self.icons)
        c.cost = dict(self.cost)
        c.counters = dict(self.counters)
        c.bonus = dict(self.bonus)
        c.abilities = jcopy(self.abilities) if self.abilities else []
        c.effects = jcopy(self.effects) if self.effects else []
        c.extra = jcopy(self.extra) if self.extra else {}
        c.marks = jcopy(self.marks) if self.marks else {}
        if self.play_as or self.modes or self.original:
            c.play_as = jcopy(self.play_as)
            c.modes = jcopy(self.modes)
            c.original = jcopy(self.original)
        else:
            c.play_as, c.modes, c.original = self.play_as, self.modes, self.original
        return c

    @property
    def is_creature(self) -> bool:
        return self.kind == "creature"

    def counter(self, name: str) -> int:
        return self.counters.get(name, 0)

    def has_subtype(self, name: str) -> bool:
        return name in self.subtypes


class Cards(MutableMapping):
    """The cards of a state (id → Card), copied when first used.

    `State.clone` does not copy every card: the clone and the state it came from share the cards
    (`_shared`, never changed through either) and each takes its own copy of a card the first
    time it reads it (`_own`). A step thus copies only the cards it touches, whatever the number
    of cards in the decks. A Card object belongs to the state it was read from: read it again
    from a clone to change the clone. `peek` reads without copying, for code that only looks.
    """
    __slots__ = ("_shared", "_own")

    def __init__(self, cards: dict[str, Card] | None = None):
        self._shared: dict[str, Card] = {}
        self._own: dict[str, Card] = dict(cards or {})

    def __getitem__(self, cid: str) -> Card:
        card = self._own.get(cid)
        if card is None:
            card = self._shared[cid].copy()
            self._own[cid] = card
        return card

    def __setitem__(self, cid: str, card: Card) -> None:
        self._own[cid] = card

    def __delitem__(self, cid: str) -> None:
        if cid not in self:
            raise KeyError(cid)
        if cid in self._shared:
            self._shared = {k: v for k, v in self._shared.items() if k != cid}
        self._own.pop(cid, None)

    def __contains__(self, cid: object) -> bool:
        return cid in self._own or cid in self._shared

    def __iter__(self) -> Iterator[str]:
        yield from self._shared
        for cid in self._own:
            if cid not in self._shared:
                yield cid

    def __len__(self) -> int:
        return len(self._shared) + sum(1 for cid in self._own if cid not in self._shared)

    def __repr__(self) -> str:
        return f"Cards({dict(self.peek_items())!r})"

    def peek(self, cid: str) -> Card:
        """The card, not copied: only for reading."""
        card = self._own.get(cid)
        return card if card is not None else self._shared[cid]

    def peek_items(self) -> Iterator[tuple[str, Card]]:
        """(id, card) of every card, not copied: only for reading."""
        for cid in self:
            yield cid, self.peek(cid)

    def clone(self) -> "Cards":
        """A table equal to this one; from now on both copy a card when they first read it."""
        if self._own:
            merged = dict(self._shared)
            merged.update(self._own)
            self._shared, self._own = merged, {}
        other = Cards()
        other._shared = self._shared
        return other


@dataclass
class Player:
    name: str
    hp: int
    max_hp: int
    vp: int
    max_vp: int
    components: int = 0
    turn: int = 1
    zones: dict[str, list[str]] = field(default_factory=lambda: {z: [] for z in ZONES})
    # 4.10.7: the phases of the player's next turn that do not take place (model/turn.py); a new
    # list is assigned on every change, never changed in place (a clone shares it)
    skip: list[str] = field(default_factory=list)

    # the zones whose lists this object owns, or None: all of them (a player never cloned). Not a
    # field of the dataclass: `State.clone` shares the zone lists between the state and its clone
    # and gives each side a new, empty set. A list is changed only through `own_zone` (the zone
    # mover, model/zones.py), which copies a list it does not own first; code that keeps a zone's
    # list while cards move (a draw loop) takes it from `own_zone` too.
    owned = None

    def own_zone(self, zone: str) -> list[str]:
        """The player's list of `zone`, its own (copied first if shared): the list every later
        change of the zone in this state goes to."""
        ids = self.zones[zone]
        owned = self.owned
        if owned is not None and zone not in owned:
            ids = self.zones[zone] = list(ids)
            owned.add(zone)
        return ids


@dataclass
class State:
    active: str
    phase: str
    players: dict[str, Player]
    cards: Cards
    seed: int
    # the version of the case format the steps are read in (hkk-case/N): version 2 gives `pass`
    # in combat, combat abilities and the order of actions their rulebook meaning (model/turn.py)
    version: int
    removed: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None     # None: ongoing
    rng_counter: int = 0
    clock: int = 0                           # timestamps for "played later" (102.3)
    pending: dict[str, Any] | None = None
    lasting: list[dict[str, Any]] = field(default_factory=list)   # timed effects (99.4, model/continuous.py)
    delayed: list[dict[str, Any]] = field(default_factory=list)   # delayed resources (114, model/delayed.py)
    turn_info: TurnInfo = field(default_factory=TurnInfo)  # per-turn bookkeeping (model/turn_info.py)
    # the reaction queue (4.21.1, model/queue.py): the cards being played and the abilities being
    # used that wait for answers, bottom first; each entry a mapping (id, kind, player, card …)
    queue: list[dict[str, Any]] = field(default_factory=list)
    # automatic effects forgotten this turn that may still be made up (133.4, model/triggers.py)
    missed: list[dict[str, Any]] = field(default_factory=list)
    # card id → (player, zone) of the zone listing it: the index `locate` reads in constant time.
    # Kept by the one zone mover (model/zones.py) with every change of a zone's members, built by
    # `from_given` (rebuilt from the zone lists by `index_zones`) and copied by `clone`.
    where: dict[str, tuple[str, str]] = field(default_factory=dict)
    # ids of the cards whose data carry continuous or replacement effects (never changes for a
    # card): model/continuous.py looks only at them
    effect_cards: frozenset[str] = frozenset()
    # ids of the cards with automatic abilities (`trigger` entries, 133): model/triggers.py looks
    # only at them
    trigger_cards: frozenset[str] = frozenset()
    # host id → the permanents sitting on it (`sitting`, `hosts`, `attached_to`), computed when first
    # asked; every change of a zone (model/zones.py) or of an `attached_to` (model/play.py) forgets it
    hosts_cache: dict[str, tuple[str, ...]] | None = field(default=None, compare=False, repr=False)

    def clone(self) -> "State":
        """A copy sharing nothing mutable: `apply` works on it, so a refused step changes nothing.

        The cards are shared until first read (`Cards.clone`): each state copies a card when it
        reads it, so the clone's cost does not grow with the cards a step does not touch. The zone
        lists are shared until first changed (`Player.own_zone`), by either side."""
        st = object.__new__(State)
        st.__dict__.update(self.__dict__)           # a shallow copy, several times faster than copy.copy
        st.players = {}
        for p, pl in self.players.items():
            npl = object.__new__(Player)
            npl.__dict__.update(pl.__dict__)
            npl.zones = dict(pl.zones)
            pl.owned = set()                        # the lists are shared now: neither side owns one
            npl.owned = set()
            st.players[p] = npl
        st.cards = self.cards.clone()
        st.removed = list(self.removed)
        st.result = jcopy(self.result) if self.result else None
        st.pending = jcopy(self.pending) if self.pending else None
        st.turn_info = self.turn_info.copy()
        # most states hold none of these: an empty one costs no comprehension
        st.lasting = [dict(x) for x in self.lasting] if self.lasting else []
        st.delayed = [dict(x) for x in self.delayed] if self.delayed else []
        st.queue = jcopy(self.queue) if self.queue else []
        st.missed = [dict(x) for x in self.missed] if self.missed else []
        st.where = dict(self.where)
        return st

    def index_zones(self) -> None:
        """(Re)build the card → zone index from the zone lists."""
        self.hosts_cache = None
        self.where = {cid: (pname, zone) for pname, pl in self.players.items()
                      for zone, ids in pl.zones.items() for cid in ids}

    # -- where things are -------------------------------------------------
    def locate(self, card_id: str) -> tuple[str, str] | None:
        """(player, zone) of the zone listing the card, or None (removed or never placed)."""
        return self.where.get(card_id)

    def zone_of(self, card_id: str) -> str | None:
        loc = self.locate(card_id)
        if loc:
            return loc[1]
        return "removed" if card_id in self.removed else None

    def on_table(self, card_id: str) -> bool:
        loc = self.locate(card_id)
        return bool(loc) and loc[1] in TABLE_ZONES

    def controller(self, card_id: str) -> str | None:
        """5.6.2: the player on whose side of the table the card lies."""
        loc = self.locate(card_id)
        return loc[0] if loc and loc[1] in TABLE_ZONES else None

    def permanents(self, player: str | None = None) -> Iterator[Card]:
        """The permanents' cards, not copied (`Cards.peek`): only for reading. (from_given stamps
        the ones of the state it builds: that state's cards are its own, never shared yet.)"""
        peek = self.cards.peek
        for pname in (player,) if player else PLAYERS:
            for zone in TABLE_ZONES:
                for cid in self.players[pname].zones[zone]:
                    yield peek(cid)

    def creatures_on_table(self, player: str | None = None) -> Iterator[Card]:
        return (c for c in self.permanents(player) if c.is_creature)

    def sitting(self) -> dict[str, tuple[str, ...]]:
        """host id → the permanents sitting on it (`attached_to`), in the order of the zones;
        computed when first asked and kept until a zone or an `attached_to` changes (`hosts_cache`)."""
        sitting = self.hosts_cache
        if sitting is None:
            peek = self.cards.peek
            found: dict[str, list[str]] = {}
            for cid in self.permanent_ids():
                host = peek(cid).attached_to
                if host is not None:
                    found.setdefault(host, []).append(cid)
            sitting = self.hosts_cache = {host: tuple(ids) for host, ids in found.items()}
        return sitting

    def hosts(self) -> Collection[str]:
        """The ids of the cards that some permanent sits on (`attached_to`)."""
        return self.sitting().keys()

    def attached_to(self, card_id: str) -> list[str]:
        """The permanents sitting on the card, a new list."""
        return list(self.sitting().get(card_id, ()))

    def permanent_ids(self, player: str | None = None) -> list[str]:
        """The ids of the permanents, a new list (no card is read, so none is copied)."""
        players = self.players
        return [cid for pname in ((player,) if player else PLAYERS) for zone in TABLE_ZONES
                for cid in players[pname].zones[zone]]

    def tick(self) -> int:
        self.clock += 1
        return self.clock


# ---------------------------------------------------------------------------
# building a state from `given`
# ---------------------------------------------------------------------------

def _int(value: Any, where: str, field: str = "", key: Any = None) -> int:
    """``value`` when it is an integer, else an input problem at ``where`` + ``field`` (+ ``/key``):
    the path is put together only then (a random game builds a state of 40 cards per game)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputProblem(f"{where}{field}{'' if key is None else f'/{key}'}: expected an integer, "
                           f"got {value!r}")
    return value


def _names(value: Any, where: str, field: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(x, str) and x for x in value):
        raise InputProblem(f"{where}{field}: a list of names")
    return list(value)


ICONS = ("hegymelyi",)                      # rb7:hegymelyi (model/conditions.py)
# 4.10.7: the phases an effect may make a player's next turn pass over (the end phase is not one:
# the end of the turn, 3.14–3.15, falls in it)
SKIPPABLE = PHASES[:-1]


def _colors(value: Any, where: str) -> list[str]:
    """A card's colours: one or two (rb7:ketszinu-lapok; the case schemas' maxItems 2)."""
    colors = _names(value, where, "/colors")
    if len(colors) > 2:
        raise InputProblem(f"{where}/colors: one or two colours (rb7:ketszinu-lapok), not {len(colors)}")
    return colors


def _icons(value: Any, where: str) -> list[str]:
    icons = _names(value, where, "/icons")
    for name in icons:
        if name not in ICONS:
            raise InputProblem(f"{where}/icons: unknown icon {name!r} (known: {', '.join(ICONS)})")
    return icons


def _skips(value: Any, where: str) -> list[str]:
    """A player's `skip_phases`: phases of their next turn that do not take place (4.10.7)."""
    skips = _names(value, where, "")
    for phase in skips:
        if phase not in SKIPPABLE:
            raise InputProblem(f"{where}: {phase!r} is not a phase a turn may pass over "
                               f"(one of {', '.join(SKIPPABLE)})")
    return [SKIPPABLE[SKIPPABLE.index(p)] for p in dict.fromkeys(skips)]   # the module's own strings, once each


def _count(value: Any, where: str, field: str = "", key: Any = None) -> int:
    """``value`` when it is an integer 0 or more (wounds, counters, a yield: the case schemas'
    minimum 0), else an input problem at ``where`` + ``field`` (+ ``/key``)."""
    if _int(value, where, field, key) < 0:
        raise InputProblem(f"{where}{field}{'' if key is None else f'/{key}'}: 0 or more, got {value!r}")
    return value


def _int_map(value: Any, where: str, field: str) -> dict[str, int]:
    """A mapping of integers (cost, counters, bonus) with its keys as strings."""
    return {str(k): _int(v, where, field, k) for k, v in (value or {}).items()}


def from_given(given: dict[str, Any] | None, rules: Ruleset, version: int = 1) -> State:
    """Build the base state from a case's `given` (every field defaulted per hkk-case/1); the
    case format's `version` (hkk-case/N) decides how later steps are read.

    The stages, each a function of its own: the turn (`_given_turn`); the players and their zones
    (`_given_players`); the cards (`_given_cards`); the cards out of the game (`_given_removed`);
    the order the permanents were played in (`_stamp_play_order`); the timed effects, delayed
    resources, the combat sub-phase, the life-saving window and a pending decision
    (`_given_bookkeeping`)."""
    given = given or {}          # never changed here: each stage copies what the state keeps of it
    active, phase, combat_step = _given_turn(given)
    defs = given.get("cards") or {}
    players, listed = _given_players(given, defs, rules)
    cards = _given_cards(defs, listed)
    removed = _given_removed(given, cards, listed)
    if given.get("queue"):
        raise InputProblem("/queue: a case starts with an empty reaction queue; cards and abilities "
                           "go on it with the steps (`play` / `activate` with `wait: true`)")
    state = State(active=active, phase=phase, players=players, cards=Cards(cards), removed=removed,
                  seed=_int(given.get("seed", 0), "/seed"), where=listed,
                  effect_cards=frozenset(c.id for c in cards.values() if carries_effects(c)),
                  trigger_cards=frozenset(c.id for c in cards.values() if has_triggers(c)),
                  version=version)
    if version < 2 and state.trigger_cards:
        raise InputProblem(f"/cards/{sorted(state.trigger_cards)[0]}/abilities: an automatic ability "
                           "(`trigger`) is hkk-case/2 only (docs/spec/hkk-reactions.md)")
    for c in cards.values():
        if c.attached_to and c.attached_to not in cards:
            raise InputProblem(f"/cards/{c.id}/attached_to: unknown card {c.attached_to!r}")
    _stamp_play_order(state)
    _given_bookkeeping(state, given, defs, phase, combat_step)
    return state


def _given_turn(given: dict[str, Any]) -> tuple[str, str, Any]:
    """(active player, phase, combat sub-phase) of `given.turn` (defaults: A, main1)."""
    turn = given.get("turn") or {}
    active = turn.get("active", "A")
    phase = turn.get("phase", "main1")
    combat_step = turn.get("combat_step")
    if active not in PLAYERS:
        raise InputProblem(f"/turn/active: unknown player {active!r}")
    if phase not in PHASES:
        raise InputProblem(f"/turn/phase: unknown phase {phase!r}")
    phase = PHASES[PHASES.index(phase)]          # the module's own string for it (like model/zones.py)
    return active, phase, combat_step


def _given_players(given: dict[str, Any], defs: dict[str, Any], rules: Ruleset
                   ) -> tuple[dict[str, Player], dict[str, tuple[str, str]]]:
    """The players (3.12 defaults from the ruleset) and the zone each card lies in: a card is
    defined once and listed once."""
    players: dict[str, Player] = {}
    listed: dict[str, tuple[str, str]] = {}
    given_players = given.get("players") or {}
    for pname in PLAYERS:
        pd = given_players.get(pname) or {}
        get = pd.get
        at = f"/players/{pname}"
        skip = get("skip_phases")
        zones: dict[str, list[str]] = {}
        players[pname] = Player(
            name=pname,
            hp=_int(get("hp", rules.starting_hp), at, "/hp"),
            max_hp=_int(get("base_max_hp", get("max_hp", rules.max_hp)), at, "/max_hp"),
            vp=_int(get("vp", rules.starting_vp), at, "/vp"),
            max_vp=_int(get("base_max_vp", get("max_vp", rules.max_vp)), at, "/max_vp"),
            components=_int(get("components", 0), at, "/components"),
            turn=_int(get("turn", 1), at, "/turn"),
            zones=zones,                                   # filled below
            skip=[] if skip is None else _skips(skip, f"{at}/skip_phases"),
        )
        for zone in ZONES:
            ids = list(get(zone) or ())
            for cid in ids:
                if cid not in defs:
                    raise InputProblem(f"/players/{pname}/{zone}: card {cid!r} is not defined under cards")
                if cid in listed:
                    raise InputProblem(f"/players/{pname}/{zone}: card {cid!r} is also listed in "
                                       f"{listed[cid][0]}'s {listed[cid][1]}")
                listed[cid] = (pname, zone)
            zones[zone] = ids
    return players, listed


def _given_cards(defs: dict[str, Any], listed: dict[str, tuple[str, str]]) -> dict[str, Card]:
    """The cards: 5.6.2 a permanent's controller is the player whose side it is on; activity,
    attachment and a form played as belong to permanents only."""
    cards: dict[str, Card] = {}
    for cid, d in defs.items():
        loc = listed.get(cid)
        cards[cid] = card_from_def(str(cid), d or {}, default_owner=loc[0] if loc else "A",
                                   where=f"/cards/{cid}")
        if loc and loc[1] in TABLE_ZONES and (d or {}).get("controller") not in (None, loc[0]):
            raise InputProblem(f"/cards/{cid}/controller: {d['controller']!r} but the card lies in "
                               f"{loc[0]}'s {loc[1]} (5.6.2: the controller is the player whose side it is on)")
        if not loc or loc[1] not in TABLE_ZONES:
            cards[cid].active = True  # activity is a property of permanents only
            if cards[cid].attached_to:
                raise InputProblem(f"/cards/{cid}/attached_to: only a card on the table sits on another")
            if cards[cid].original is not None:
                raise InputProblem(f"/cards/{cid}/original: only a card on the table is in a form it was "
                                   "played as (rb7:ketfelekeppen-hasznalhato-lapok)")
    return cards


def _given_removed(given: dict[str, Any], cards: dict[str, Card], listed: dict[str, tuple[str, str]]
                   ) -> list[str]:
    """The cards out of the game (107.0): defined, and in no zone."""
    removed = [str(x) for x in given.get("removed") or []]
    for cid in removed:
        if cid not in cards:
            raise InputProblem(f"/removed: card {cid!r} is not defined under cards")
        if cid in listed:
            raise InputProblem(f"/removed: card {cid!r} is also listed in a zone")
    return removed


def _stamp_play_order(state: State) -> None:
    """102.3: the order the permanents lie in stands for the order they were played, a card
    attached to another right after it (rb7:celpont: it was played onto a card in play)."""
    perms = list(state.permanents())
    on_table = {c.id for c in perms}
    stamped: set[str] = set()
    waiting: dict[str, list[Card]] = {}

    def stamp(card: Card) -> None:
        card.timestamp = state.tick()
        stamped.add(card.id)
        for after in waiting.pop(card.id, []):
            stamp(after)
    for c in perms:
        if c.attached_to in on_table and c.attached_to not in stamped:
            waiting.setdefault(c.attached_to, []).append(c)
        else:
            stamp(c)
    # `stamp` calls itself through its closure cell: function and cell form a reference cycle that
    # holds this state, so every state built here would wait as garbage for the cycle collector
    # (random play made several hundred such objects per game); clearing the cell breaks the cycle
    del stamp
    ring = [c.id for c in perms if c.id not in stamped]
    if ring:                                    # each waits for the other: no order of play gives this
        raise InputProblem(f"/cards/{ring[0]}/attached_to: the attachments of {', '.join(ring)} form a ring")


def _given_bookkeeping(state: State, given: dict[str, Any], defs: dict[str, Any], phase: str,
                       combat_step: Any) -> None:
    """The timed effects (99.4) and delayed resources (114) in force, the clock after them; the
    combat sub-phase (rb7:harci-fazis: I when a combat is given without one); the life-saving
    window of the creatures `just_damaged` (136.8); a pending decision (4.23.5)."""
    state.lasting = [check_lasting(jcopy(x), f"/lasting/{i}") for i, x in enumerate(given.get("lasting") or [])]
    state.delayed = [check_delayed(jcopy(x), f"/delayed/{i}", f"delayed-{i}")
                     for i, x in enumerate(given.get("delayed") or [])]
    for i, x in enumerate(state.delayed):
        if "trigger" in x and state.version < 2:
            raise InputProblem(f"/delayed/{i}/trigger: a delayed resource that comes on an event is "
                               "hkk-case/2 only (docs/spec/hkk-reactions.md)")
    if state.lasting:
        state.clock = max(state.clock, max(int(x["created"]) for x in state.lasting))
    if combat_step is not None:
        state.turn_info.combat_step = check_step(combat_step, phase, "/turn/combat_step")
    elif phase == "combat":
        state.turn_info.combat_step = "I"     # a combat given without its sub-phase is in I
    for c in state.permanents():
        if defs[c.id].get("just_damaged"):
            state.turn_info.own("just_damaged").append(c.id)   # 136.8: the window is open
    if given.get("pending"):
        pend = given["pending"]
        step = pend.get("step") if isinstance(pend, dict) else None
        if not isinstance(pend, dict) or pend.get("player") not in PLAYERS or \
                not isinstance(step, dict) or len(step) != 1:
            raise InputProblem("/pending: a pending decision names its `player` and the `step` it resumes "
                               "(a one-verb mapping), as a returned state shows it")
        state.pending = jcopy(pend)


def _other_forms(card: Card) -> list[dict[str, Any]]:
    """The attributes of the card's other forms (model/forms.py): those it may be played as, and
    the original it takes back when it leaves the table."""
    return [*card.play_as.values(), *((card.original,) if card.original else ())]


def has_triggers(card: Card) -> bool:
    """The card has an automatic ability (an ability entry with `trigger`, 133), in any of its forms."""
    if any("trigger" in ab for ab in card.abilities):
        return True
    return bool(card.play_as or card.original) and any(
        "trigger" in ab for f in _other_forms(card) for ab in f.get("abilities") or ())


def carries_effects(card: Card) -> bool:
    """The card's data carry continuous or replacement effects, in any of its forms."""
    if card.continuous or card.replace:
        return True
    return bool(card.play_as or card.original) and any(
        f.get("continuous") or f.get("replace") for f in _other_forms(card))


# other spellings of keyword names that case authors write; the engine reads the canonical one
KEYWORD_ALIASES = {
    "magic_defence": "magic_defense", "invisible": "invisibility", "see_invisibility": "see_invisible",
    "sees_invisible": "see_invisible", "fly": "flying", "flies": "flying", "regenerate": "regeneration",
    "poisoning": "poison", "resurrect": "resurrection", "lifes": "life",
}


def _canonical_ability(a: Any, where: str, i: int) -> dict[str, Any]:
    """The `i`-th ability of the card at `where`, its keyword spelled the canonical way."""
    if not isinstance(a, dict) or not isinstance(a.get("keyword"), str):
        raise InputProblem(f"{where}/abilities/{i}: an ability is a mapping with a `keyword`")
    a = jcopy(a)
    a["keyword"] = KEYWORD_ALIASES.get(a["keyword"], a["keyword"])
    return a


def _entries(value: Any, card_where: str, kind: str) -> list[dict[str, Any]]:
    """A card's `continuous` or `replace` entries (``kind``), checked, as a copy."""
    if value is None:
        return []
    where = f"{card_where}/{kind}"
    if not isinstance(value, list):
        raise InputProblem(f"{where}: a list")
    if kind == "continuous":
        for i, e in enumerate(value):
            check_entry(e, f"{where}/{i}")
    else:
        for i, e in enumerate(value):
            check_replacer(e, f"{where}/{i}")
    return jcopy(list(value))


# the empty value of a card field that is never changed in place (`condition`, `modes`, `play_as`:
# replaced whole, model/forms.py), shared by every card that has none: a state of 20,000 cards
# holds one instead of 60,000 (tests/test_state_copy.py checks that no run fills them)
SHARED_EMPTY_LIST: list = []
SHARED_EMPTY_DICT: dict = {}


def card_from_def(cid: str, d: dict[str, Any], default_owner: str, where: str) -> Card:
    """A card of a `given` (hkk-case/1 "cards"), every field checked; a field the definition leaves
    out is not read at all (a random game builds a state of 40 cards per game)."""
    get = d.get
    kind = get("kind")
    if kind not in KINDS:
        raise InputProblem(f"{where}/kind: unknown card kind {kind!r}")
    owner = get("owner", default_owner)
    if owner not in PLAYERS:
        raise InputProblem(f"{where}/owner: unknown player {owner!r}")
    counters, cost, bonus = get("counters"), get("base_cost", get("cost")), get("bonus")
    base_damage = get("base_damage", get("damage"))
    base_hp = get("base_hp", get("hp"))
    card = Card(
        id=cid, kind=kind, owner=owner, name=get("name"),
        subtypes=list(get("subtypes") or []),
        cost=_int_map(cost, where, "/cost") if cost else {},
        base_damage=None if base_damage is None else _int(base_damage, where, "/damage"),
        base_hp=None if base_hp is None else _int(base_hp, where, "/hp"),
        components_yield=_count(get("components_yield", 0), where, "/components_yield"),
        active=bool(get("active", True)),
        counters={str(k): n for k, v in counters.items() if (n := _count(v, where, "/counters", k))}
        if counters else {},
        wounds=_count(get("wounds", 0), where, "/wounds"),
        premade=bool(get("premade", False)),
        standalone_token=bool(get("standalone_token", False)),
        reaction=bool(get("reaction", False)),
        abilities=[_canonical_ability(a, where, i) for i, a in enumerate(get("abilities") or [])],
        attached_to=get("attached_to"),
        bonus=_int_map(bonus, where, "/bonus") if bonus else {},
        effects=jcopy(list(d["effects"])) if get("effects") else [],
        continuous=_entries(d["continuous"], where, "continuous") if "continuous" in d else [],
        replace=_entries(d["replace"], where, "replace") if "replace" in d else [],
        needs_target=bool(get("needs_target", False)),
        colors=_colors(d["colors"], where) if "colors" in d else [],
        icons=_icons(d["icons"], where) if "icons" in d else [],
        condition=check_condition(jcopy(d["condition"]), f"{where}/condition") if "condition" in d
        else SHARED_EMPTY_LIST,
        modes=SHARED_EMPTY_LIST, play_as=SHARED_EMPTY_DICT,
        enters_active=get("active") is True,
        extra={k: jcopy(v) for k, v in d.items() if k not in _CARD_FIELDS},
    )
    if get("play_as") is not None or get("modes") is not None or get("original") is not None:
        _forms_of_def(card, d, where)
    return card


def _form(cid: str, kind: Any, fields: Any, owner: str, where: str, allowed: set[str]) -> dict[str, Any]:
    """The Card attributes a form's definition names (`play_as.<kind>`, `original`), checked as a
    card of that kind would be."""
    if not isinstance(fields, dict):
        raise InputProblem(f"{where}: a mapping of the card's fields in that form")
    unknown = set(fields) - allowed
    if unknown:
        raise InputProblem(f"{where}: {', '.join(sorted(unknown))} not a field of a form "
                           f"(one of {', '.join(sorted(allowed))})")
    parsed = card_from_def(cid, {k: v for k, v in fields.items() if k != "kind"} | {"kind": kind},
                           owner, where)
    return {FORM_FIELDS[k]: getattr(parsed, FORM_FIELDS[k]) for k in fields if k in FORM_FIELDS} | (
        {"kind": kind} if "kind" in fields else {})


def _forms_of_def(card: Card, d: dict[str, Any], where: str) -> None:
    """`play_as` (rb7:ketfelekeppen-hasznalhato-lapok), `modes` (111.7) and, for a card given in a
    form it was played as, `original` (model/forms.py)."""
    play_as = d.get("play_as") or {}
    card.play_as = {}                                  # its own, filled below
    if not isinstance(play_as, dict):
        raise InputProblem(f"{where}/play_as: a mapping of kind -> the card's fields in that form")
    for kind, fields in play_as.items():
        if kind not in KINDS:
            raise InputProblem(f"{where}/play_as/{kind}: unknown card kind {kind!r}")
        if kind == card.kind and d.get("original") is None:
            raise InputProblem(f"{where}/play_as/{kind}: the card's own kind is its original form")
        card.play_as[kind] = _form(card.id, kind, fields, card.owner, f"{where}/play_as/{kind}",
                                   set(FORM_FIELDS))
    card.modes = check_modes(d.get("modes"), f"{where}/modes")
    if card.modes and card.effects:
        raise InputProblem(f"{where}/effects: a card with modes has its effects in its modes (111.7)")
    original = d.get("original")
    if original is not None:
        if not isinstance(original, dict) or not original:
            raise InputProblem(f"{where}/original: the fields the card takes back when it leaves the table")
        card.original = _form(card.id, original.get("kind", card.kind), original, card.owner,
                              f"{where}/original", set(FORM_FIELDS) | {"kind"})
