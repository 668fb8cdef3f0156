"""Hypothesis strategies for valid `hkk-case/1` states and for steps drawn from a state.

One generator serves two masters: every choice goes through a *chooser*, so the
same code builds a state from Hypothesis draws (shrinkable: `DrawChooser`) or
from a seeded `random.Random` (`RandomChooser`, used by the legal-play driver in
properties/driver.py, the benchmarks and the fuzzer).

- `gen_given(ch)`: a valid `given` (docs/spec/hkk-case-format.md): two players
  with Ép ≤ max Ép and VP ≤ max VP (3.18), cards of every kind (premade cards,
  standalone tokens, creatures with counters, abilities and wounds), in every
  zone including the Void, in `removed`, or nowhere; each card in exactly one
  place; cards in a hand, deck, graveyard or Void owned by that player (4.7.3,
  4.14.1, 4.16.1); premade cards never in a deck or Void (96.8), standalone
  tokens only on the table or removed (rb7:jelzo); guard-post creatures active
  and at most `guard_post_size` of them (5.4.3, 5.4.5); attached cards active
  and on creatures (5.5.4); at most one location in play (rb7:helyszin).
- `gen_step(state, ch, verbs)`: one step whose arguments come from the current
  engine state (card ids where the verb wants them, mostly; now and then any
  card, so refusals are exercised too). Verbs: `STEP_VERBS` (the zone and
  resource verbs), `EXTRA_VERBS` (activate, sacrifice_for_components, attack,
  pass: keyword abilities and combat move cards too), and `choose` when a
  decision is pending. Creatures carry keyword abilities (life, muscle,
  seduction, recycling, anti-magic, penalty, compensation, …) and permanents
  activated abilities, so `play` and `activate` reach model/keywords.py.

Hypothesis front-ends: `given_states()`, `steps_for(state, verbs)`,
`step_for_verb(state, verb)`, `cases(verbs, max_steps, refused)`.
"""
from __future__ import annotations

import random
from typing import Any, Callable, Sequence

from hypothesis import strategies as st

from model.engine import apply
from model.errors import InputProblem
from model.ruleset import DEFAULT_RULESET, load_ruleset
from model.state import KINDS, PHASES, PLAYERS, TABLE_ZONES, State, from_given, other
from model.zones import DESTINATIONS

__all__ = [
    "STEP_VERBS", "EXTRA_VERBS", "ALL_VERBS", "Chooser", "RandomChooser", "DrawChooser",
    "gen_given", "gen_step", "build_case", "given_states", "steps_for", "step_for_verb", "cases",
    "fresh_id",
]

# the zone and resource verbs (docs/spec/hkk-case-format.md, docs/spec/hkk-verbs.md);
# ordered simplest first: Hypothesis shrinks a `sampled_from` towards the first item
STEP_VERBS = (
    "gain_vp", "heal", "damage", "change_max_hp", "change_max_vp", "gain_components",
    "sacrifice_hp", "sacrifice_max_hp", "draw", "move", "discard", "mill", "exile",
    "sacrifice", "steal", "create", "put_counter", "remove_counter", "passivate",
    "activate_card", "search", "shuffle", "advance", "exchange", "play", "copy", "copy_abilities",
)
# further verbs the fuzzer also uses (abilities, combat, phases): they move cards and resources too
EXTRA_VERBS = ("activate", "sacrifice_for_components", "attack", "pass")
ALL_VERBS = STEP_VERBS + EXTRA_VERBS
ELEMENTS = ("fire", "ice", "acid", "lightning")
CREATURE_COUNTERS = ("poison", "sleep", "freeze", "life", "muscle", "aging", "delay",
                     "temporary", "strength", "weakness", "level")
OTHER_COUNTERS = ("delay", "temporary", "fading", "freeze")
ALL_COUNTERS = ("poison", "sleep", "freeze", "life", "muscle", "aging", "level", "delay",
                "temporary", "fading", "strength", "weakness")
SUBTYPES = ("galetki", "kalandozo", "vizio", "torzszulott")
CREATURE_KEYWORDS = ("flying", "life", "poison", "regeneration", "immunity", "magic_defense", "muscle",
                     "blocking", "anti_blocking", "seduction", "recycling", "anti_magic", "penalty",
                     "compensation", "invisibility")
PLAY_FROM = ("hand", "graveyard", "deck")
SEARCH_TO = ("hand", "reserve", "deck_top", "graveyard", "void")
CREATE_ZONES = (None, "hand", "reserve", "guard_post", "table", "graveyard", "void", "deck")
GUARD_POST_SIZE = 3
_KIND_WEIGHTS = ("creature",) * 4 + tuple(k for k in KINDS if k != "creature") + ("enchantment",)
COLORS = ("elenios", "sheran", "dreina")
# issue 27's vocabulary on a permanent: what its continuous entries may say (costs as numbers and a
# zone scope, 99.6-99.7; ruleset numbers a card changes; a strong prohibition; the texts first)
_CONTINUOUS_TEMPLATES: tuple[Callable[[Chooser], dict], ...] = (
    lambda ch: {"number": "cost_vp", "add": ch.choice((-2, -1, 1)), "scope": {"zones": ["hand"]}},
    lambda ch: {"number": "cost_vp", "set": ch.integer(0, 2), "scope": {"zones": ["hand"], "kind": "creature"}},
    lambda ch: {"number": "damage", "add": 1, "scope": {"zones": ["graveyard", "reserve"], "player": "players"}},
    lambda ch: {"number": "draw_per_turn", "add": ch.choice((-1, 1)), "scope": "players"},
    lambda ch: {"number": "regeneration_cap", "set": ch.integer(0, 6), "scope": "all_creatures"},
    lambda ch: {"number": "guard_post_size", "add": ch.choice((-1, 1)), "scope": "controller"},
    lambda ch: {"prohibit": "heal", "strong": ch.chance(0.5), "scope": "opponent_creatures"},
    lambda ch: {"prohibit": "play", "spells": [ch.choice(("drawing", "damaging", "healing"))], "scope": "opponent"},
    lambda ch: {"number": "spell_draw", "add": 1, "scope": "controller"},
)


# ---------------------------------------------------------------------------
# choosers
# ---------------------------------------------------------------------------

class Chooser:
    """Where the generators get their choices from."""

    def choice(self, seq: Sequence[Any]) -> Any:
        raise NotImplementedError

    def integer(self, lo: int, hi: int) -> int:
        raise NotImplementedError

    def chance(self, p: float) -> bool:
        """True with probability ~p; shrinks towards False."""
        raise NotImplementedError

    def sample(self, seq: Sequence[Any], lo: int = 0, hi: int | None = None) -> list[Any]:
        """Distinct items of seq (at least lo, at most hi), in an arbitrary order."""
        raise NotImplementedError


class RandomChooser(Chooser):
    def __init__(self, rng: random.Random | int):
        self.rng = rng if isinstance(rng, random.Random) else random.Random(rng)

    def choice(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def integer(self, lo, hi):
        return self.rng.randint(lo, hi)

    def chance(self, p):
        return self.rng.random() < p

    def sample(self, seq, lo=0, hi=None):
        hi = len(seq) if hi is None else min(hi, len(seq))
        lo = min(lo, hi)
        return self.rng.sample(list(seq), self.rng.randint(lo, hi))


class DrawChooser(Chooser):
    """Choices from a Hypothesis `draw` (inside `st.composite` or `st.data()`)."""

    def __init__(self, draw: Callable[[st.SearchStrategy], Any]):
        self.draw = draw

    def choice(self, seq):
        return self.draw(st.sampled_from(list(seq)))

    def integer(self, lo, hi):
        return self.draw(st.integers(lo, hi))

    def chance(self, p):
        return self.draw(st.integers(0, 99)) >= round(100 * (1 - p))

    def sample(self, seq, lo=0, hi=None):
        seq = list(seq)
        hi = len(seq) if hi is None else min(hi, len(seq))
        lo = min(lo, hi)
        if not seq or hi == 0:
            return self.draw(st.just([]))   # still a draw: Hypothesis warns about composites that never draw
        idx = self.draw(st.lists(st.integers(0, len(seq) - 1), unique=True, min_size=lo, max_size=hi))
        return [seq[i] for i in idx]


# ---------------------------------------------------------------------------
# valid given states
# ---------------------------------------------------------------------------

def _creature_def(ch: Chooser, d: dict[str, Any]) -> None:
    d["damage"] = ch.integer(0, 5)
    d["hp"] = ch.integer(1, 6)
    if ch.chance(0.3):
        d["components_yield"] = ch.integer(1, 3)
    if ch.chance(0.4):
        abilities = []
        for kw in ch.sample(CREATURE_KEYWORDS, 1, 2):
            if kw in ("penalty", "compensation"):
                abilities.append({"keyword": kw, "hp": ch.integer(0, 2), "vp": ch.integer(0, 2)})
            elif kw == "immunity":
                abilities.append({"keyword": kw, "to": ch.choice(ELEMENTS)})
            elif kw in ("flying", "magic_defense", "invisibility"):
                abilities.append({"keyword": kw})
            else:
                abilities.append({"keyword": kw, "x": ch.integer(1, 2)})
        d["abilities"] = abilities


def _activated(ch: Chooser) -> dict[str, Any]:
    """A project-style activated ability: `{keyword, cost, effects}` (model/abilities.py)."""
    eff, needs = ch.choice(_EFFECT_TEMPLATES)(ch)
    ab: dict[str, Any] = {"keyword": "use", "effects": [eff]}
    cost = ch.choice(({}, {"vp": 1}, {"passivate": True}, {"components": 1}))
    if cost:
        ab["cost"] = cost
    if needs:
        ab["needs_target"] = True
    return ab


def _cost(ch: Chooser) -> dict[str, int]:
    kind = ch.choice(("vp", "components", "builders", "sacrifice", "nekron", "mix"))
    if kind == "vp":
        return {"vp": ch.integer(0, 4)}
    if kind == "components":
        return {"components": ch.integer(0, 3)}
    if kind == "mix":
        return {"vp": ch.integer(0, 2), "components": ch.integer(0, 2)}
    return {kind: 1}


_EFFECT_TEMPLATES: tuple[Callable[[Chooser], tuple[dict, bool]], ...] = (
    lambda ch: ({"draw": {"count": ch.integer(1, 2)}}, False),
    lambda ch: ({"gain_vp": {"amount": ch.integer(1, 3)}}, False),
    lambda ch: ({"damage": {"target": "$target", "amount": ch.integer(1, 3)}}, True),
    lambda ch: ({"heal": {"target": "$target", "amount": ch.integer(1, 3)}}, True),
    lambda ch: ({"mill": {"count": ch.integer(1, 2)}}, False),
)


def gen_given(ch: Chooser, *, max_cards: int = 14, min_deck: int = 0) -> dict[str, Any]:
    """A valid `given` (see the module docstring for what "valid" means here)."""
    players: dict[str, dict[str, Any]] = {}
    for p in PLAYERS:
        pd: dict[str, Any] = {z: [] for z in ("deck", "hand", "reserve", "guard_post", "table",
                                               "graveyard", "void")}
        max_hp = ch.integer(0, 25) if ch.chance(0.25) else 20
        pd["max_hp"] = max_hp
        pd["hp"] = (ch.integer(-3, max_hp) if ch.chance(0.1) else ch.integer(min(1, max_hp), max_hp)) \
            if ch.chance(0.6) else max_hp
        max_vp = ch.integer(0, 25) if ch.chance(0.2) else 20
        pd["max_vp"] = max_vp
        pd["vp"] = ch.integer(0, max_vp)
        pd["components"] = ch.integer(0, 4) if ch.chance(0.4) else 0
        pd["turn"] = ch.integer(0, 6) if ch.chance(0.3) else 1
        players[p] = pd
    cards: dict[str, dict[str, Any]] = {}
    removed: list[str] = []
    location_in_play = False
    n = ch.integer(0, max_cards)
    for i in range(n + min_deck):
        cid = f"c{i}"
        forced_deck = i >= n
        kind = "instant" if forced_deck and ch.chance(0.5) else ch.choice(_KIND_WEIGHTS)
        d: dict[str, Any] = {"kind": kind}
        premade = not forced_deck and ch.chance(0.15)
        token = not forced_deck and kind == "creature" and not premade and ch.chance(0.12)
        if premade:
            d["premade"] = True
        if token:
            d["standalone_token"] = True
        # where it lies
        if forced_deck:
            allowed = ["deck"]
        elif token:
            allowed = ["reserve", "guard_post", "removed"]
        else:
            allowed = ["hand", "deck", "graveyard", "void", "removed", "nowhere"]
            if kind == "creature":
                allowed[1:1] = ["reserve", "guard_post", "reserve", "guard_post"]
            elif kind not in ("instant", "sorcery") and not (kind == "location" and location_in_play):
                allowed[1:1] = ["table", "table"]
            if premade:
                allowed = [z for z in allowed if z not in ("deck", "void")]
        zone = ch.choice(allowed)
        player = ch.choice(PLAYERS)
        if zone == "guard_post" and len(players[player]["guard_post"]) >= GUARD_POST_SIZE:
            zone = "reserve"
        on_table = zone in TABLE_ZONES
        if on_table or zone in ("removed", "nowhere"):
            d["owner"] = other(player) if ch.chance(0.2) else player
        else:
            d["owner"] = player
        # printed values
        if kind == "creature":
            _creature_def(ch, d)
        elif kind == "building":
            d["hp"] = ch.integer(1, 6)
        if kind != "creature" or not token:
            if ch.chance(0.5):
                d["cost"] = _cost(ch)
        if ch.chance(0.15):
            d["subtypes"] = [ch.choice(SUBTYPES)]
        if kind not in ("instant", "sorcery") and ch.chance(0.15):
            d.setdefault("abilities", []).append(_activated(ch))
        if kind in ("instant", "sorcery") and ch.chance(0.4):
            eff, needs = ch.choice(_EFFECT_TEMPLATES)(ch)
            d["effects"] = [eff]
            if needs:
                d["needs_target"] = True
        if kind == "sorcery" and "effects" not in d and ch.chance(0.15):      # 111.7: a modal spell
            modes = []
            for _ in range(2):
                eff, needs = ch.choice(_EFFECT_TEMPLATES)(ch)
                modes.append({"effects": [eff], **({"needs_target": True} if needs else {})})
            d["modes"] = modes
        if kind == "creature" and not token and not premade and ch.chance(0.08):   # two ways
            eff, needs = ch.choice(_EFFECT_TEMPLATES)(ch)
            d["play_as"] = {"sorcery": {"effects": [eff], **({"needs_target": True} if needs else {})}}
        if ch.chance(0.12):                                                   # rb7:ketszinu-lapok
            d["colors"] = ch.sample(COLORS, 1, 2)
        if kind not in ("instant", "sorcery") and ch.chance(0.08):
            d["continuous"] = [ch.choice(_CONTINUOUS_TEMPLATES)(ch)]
        # on the table: activity, wounds, counters
        if on_table:
            if kind == "location":
                location_in_play = True
            counters: dict[str, int] = {}
            if ch.chance(0.35):
                pool = CREATURE_COUNTERS if kind == "creature" else OTHER_COUNTERS
                for name in ch.sample(pool, 1, 2):
                    if name == "sleep" and zone == "guard_post":
                        continue
                    if name == "level" and "kalandozo" not in d.get("subtypes", []):
                        continue
                    counters[name] = ch.integer(1, 2)
            if kind in ("creature", "building"):
                hp = d["hp"]
                up = counters.get("muscle", 0) + counters.get("strength", 0)
                down = counters.get("aging", 0) + counters.get("weakness", 0)
                if kind == "creature" and hp + up - down < 1:
                    counters.pop("aging", None)
                    counters.pop("weakness", None)
                    down = 0
                room = (hp + up - down - 1) if kind == "creature" else hp - 1
                if room > 0 and ch.chance(0.3):
                    d["wounds"] = ch.integer(1, room)
            if counters:
                d["counters"] = counters
            if zone == "guard_post":
                d["active"] = True
            elif counters.get("sleep"):
                d["active"] = False
            elif ch.chance(0.25):
                d["active"] = False
        cards[cid] = d
        if zone == "removed":
            removed.append(cid)
        elif zone != "nowhere":
            players[player][zone].append(cid)
    # attachments: enchantments on creatures, body parts on galetkik (5.5.4: attached cards are active)
    hosts = [c for p in PLAYERS for z in ("reserve", "guard_post") for c in players[p][z]]
    for p in PLAYERS:
        for cid in players[p]["table"]:
            d = cards[cid]
            if d["kind"] == "enchantment" and hosts and ch.chance(0.4):
                d["attached_to"] = ch.choice(hosts)
            elif d["kind"] == "body_part":
                galetkik = [h for h in hosts if "galetki" in cards[h].get("subtypes", [])]
                if galetkik and ch.chance(0.6):
                    d["attached_to"] = ch.choice(galetkik)
            if d.get("attached_to"):
                d["active"] = True
                if ch.chance(0.5):
                    d["bonus"] = {"damage": ch.integer(0, 2), "hp": ch.integer(0, 2)}
    given: dict[str, Any] = {
        "turn": {"active": ch.choice(PLAYERS),
                 "phase": ch.choice(("main1",) + tuple(x for x in PHASES if x != "main1"))},
        "players": {p: {k: v for k, v in pd.items() if v != []} for p, pd in players.items()},
        "cards": cards,
    }
    if removed:
        given["removed"] = removed
    if ch.chance(0.5):
        given["seed"] = ch.integer(0, 1 << 16)
    return given


# ---------------------------------------------------------------------------
# steps drawn from a state
# ---------------------------------------------------------------------------

def _in(state: State, zones: Sequence[str], player: str | None = None) -> list[str]:
    out = []
    for p in (player,) if player else PLAYERS:
        for z in zones:
            out.extend(state.players[p].zones[z])
    return out


def _pick(ch: Chooser, preferred: list[str], state: State, p_any: float = 0.1) -> str | None:
    """Mostly a card from `preferred`; now and then any card (a refusal, usually)."""
    every = list(state.cards)
    if preferred and (not every or not ch.chance(p_any)):
        return ch.choice(preferred)
    return ch.choice(every) if every else None


def fresh_id(state: State, prefix: str = "t") -> str:
    i = len(state.cards)
    while f"{prefix}{i}" in state.cards:
        i += 1
    return f"{prefix}{i}"


def _player(ch: Chooser, state: State) -> str:
    """The active player, mostly."""
    return other(state.active) if ch.chance(0.35) else state.active


def _step_choose(state: State, ch: Chooser) -> dict:
    pend = state.pending or {}
    options = list(pend.get("options") or [])
    if pend.get("choice") == "muscle_reward":             # 124.4: decided with a value
        n = int(pend.get("count", 0))
        d = ch.integer(0, n)
        return {"choose": {"player": pend.get("player", state.active), "value": {"draw": d, "vp": n - d}}}
    count = min(int(pend.get("count", 0)), len(options))
    cards = ch.sample(options, count, count)
    return {"choose": {"player": pend.get("player", state.active), "cards": cards}}


def _targets(state: State) -> list[str]:
    return list(PLAYERS) + [c for c in _in(state, TABLE_ZONES)
                            if state.cards.peek(c).kind in ("creature", "building")]


def _verb_args(verb: str, state: State, ch: Chooser) -> dict[str, Any] | None:
    """The arguments of one step of `verb`, or None when the verb has nothing to work on."""
    table = _in(state, TABLE_ZONES)
    if verb in ("damage", "heal"):
        target = _pick(ch, _targets(state), state, 0.05)
        a: dict[str, Any] = {"target": target, "amount": ch.integer(0, 8)}
        if verb == "damage" and ch.chance(0.2):
            a["element"] = ch.choice(ELEMENTS)
        if ch.chance(0.15):
            a["strong"] = True                                  # 101.0
        if ch.chance(0.15):
            a["limit"] = ch.integer(0, 20)                      # mk:5.11.A for a step
        return a
    if verb == "copy":
        card = _pick(ch, table + _in(state, ("graveyard", "hand")), state)
        if card is None:
            return None
        return {"card": card, "player": _player(ch, state), "id": fresh_id(state, "k")}
    if verb == "copy_abilities":
        src, dst = _pick(ch, list(state.cards), state), _pick(ch, table, state)
        return None if src is None or dst is None else {"from": src, "to": dst}
    if verb == "draw":
        return {"player": _player(ch, state), "count": ch.integer(0, 3)}
    if verb == "discard":
        p = _player(ch, state)
        hand = state.players[p].zones["hand"]
        mode = ch.choice(("cards", "count", "cost"))
        a = {"player": p, "to": ch.choice(("graveyard", "void"))}
        if mode == "cards":
            a["cards"] = ch.sample(hand, 0, 3)
            a["count"] = len(a["cards"])
        else:
            a["count"] = ch.integer(0, 3)
            if mode == "cost":
                a["as_cost"] = True
        return a
    if verb == "mill":
        a = {"player": _player(ch, state), "count": ch.integer(0, 4),
             "to": ch.choice(("graveyard", "void"))}
        if ch.chance(0.3):
            a["as_cost"] = True
        return a
    if verb == "move":
        card = _pick(ch, list(state.cards), state)
        if card is None:
            return None
        return {"card": card, "to": ch.choice(DESTINATIONS)}
    if verb == "exile":
        card = _pick(ch, _in(state, ("graveyard",)), state)
        return None if card is None else {"card": card}
    if verb == "sacrifice":
        p = _player(ch, state)
        card = _pick(ch, _in(state, TABLE_ZONES, p), state)
        return None if card is None else {"player": p, "card": card, "forced": ch.chance(0.5)}
    if verb in ("sacrifice_hp", "sacrifice_max_hp"):
        a = {"player": _player(ch, state), "amount": ch.integer(0, 25)}
        if ch.chance(0.3):
            a["as_cost"] = True
        return a
    if verb in ("change_max_hp", "change_max_vp"):
        return {"player": _player(ch, state), "delta": ch.integer(-25, 10)}
    if verb == "gain_vp":
        a = {"player": _player(ch, state), "amount": ch.integer(-5, 25)}
        if ch.chance(0.15):
            a["limit"] = ch.integer(0, 25)                      # mk:5.11.A for a step
        return a
    if verb == "gain_components":
        return {"player": _player(ch, state), "amount": ch.integer(-3, 5)}
    if verb == "steal":
        card = _pick(ch, table, state)
        return None if card is None else {"card": card, "to": ch.choice(PLAYERS)}
    if verb == "create":
        p = _player(ch, state)
        kind = ch.choice(("creature", "creature", "item", "creature", "enchantment", "building",
                          "instant"))
        d: dict[str, Any] = {"id": fresh_id(state), "kind": kind}
        if kind == "creature":
            d["damage"] = ch.integer(0, 3)
            d["hp"] = ch.integer(1, 4)
            if ch.chance(0.4):
                d["standalone_token"] = True
            elif ch.chance(0.3):
                d["premade"] = True
            if ch.chance(0.2):
                d["abilities"] = [{"keyword": "flying"}]
            if ch.chance(0.2):
                d["active"] = ch.chance(0.5)
        elif kind == "building":
            d["hp"] = ch.integer(1, 4)
        a = {"player": p, "card": d}
        zone = ch.choice(CREATE_ZONES)
        if zone is not None:
            a["zone"] = zone
        return a
    if verb in ("put_counter", "remove_counter"):
        card = _pick(ch, table, state)
        if card is None:
            return None
        return {"card": card, "counter": ch.choice(ALL_COUNTERS), "count": ch.integer(0, 3)}
    if verb in ("passivate", "activate_card"):
        card = _pick(ch, table, state)
        return None if card is None else {"card": card}
    if verb == "search":
        p = _player(ch, state)
        card = _pick(ch, _in(state, ("deck",), p), state)
        if card is None:
            return None
        return {"player": p, "card": card, "to": ch.choice(SEARCH_TO)}
    if verb == "shuffle":
        return {"player": ch.choice(PLAYERS)}
    if verb == "advance":
        return {"to": ch.choice(PHASES)}
    if verb == "exchange":
        p = _player(ch, state)
        zs = state.players[p].zones
        pool = zs["reserve"] + zs["guard_post"]
        if ch.chance(0.2):
            return {"player": p}
        candidates = [c for c in pool if state.cards.peek(c).active] if ch.chance(0.9) else pool
        post = ch.sample(candidates, 0, GUARD_POST_SIZE)
        return {"player": p, "guard_post": post, "reserve": [c for c in pool if c not in post]}
    if verb == "play":
        p = state.active if ch.chance(0.8) else other(state.active)
        options = [(z, x) for z in PLAY_FROM for x in state.players[p].zones[z]]
        in_hand = [o for o in options if o[0] == "hand"]
        if in_hand and ch.chance(0.75):
            frm, card = ch.choice(in_hand)
        elif options and ch.chance(0.9):
            frm, card = ch.choice(options)
        elif state.cards:
            frm, card = ch.choice(PLAY_FROM), ch.choice(list(state.cards))
        else:
            return None
        c = state.cards.peek(card)
        a = {"player": p, "card": card}
        if frm != "hand":
            a["from"] = frm
        if c.needs_target or c.kind in ("enchantment", "body_part") or ch.chance(0.1):
            tgt = _pick(ch, _targets(state) if c.kind not in ("enchantment", "body_part")
                        else [x for x in table if state.cards.peek(x).is_creature], state, 0.05)
            if tgt is not None:
                a["targets"] = [tgt]
        pay: dict[str, list[str]] = {}
        if c.cost.get("builders"):
            mine = [x for x in state.players[p].zones["reserve"]
                    if state.cards.peek(x).is_creature and state.cards.peek(x).active]
            pay["builders"] = ch.sample(mine, c.cost["builders"], c.cost["builders"])
        if c.cost.get("sacrifice"):
            mine = [x for x in _in(state, TABLE_ZONES, p) if x != card]
            pay["sacrifice"] = ch.sample(mine, c.cost["sacrifice"], c.cost["sacrifice"])
        kws = {ab.get("keyword"): ab for ab in c.abilities}
        if "muscle" in kws and ch.chance(0.7):
            hand = [x for x in state.players[p].zones["hand"] if x != card]
            pay["muscle"] = ch.sample(hand, 0, int(kws["muscle"].get("x", 1)))
        if "recycling" in kws and ch.chance(0.7):
            yard = state.players[ch.choice(PLAYERS)].zones["graveyard"]
            pay["recycle"] = ch.sample([x for x in yard if x != card], 0, int(kws["recycling"].get("x", 1)))
        if pay:
            a["pay"] = pay
        if c.modes and ch.chance(0.9):
            a["mode"] = ch.integer(0, len(c.modes) - 1)             # 111.7
        if c.play_as and ch.chance(0.5):
            a["as"] = ch.choice(sorted(c.play_as))                   # two ways
        return a
    if verb == "activate":
        usable = [x for x in table if any("effects" in ab for ab in state.cards.peek(x).abilities)]
        card = _pick(ch, usable, state, 0.05)
        if card is None:
            return None
        c = state.cards.peek(card)
        a = {"player": state.controller(card) or _player(ch, state), "card": card}
        if c.abilities and ch.chance(0.9):
            ab = ch.choice(c.abilities)
            a["ability"] = ab.get("keyword", 0)
            if ab.get("needs_target") or ch.chance(0.1):
                a["targets"] = [ch.choice(_targets(state))]
        else:
            a["ability"] = "use"
        return a
    if verb == "sacrifice_for_components":
        p = _player(ch, state)
        mine = [x for x in state.players[p].zones["reserve"] if state.cards.peek(x).is_creature]
        return {"player": p, "cards": ch.sample(mine, 0, 2)}
    if verb == "attack":
        p = state.active
        opp = other(p)
        goals = list(state.players[opp].zones["guard_post"]) + [opp] + \
            [x for x in state.players[opp].zones["table"] if state.cards.peek(x).kind == "building"]
        attackers = ch.sample(state.players[p].zones["guard_post"], 1, GUARD_POST_SIZE)
        if not attackers:
            return None
        return {"player": p, "attacks": [{"attacker": x, "target": ch.choice(goals)} for x in attackers]}
    if verb == "pass":
        return {"player": _player(ch, state)}
    raise ValueError(f"no generator for verb {verb!r}")


def gen_step(state: State, ch: Chooser, verbs: Sequence[str] | None = None) -> dict[str, Any]:
    """One step for the current state; `choose` (mostly) when a decision is pending."""
    if state.pending and ch.chance(0.85):
        return _step_choose(state, ch)
    verbs = tuple(verbs or ALL_VERBS)
    for _ in range(8):
        verb = ch.choice(verbs)
        args = _verb_args(verb, state, ch)
        if args is not None:
            return {verb: args}
    return {"advance": {"to": ch.choice(PHASES)}} if "advance" in verbs else \
        {"gain_vp": {"player": state.active, "amount": 0}}


def step_for_verb(state: State, verb: str) -> st.SearchStrategy[dict[str, Any]]:
    """A strategy for one step of `verb` on `state` (a `create` when the verb has nothing to act on)."""
    @st.composite
    def _s(draw):
        ch = DrawChooser(draw)
        if verb == "choose":
            return _step_choose(state, ch)
        args = _verb_args(verb, state, ch)
        if args is None:                  # nothing to work on: make something instead
            return {"create": _verb_args("create", state, ch)}
        return {verb: args}
    return _s()


# ---------------------------------------------------------------------------
# Hypothesis front-ends
# ---------------------------------------------------------------------------

def given_states(max_cards: int = 14, min_deck: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def _s(draw):
        return gen_given(DrawChooser(draw), max_cards=max_cards, min_deck=min_deck)
    return _s()


def steps_for(state: State, verbs: Sequence[str] | None = None) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def _s(draw):
        return gen_step(state, DrawChooser(draw), verbs)
    return _s()


def build_case(ch: Chooser, *, verbs: Sequence[str] | None = None, max_steps: int = 12,
               refused: str = "keep", ruleset: str = DEFAULT_RULESET, max_cards: int = 14,
               min_deck: int = 0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(given, when). The arguments of each step come from the state the steps before made.

    refused="keep": refused steps stay in `when` (apply them one by one, skipping refusals);
    refused="last": refused steps are dropped, except that one may end the case (run_case semantics).
    """
    rules = load_ruleset(ruleset)
    given = gen_given(ch, max_cards=max_cards, min_deck=min_deck)
    state = from_given(given, rules)
    when: list[dict[str, Any]] = []
    n_steps = ch.integer(1, max_steps) if max_steps > 0 else 0
    for _ in range(n_steps):
        step = gen_step(state, ch, verbs)
        try:
            out = apply(state, step, rules)
        except InputProblem:
            continue                          # a step the generator should not make: leave it out
        except Exception:
            when.append(step)                 # an engine crash: keep it, the checks report it
            break
        if out.refusal is not None:
            if refused == "keep":
                when.append(step)
            elif ch.chance(0.3):
                when.append(step)
                break
            continue
        when.append(step)
        state = out.state
    return given, when


def cases(verbs: Sequence[str] | None = None, max_steps: int = 12, refused: str = "keep",
          ruleset: str = DEFAULT_RULESET, max_cards: int = 14, min_deck: int = 0
          ) -> st.SearchStrategy[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """(given, when) pairs; see `build_case`."""
    @st.composite
    def _s(draw):
        return build_case(DrawChooser(draw), verbs=verbs, max_steps=max_steps, refused=refused,
                          ruleset=ruleset, max_cards=max_cards, min_deck=min_deck)
    return _s()
