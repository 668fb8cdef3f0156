"""The numbers the kit's ruleset and data files take from the rules, traced to their clauses.

A line of a YAML file under ``model/`` such as ``regeneration_per_turn: 4   # 136.7`` says that
the parameter's value comes from clause 136.7. :func:`traced_numbers` reads every such line:
the key, its value as written, the numbers in it and the clauses its comment names (ids the
catalog knows: ``136.7``, ``rb7:elokeszito-fazis``, ``mk:5.10``; a bare title number such as
``102`` only as the comment's first word). Used by ``kodex amend`` (a clause whose number
changes flags the parameter) and ``kodex explain`` (the parameters behind an event's clause).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

MODEL_DIR = Path(__file__).resolve().parents[1] / "model"

_LINE_RE = re.compile(r"^\s*(?:-\s+)?([A-Za-z_][\w.-]*):\s*([^#]*?)\s*#\s*(.*)$")
_TOKEN_RE = re.compile(r"(?:rb7|mk):[A-Za-z0-9.-]*[A-Za-z0-9]|\d+(?:\.\d+)*")
_NUMBER_RE = re.compile(r"(?<![\w.-])\d+(?:[.,]\d+)?(?![\w.])")


@dataclass(frozen=True)
class TracedNumber:
    file: str          # relative to the kit's root (model/rulesets/kodex.yaml)
    line: int
    key: str
    value: str         # as written
    numbers: tuple[str, ...]
    clauses: tuple[str, ...]

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "key": self.key, "value": self.value,
                "numbers": list(self.numbers), "clauses": list(self.clauses)}


def numbers_in(text: str) -> list[str]:
    """The numbers of a text as written (``4``, ``20``, ``1,5``), in order; parts of clause
    numbers such as ``4.15.1`` are not numbers of the text."""
    return [m.group(0).replace(",", ".") for m in _NUMBER_RE.finditer(text or "")]


def _clauses(comment: str, catalog) -> tuple[str, ...]:
    out: list[str] = []
    for i, m in enumerate(_TOKEN_RE.finditer(comment)):
        token = m.group(0).rstrip(".")
        if "." not in token and ":" not in token and (i or m.start() > 0):
            continue                      # a bare number is a title only as the first word
        cid = catalog.resolve(token) if catalog is not None else token
        if cid is not None and cid not in out:
            out.append(cid)
    return tuple(out)


def traced_numbers(model_dir: str | Path | None = None, catalog=None) -> list[TracedNumber]:
    """Every ``key: value  # clause …`` line of the YAML files under ``model_dir`` (default
    ``model/``) whose value holds a number and whose comment names a clause of ``catalog``
    (default: the kit's)."""
    if catalog is None:
        from conformance.catalog import load_catalog
        catalog = load_catalog()
    d = Path(model_dir) if model_dir is not None else MODEL_DIR
    out: list[TracedNumber] = []
    for path in sorted(d.rglob("*.yaml")):
        if not path.is_file():
            continue
        rel = f"{d.name}/{path.relative_to(d).as_posix()}"
        for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = _LINE_RE.match(text)
            if not m:
                continue
            value = m.group(2).strip()
            nums = tuple(numbers_in(value))
            clauses = _clauses(m.group(3), catalog)
            if nums and clauses:
                out.append(TracedNumber(rel, n, m.group(1), value, nums, clauses))
    return out


__all__ = ["TracedNumber", "numbers_in", "traced_numbers"]
