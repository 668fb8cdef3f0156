"""Rulesets: the parameters of the rules, read from YAML files.

A ruleset names the numbers the Kódex fixes (3.12 starting Ép and VP, 3.18 the
maxima, 3.6 the opening hand, 5.4.3 the guard post size, the VP income of
rb7:elokeszito-fazis …) and the reading chosen for each contradiction recorded
in conformance/conflicts.yaml. `kodex` is the default; a ruleset may
`extends:` another and override some keys.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

RULESET_DIR = Path(__file__).parent / "rulesets"
DEFAULT_RULESET = "kodex"

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class RulesetError(ValueError):
    """A ruleset file is missing, malformed or names an unknown key."""


@dataclass(frozen=True)
class Ruleset:
    name: str
    description: str
    starting_hp: int
    max_hp: int
    starting_vp: int
    max_vp: int
    opening_hand: int
    guard_post_size: int
    vp_income: tuple[int, ...]
    reserve_creatures_per_vp: int
    defence_bonus_damage: int
    defence_bonus_hp: int
    nekron_cards_per_point: int
    max_attackers_per_defender: int
    regeneration_per_turn: int
    draw_per_turn: int
    priority_policy: str
    readings: dict[str, str] = field(default_factory=dict)

    def reading(self, conflict: str) -> str:
        try:
            return self.readings[conflict]
        except KeyError:
            raise RulesetError(f"ruleset {self.name!r} names no reading for conflict {conflict!r}") from None

    def vp_income_for(self, own_turn: int) -> int:
        """VP income of the n-th own turn (1-based): the schedule, its last value from then on."""
        if own_turn < 1:
            return 0
        sched = self.vp_income
        return sched[min(own_turn, len(sched)) - 1]


_KEYS = {"name", "extends", "description", "starting_hp", "max_hp", "starting_vp", "max_vp",
         "opening_hand", "guard_post_size", "vp_income", "reserve_creatures_per_vp",
         "defence_bonus", "nekron_cards_per_point", "max_attackers_per_defender",
         "regeneration_per_turn", "draw_per_turn", "priority_policy", "readings"}


def available_rulesets() -> list[str]:
    return list(_ruleset_names())


@lru_cache(maxsize=1)
def _ruleset_names() -> tuple[str, ...]:
    """The ruleset files, read once per process (they are part of the kit, not of a run)."""
    return tuple(sorted(p.stem for p in RULESET_DIR.glob("*.yaml")))


def _raw(name: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    path = RULESET_DIR / f"{name}.yaml"
    if not path.exists():
        raise RulesetError(f"unknown ruleset {name!r} (known: {', '.join(available_rulesets())})")
    if name in seen:
        raise RulesetError(f"{path}: ruleset extends itself through {' -> '.join(seen + (name,))}")
    with path.open(encoding="utf-8") as fh:
        data = yaml.load(fh, Loader=_Loader) or {}
    if not isinstance(data, dict):
        raise RulesetError(f"{path}: a ruleset is a mapping")
    unknown = set(data) - _KEYS
    if unknown:
        raise RulesetError(f"{path}: unknown key(s) {sorted(unknown)}")
    if data.get("name") != name:
        raise RulesetError(f"{path}: field 'name' must be {name!r}")
    parent = data.get("extends")
    if parent:
        base = _raw(parent, seen + (name,))
        readings = {**base.get("readings", {}), **data.get("readings", {})}
        data = {**base, **data, "readings": readings}
    return data


@lru_cache(maxsize=None)
def load_ruleset(name: str = DEFAULT_RULESET) -> Ruleset:
    d = _raw(name)
    path = RULESET_DIR / f"{name}.yaml"
    try:
        bonus = d["defence_bonus"]
        return Ruleset(
            name=name,
            description=str(d.get("description", "")).strip(),
            starting_hp=int(d["starting_hp"]), max_hp=int(d["max_hp"]),
            starting_vp=int(d["starting_vp"]), max_vp=int(d["max_vp"]),
            opening_hand=int(d["opening_hand"]), guard_post_size=int(d["guard_post_size"]),
            vp_income=tuple(int(x) for x in d["vp_income"]),
            reserve_creatures_per_vp=int(d["reserve_creatures_per_vp"]),
            defence_bonus_damage=int(bonus["damage"]), defence_bonus_hp=int(bonus["hp"]),
            nekron_cards_per_point=int(d["nekron_cards_per_point"]),
            max_attackers_per_defender=int(d["max_attackers_per_defender"]),
            regeneration_per_turn=int(d["regeneration_per_turn"]),
            draw_per_turn=int(d["draw_per_turn"]),
            priority_policy=str(d["priority_policy"]),
            readings=dict(d.get("readings", {})),
        )
    except KeyError as exc:
        raise RulesetError(f"{path}: missing key {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        raise RulesetError(f"{path}: {exc}") from None
