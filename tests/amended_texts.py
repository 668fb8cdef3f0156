"""Amended copies of the Kódex texts: the texts the kit reads, copied, with one new clause
inserted in the layout of its source — the shape of a real amendment.

* Kódex part VI: a new last point of title 136 (``136.10`` on today's texts);
* Kódex part II: a new last point of title 3 (``3.20``);
* the 7th-edition rulebook: a new ability item before ``- Mérgezés.`` (``rb7:uszas``);
* the M.A.G.U.S. rules: a new last lettered point of 5.01 (``mk:5.01.G``).

The numbers are the next free ones of the texts copied and each text is one no clause of its
text has yet, so a copy of texts already amended this way (``KODEX_TEXTS_DIR``,
conformance/catalog.py, or texts vendored with such a clause) gets new clauses of its own. Used by
tests/test_catalog.py (every invariant holds on the copy too) and tests/test_amended_copy.py
(only what concerns the new clauses changes).
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from conformance.catalog import Catalog, load_catalog, normalize, slugify, texts_dir

NBSP = "\u00a0"
PARTS = ("II", "VI", "rb7", "mk")
RB7_TERMS = ("Úszás", "Ugrás", "Mászás", "Ásás")
TEXTS = {
    "II": ("A játékosok a játék végén kezet fognak egymással.",
           "A játék végén a játékosok megköszönik egymásnak a játékot.",
           "A játszma végén mindkét játékos összeszedi a saját lapjait."),
    "VI": ("Az árnyék képesség egy körben legfeljebb egyszer használható ugyanarra a lényre.",
           "Az árnyék képességet egy körben csak egyszer lehet ugyanazzal a lénnyel használni.",
           "Egy lény árnyék képessége körönként egyszer használható."),
    "rb7": ("A lény vízi terepen is támadhat, és ott csak hasonló lény blokkolhatja.",
            "Ezzel a képességgel a lény akadályon át is támadhat.",
            "A lényt ezzel a képességgel csak hasonló lény blokkolhatja."),
    "mk": ("Új pont: a leidézett lap a Jelenbe kerül, ha más nem rendelkezik róla.",
           "Új pont: a leidézett lap a Múltba kerül, ha más nem rendelkezik róla.",
           "Új pont: a leidézés menete a fentiekkel megegyezik."),
}


@dataclass(frozen=True)
class Amended:
    directory: Path
    added: list[str]                          # the new clauses' ids, in document order
    inserted: dict[str, tuple[int, int]] = field(default_factory=dict)  # source → (line, count)

    def new_line(self, source: str, line: int) -> int:
        """Where line ``line`` of ``source`` is in the copy."""
        at, count = self.inserted.get(source, (0, 0))
        return line + count if at and line >= at else line


def _next_point(cat: Catalog, parent: str) -> str:
    kids = [int(c.id.rsplit(".", 1)[1]) for c in cat
            if "." in c.id and c.id.rsplit(".", 1)[0] == parent and c.kind == "clause"]
    return f"{parent}.{max(kids, default=-1) + 1}"


def _after_section(cat: Catalog, section: str) -> int | None:
    """The line of the first clause after the last one of ``section`` in the same source
    (None: the section ends its source)."""
    members = cat.in_section(section)
    ids = cat.ids()
    later = ids[ids.index(members[-1].id) + 1:]
    nxt = next((cat[i] for i in later), None)
    return nxt.line if nxt is not None and nxt.source == members[-1].source else None


def _insertion(cat: Catalog, part: str) -> tuple[str, str, int | None, list[str]]:
    """(new id, source, line to insert before, lines to insert) for ``part``."""
    have = {normalize(c.text) for c in cat if c.part == part}
    text = next(t for t in TEXTS[part] if t not in have)
    if part in ("II", "VI"):
        section = "3" if part == "II" else "136"
        cid = _next_point(cat, section)
        return (cid, cat[section].source, _after_section(cat, section),
                [f"{cid}.{NBSP} ", "", text, ""])
    if part == "rb7":
        term = next(t for t in RB7_TERMS if f"rb7:{slugify(t)}" not in cat)
        before = cat["rb7:mergezes"]
        return (f"rb7:{slugify(term)}", before.source, before.line, [f"- {term}. {text}"])
    letters = [c.id.rsplit(".", 1)[1] for c in cat if cat.is_descendant(c.id, "mk:5.01")
               and c.id.count(".") == 2]
    letter = chr(ord(max(letters, default="@")) + 1)
    return (f"mk:5.01.{letter}", cat["mk:5.01"].source, _after_section(cat, "mk:5.01"),
            [f" • {letter}./ {text}", ""])


def amended_copy(target: Path, parts: tuple[str, ...] = PARTS,
                 base: Path | str | None = None) -> Amended:
    """Copy the texts of ``base`` (default: the ones the kit reads) into ``target`` and insert
    one new clause into each of ``parts``."""
    base = Path(base) if base is not None else texts_dir()
    cat = load_catalog(base)
    target.mkdir(parents=True, exist_ok=True)
    for p in base.glob("*.txt"):
        shutil.copy(p, target / p.name)
    added, inserted = [], {}
    for part in PARTS:
        if part not in parts:
            continue
        cid, source, before, new = _insertion(cat, part)
        path = target / source
        lines = path.read_text(encoding="utf-8").split("\n")
        at = before if before is not None else len(lines) + 1
        lines[at - 1:at - 1] = new
        path.write_text("\n".join(lines), encoding="utf-8")
        added.append(cid)
        inserted[source] = (at, len(new))
    return Amended(target, added, inserted)
