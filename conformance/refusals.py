"""The refusal table of hkk-case/1 (``conformance/refusals.yaml``): which clause a refusal names in
which situation, in the order each player action checks them, and which co-clauses are accepted.

Covers docs/spec/hkk-refusals.md, which is generated from the table
(``python -m conformance.vocabulary`` writes it with the other generated pages;
``python -m conformance.refusals --markdown`` prints it); the harness reads the table for one question only,
:func:`accepted_alternatives`: an expected ``then.error.clause`` matches an implementation's
refusal when it equals (or is an ancestor of) ``refused.clause``, or an entry of
``refused.clauses`` that this table lists as a co-clause of ``refused.clause`` for the verb of the
refused step. Nothing else an implementation lists is searched (docs/spec/hkk-refusals.md).
"""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

TABLE = Path(__file__).with_name("refusals.yaml")
DOC_PATH = Path(__file__).resolve().parents[1] / "docs" / "spec" / "hkk-refusals.md"
FORMAT = "hkk-refusals/1"
OUTCOMES = ("refused", "effect_prevented", "counter_prevented", "input_error")
INPUT_ERROR = "hkk-case/1"          # the "clause" of an input error: the case format itself
ANY_VERB = "*"

__all__ = ["Situation", "RefusalTable", "load_table", "accepted_alternatives", "markdown"]


@dataclass(frozen=True)
class Situation:
    id: str
    clause: str
    when: str
    outcome: str = "refused"
    also: tuple[str, ...] = ()


@dataclass
class RefusalTable:
    situations: dict[str, Situation]
    before_every_step: list[str]
    actions: dict[str, list[str]]                       # "verb" or "verb kind" -> situation ids in order
    effects: list[tuple[tuple[str, ...], str]]          # (verbs, situation id)
    _alternatives: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict, repr=False)

    def verb_situations(self, verb: str) -> list[Situation]:
        """Every situation in which a step of ``verb`` is refused (the checks before every step, the
        action's own in order, then an effect verb's when paid as a cost)."""
        ids = list(self.before_every_step) if verb != "choose" else []
        for key, order in self.actions.items():
            if key.split(" ", 1)[0] == verb:
                ids.extend(i for i in order if i not in ids)
        for verbs, sid in self.effects:
            if (verb in verbs or ANY_VERB in verbs) and sid not in ids:
                ids.append(sid)
        return [self.situations[i] for i in ids]

    def refusal_clauses(self, verb: str) -> set[str]:
        """The clauses a refusal of ``verb`` may name (effects: with ``as_cost``), co-clauses included."""
        out: set[str] = set()
        for s in self.verb_situations(verb):
            if s.outcome in ("refused", "effect_prevented"):
                out.add(s.clause)
                out.update(s.also)
        return out

    def alternatives(self, verb: str, clause: str) -> frozenset[str]:
        """The co-clauses the table lists beside ``clause`` for a refusal of ``verb``."""
        key = (verb, clause)
        got = self._alternatives.get(key)
        if got is None:
            got = frozenset(a for s in self.verb_situations(verb)
                            if s.clause == clause and s.outcome in ("refused", "effect_prevented")
                            for a in s.also)
            self._alternatives[key] = got
        return got


class TableError(ValueError):
    """The table itself is malformed (a defect of the kit, found by its tests)."""


def _parse(data: object, where: str) -> RefusalTable:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TableError(f"{where}: format must be {FORMAT}")
    situations: dict[str, Situation] = {}
    for sid, row in (data.get("situations") or {}).items():
        if not isinstance(row, dict) or not isinstance(row.get("clause"), str) \
                or not isinstance(row.get("when"), str):
            raise TableError(f"{where}: situation {sid!r} needs a clause and a when")
        outcome = row.get("outcome", "refused")
        if outcome not in OUTCOMES:
            raise TableError(f"{where}: situation {sid!r}: unknown outcome {outcome!r}")
        also = row.get("also") or []
        if not isinstance(also, list) or not all(isinstance(a, str) for a in also):
            raise TableError(f"{where}: situation {sid!r}: also must be a list of clause ids")
        situations[sid] = Situation(sid, row["clause"], row["when"].strip(), outcome, tuple(also))

    def known(ids: object, label: str) -> list[str]:
        if not isinstance(ids, list):
            raise TableError(f"{where}: {label} must be a list of situation ids")
        for i in ids:
            if i not in situations:
                raise TableError(f"{where}: {label} names unknown situation {i!r}")
        if len(set(ids)) != len(ids):
            raise TableError(f"{where}: {label} names a situation twice")
        return list(ids)

    actions = {str(v): known(ids or [], f"actions.{v}") for v, ids in (data.get("actions") or {}).items()}
    effects = []
    for k, row in enumerate(data.get("effects") or []):
        verbs = row.get("verbs") if isinstance(row, dict) else None
        if not isinstance(verbs, list) or not verbs:
            raise TableError(f"{where}: effects[{k}] needs verbs")
        known([row.get("situation")], f"effects[{k}]")
        effects.append((tuple(verbs), row["situation"]))
    before = known(data.get("before_every_step") or [], "before_every_step")
    used = set(before) | {i for ids in actions.values() for i in ids} | {s for _, s in effects}
    unused = sorted(set(situations) - used)
    if unused:
        raise TableError(f"{where}: situations no verb uses: {', '.join(unused)}")
    return RefusalTable(situations, before, actions, effects)


@functools.lru_cache(maxsize=None)
def load_table(path: str | None = None) -> RefusalTable:
    p = Path(path) if path else TABLE
    from conformance.safe_yaml import Loader
    text = p.read_text(encoding="utf-8")
    root = yaml.compose(text, Loader=Loader)
    for node in (root.value if isinstance(root, yaml.MappingNode) else []):
        if isinstance(node[1], yaml.MappingNode):
            keys = [k.value for k, _ in node[1].value]
            twice = sorted({k for k in keys if keys.count(k) > 1})
            if twice:
                raise TableError(f"{p}: {node[0].value}: {', '.join(twice)} defined twice")
    return _parse(yaml.load(text, Loader=Loader), str(p))


def accepted_alternatives(verb: str, clause: str) -> frozenset[str]:
    """The co-clauses the harness accepts beside ``clause`` for a refusal of a ``verb`` step."""
    return load_table().alternatives(verb, clause)


# --------------------------------------------------------------------------
# docs/spec/hkk-refusals.md

_HEAD = """\
# Refusal clauses

Normative; **generated** from `conformance/refusals.yaml` (`python -m conformance.vocabulary`):
do not edit by hand. Which clause a refusal names (`refused.clause`,
`then.error.clause`) in which situation, and in which order each player action checks them.

**Actions are refused, effects are carried out as far as possible** (Kódex 4.24.2;
[hkk-rules.md](hkk-rules.md#actions-and-effects)). A refused step changes nothing; the state
returned is the state before it. An effect is never refused by a rule: the part a rule stops does
nothing and an `effect_prevented {verb, clause, …}` event names the clause; the steps after it still
apply. A step with `as_cost: true` pays a cost: it is refused, with the same clause, where an effect
would be prevented.

**When several rules forbid one step** the refusal names the first situation of its verb's list
below that holds: the lists are in the order the checks are made. A refusal may add, in
`refused.clauses` (at most 8 entries, the first equal to `refused.clause`, each a clause id of the
catalog — `kodex clauses`), the **co-clauses** of its situation: the other clauses the table names
for it. A reply that breaks these bounds is malformed (`error`).

**Which expected clause matches.** An expected `then.error.clause` E matches a refusal when E equals
`refused.clause` or is an ancestor of it by dotted components (`4.8` matches `4.8.4`, not `4.80`),
or when E equals or is an ancestor of an entry of `refused.clauses` that this table lists as a
co-clause of `refused.clause` for the verb of the refused step (column "co-clauses"). Nothing else
in `refused.clauses` is searched: an implementation gains nothing by listing more.
"""


def _clause(c: str) -> str:
    return "—" if c == INPUT_ERROR else f"`{c}`"


def _row(s: Situation, n: int | None = None) -> str:
    cells = ([str(n)] if n is not None else []) + [
        s.when.replace("|", "\\|"), _clause(s.clause),
        ", ".join(f"`{a}`" for a in s.also) or "—"]
    return "| " + " | ".join(cells) + " |"


def markdown(table: RefusalTable | None = None) -> str:
    t = table or load_table()
    out = [_HEAD]
    out.append("## Before every step\n\nChecked first, in this order, for every verb but `choose`:\n")
    out.append("| # | situation | clause | co-clauses |\n|---|---|---|---|")
    out.extend(_row(t.situations[i], n) for n, i in enumerate(t.before_every_step, 1))
    out.append("\n## Player actions, in the order of their checks\n")
    out.append("Input errors (a name the case does not define, a wrong type) are found where the "
               "step reads the argument, before the rules are checked.\n")
    for key, ids in t.actions.items():
        if not ids or key in _COSTS:
            continue
        verb, _, kind = key.partition(" ")
        title = f"`{verb}`" + (f" — {kind.replace('_', ' ')}" if kind else "")
        intro = _INTRO.get(key, "")
        out.append(f"### {title}\n" + (f"\n{intro}\n" if intro else ""))
        out.append("| # | situation | clause | co-clauses |\n|---|---|---|---|")
        out.extend(_row(t.situations[i], n) for n, i in enumerate(ids, 1))
        out.append("")
    out.append("## Costs paid by an effect step (`as_cost: true`)\n")
    out.append("| verb | situation | clause | co-clauses |\n|---|---|---|---|")
    for key in _COSTS:
        for i in t.actions.get(key, []):
            s = t.situations[i]
            out.append(f"| `{key}` " + _row(s)[1:])
    out.append("\n## Effects: never refused (4.24.2)\n")
    out.append("| verbs | situation | clause | co-clauses | what happens |\n|---|---|---|---|---|")
    for verbs, sid in t.effects:
        s = t.situations[sid]
        names = "any" if ANY_VERB in verbs else ", ".join(f"`{v}`" for v in verbs)
        what = {"effect_prevented": "`effect_prevented`", "counter_prevented":
                "`counter_prevented` (the step is accepted)", "input_error": "input error",
                "refused": "refused"}[s.outcome]
        out.append(f"| {names} " + _row(s)[1:] + f" {what} |")
    out.append("")
    return "\n".join(out)


_COSTS = ("discard", "mill", "sacrifice_hp", "sacrifice_max_hp")
_INTRO = {
    "activate": "The common part, for every ability; then the part of the ability's kind below.",
    "activate other": "An entry with `effects` (136): its `cost`, `timing`, `per_turn`.",
    "advance": "",
}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args != ["--markdown"]:
        print("usage: python -m conformance.refusals --markdown", file=sys.stderr)
        return 2
    sys.stdout.write(markdown())
    return 0


if __name__ == "__main__":          # pragma: no cover
    raise SystemExit(main())
