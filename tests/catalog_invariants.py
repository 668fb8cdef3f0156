"""What stays true of a clause catalog and its texts whatever an amendment adds, moves or removes.

Each check takes a catalog and the directory it was read from, and returns its problems as
one-line messages (an empty list: it holds). The tests run them on the vendored texts, on
amended copies of them (tests/amended_texts.py) and on the parser's fixture texts
(tests/fixtures/kodex/), so no test needs a count of clauses or a line number of the vendored
texts. They read the texts with their own patterns, not the parser's, so that a broken parser
shows.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

from conformance.catalog import Catalog, Clause, source_id

KODEX_NUMBER = re.compile(r"^(\d+(?:\.\d+)*)\.(?=[ \t\u00a0]|$)")   # "4.24.3.0." at a line's start
MK_TOP = re.compile(r"^(\d+\.\d\d)\.\s")                            # "5.10. …"
MK_LETTER = re.compile(r"^•\s*([A-Z])\./(?:\s*(\d+)\.)?")           # "• G./ …", "• E./1. …"
ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}


@lru_cache(maxsize=64)
def _read(path: str) -> tuple[str, ...]:
    return tuple(Path(path).read_text(encoding="utf-8").split("\n"))


def lines_of(directory: Path | str, source: str) -> tuple[str, ...]:
    """The lines of the text ``source`` in ``directory`` (line n is item n - 1)."""
    return _read(str(Path(directory) / source))


def _flat(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


def _is_kodex(c: Clause) -> bool:
    return c.kind in ("title", "clause")


def _roman(s: str) -> int:
    return sum(-ROMAN[a] if ROMAN[a] < ROMAN.get(b, 0) else ROMAN[a]
               for a, b in zip(s, s[1:] + " "))


def _mk_parts(cid: str) -> list[str]:
    """``mk:5.07.E.1`` → ``["5.07", "E", "1"]``."""
    parts = cid.removeprefix("mk:").split(".")
    return [f"{parts[0]}.{parts[1]}", *parts[2:]]


def _holds(c: Clause, line: str) -> bool:
    """The text of line ``c.line`` is where ``c`` starts."""
    s = line.strip()
    if _is_kodex(c):
        m = KODEX_NUMBER.match(line)
        return bool(m) and m.group(1) == c.id
    if c.kind == "mk":
        top, *rest = _mk_parts(c.id)
        if not rest:
            m = MK_TOP.match(s)
            return bool(m) and m.group(1) == top
        m = MK_LETTER.match(s)
        return bool(m) and [m.group(1), *([m.group(2)] if m.group(2) else [])] == rest
    # rb7: the line holds the entry's heading, or its first paragraph when it has none
    return _flat(c.title or c.text.split("\n")[0]) in _flat(s)


def unresolved_lines(cat: Catalog, directory: Path | str) -> list[str]:
    """Every clause's ``line`` is a line of its source where that very clause starts: the
    number line of a Kódex point, the marker of an mk point, the heading or first paragraph
    of an rb7 entry."""
    out = []
    for c in cat:
        lines = lines_of(directory, c.source)
        if not 1 <= c.line <= len(lines):
            out.append(f"{c.id}: line {c.line} is outside {c.source} ({len(lines)} lines)")
        elif not _holds(c, lines[c.line - 1]):
            out.append(f"{c.id}: {c.source}:{c.line} does not start it: {lines[c.line - 1][:60]!r}")
    return out


def unaccounted_numbers(cat: Catalog, directory: Path | str) -> list[str]:
    """Every numbered line of a Kódex part and every point marker of the mk rules is one clause
    of the catalog, or a ``duplicate`` / ``id-repeated-in-text`` finding at that line — and
    only one of these (this is what a count of the clauses used to check)."""
    out = []
    by_line: dict[tuple[str, int], list[str]] = {}
    for c in cat:
        if c.kind != "rb7":
            by_line.setdefault((c.source, c.line), []).append(c.id)
    for f in cat.findings:
        if f.kind in ("duplicate", "id-repeated-in-text") and f.line:
            by_line.setdefault((f.source, f.line), []).append(f"{f.kind} {f.clause}")
    sources = {c.source: c.kind for c in cat if c.kind != "rb7"}
    for source, kind in sorted(sources.items()):
        for n, line in enumerate(lines_of(directory, source), 1):
            if kind == "mk":
                s = line.strip()
                m = MK_TOP.match(s) or MK_LETTER.match(s)
                numbered = bool(m)
            else:
                numbered = bool(KODEX_NUMBER.match(line))
            got = by_line.pop((source, n), [])
            if numbered and len(got) != 1:
                out.append(f"{source}:{n} is {len(got)} things, not one: {got} {line[:40]!r}")
            elif not numbered and got:
                out.append(f"{source}:{n} is not a numbered line but holds {got}")
    out += [f"{s}:{n}: {ids} point at a line that does not exist" for (s, n), ids in by_line.items()
            if s in sources]
    return out


def order_problems(cat: Catalog) -> list[str]:
    """Document order: each source's clauses in the order of their lines, each source in one
    block, the Kódex parts by their number, then the rulebook, then the mk rules."""
    out = []
    seen: list[str] = []
    last: dict[str, Clause] = {}
    for c in cat:
        if c.source in last and c.line <= last[c.source].line:
            out.append(f"{c.id} (line {c.line}) comes after {last[c.source].id} "
                       f"(line {last[c.source].line}) of {c.source}")
        if not seen or seen[-1] != c.source:
            if c.source in seen:
                out.append(f"{c.source} is not one block: {c.id} comes back to it")
            seen.append(c.source)
        last[c.source] = c
    rank = {"rb7": (1, 0), "mk": (2, 0)}
    parts = [next(c.part for c in cat if c.source == s) for s in seen]
    keys = [rank.get(p) or (0, _roman(p)) for p in parts]
    if keys != sorted(keys):
        out.append(f"the parts come in the order {parts}")
    return out


def section_problems(cat: Catalog) -> list[str]:
    """Sections: each one contiguous in document order; ``sections()`` lists them in that order
    and ``in_section`` gives their clauses; a Kódex section is the first component of the id and
    is titled by its title clause (or, when that is missing, by its first point), an mk
    section is the top point, every rb7 entry is in section ``rb7``."""
    out = []
    order: list[str] = []
    members: dict[str, list[str]] = {}
    for c in cat:
        if order and order[-1] != c.section and c.section in members:
            out.append(f"section {c.section} is not contiguous: {c.id} comes back to it")
        if c.section not in members:
            order.append(c.section)
        members.setdefault(c.section, []).append(c.id)
        if _is_kodex(c):
            want = c.id.split(".")[0]
        elif c.kind == "mk":
            want = "mk:" + _mk_parts(c.id)[0]
        else:
            want = "rb7"
        if c.section != want:
            out.append(f"{c.id} is in section {c.section!r}, not {want!r}")
    if [s for s, _t, _p in cat.sections()] != order:
        out.append("sections() is not the order of the sections in the text")
    for s, title, _part in cat.sections():
        if [c.id for c in cat.in_section(s)] != members[s]:
            out.append(f"in_section({s!r}) is not the section's clauses")
        head = cat.get(s)
        if head is not None and head.kind != "rb7" and (head.title or "") != title:
            out.append(f"section {s} is titled {title!r}, its title clause {head.title!r}")
        if any(c.section_title != title for c in cat.in_section(s)):
            out.append(f"the clauses of section {s} do not all carry its title {title!r}")
    return out


def identity_problems(cat: Catalog) -> list[str]:
    """Each clause's id has the form of its kind, its ``sha256`` is that of its normalised
    text, its ``source_id`` is its source's (the seed's name for a vendored text)."""
    shapes = {"title": r"\d+", "clause": r"\d+(\.\d+)+",
              "rb7": r"rb7:[a-z0-9]+(-[a-z0-9]+)*(\.[IVX]+)?",
              "mk": r"mk:\d\.\d\d(\.[A-Z](\.\d+)?)?"}
    out = []
    for c in cat:
        if not re.fullmatch(shapes.get(c.kind, "(?!)"), c.id):
            out.append(f"{c.id} does not have the form of a {c.kind!r}")
        digest = hashlib.sha256(_flat(c.text).encode("utf-8")).hexdigest()
        if c.sha256 != digest:
            out.append(f"{c.id}: sha256 is not that of its text")
        if c.source_id != source_id(c.source):
            out.append(f"{c.id}: source_id {c.source_id!r}, not {source_id(c.source)!r}")
    return out


def findings_off_their_lines(cat: Catalog, directory: Path | str) -> list[str]:
    """A finding with a line points at a line of its source that has text."""
    out = []
    for f in cat.findings:
        if f.line:
            lines = lines_of(directory, f.source)
            if not (1 <= f.line <= len(lines) and lines[f.line - 1].strip()):
                out.append(f"{f.kind} {f.clause}: {f.source}:{f.line} is no line of text")
    return out


KODEX_CHROME = ("Tartalomjegyzék", "[Kiegészítés]", "Eszközök az oldalon")


def lost_lines(cat: Catalog, directory: Path | str) -> list[str]:
    """Every line of text of a source ends up in some clause (its number, heading or text);
    only page chrome (table of contents, part headers, navigation and footer lines, the
    supplement marks) and the repeats of a point reported as a ``duplicate`` (the first is
    kept) are left out."""
    out = []
    repeats = {(f.source, f.line) for f in cat.findings if f.kind == "duplicate"}
    for source in dict.fromkeys(c.source for c in cat):
        mine = [c for c in cat if c.source == source]
        blob = "\n".join(f"{c.id}\n{c.title or ''}\n{c.text}" for c in mine)
        rb7 = mine[0].kind == "rb7"
        in_repeat = False
        for n, line in enumerate(lines_of(directory, source), 1):
            s = line.strip()
            if not rb7 and (KODEX_NUMBER.match(line) or MK_TOP.match(s) or MK_LETTER.match(s)):
                in_repeat = (source, n) in repeats
            if in_repeat:
                continue
            if not s or s.startswith(KODEX_CHROME) or re.match(r"^[IVXLC]+\. rész\b", s):
                continue
            if rb7 and (n == 1 or s.startswith(("|", "Létrehozás:")) or "Fejezet - " in s):
                continue
            s = re.sub(r"^(\d+(\.\d+)*\.|•\s*([A-Z]\./)?(\d+\.)?|-\s)\s*", "", s).strip()
            s = s.removeprefix(". ").removeprefix(": ").rstrip(":")
            if s and s[-30:] not in blob:
                out.append(f"{source}:{n} is in no clause: {s[:50]!r}")
    return out


def all_problems(cat: Catalog, directory: Path | str) -> list[str]:
    """Every check above."""
    return (unresolved_lines(cat, directory) + unaccounted_numbers(cat, directory)
            + order_problems(cat) + section_problems(cat) + identity_problems(cat)
            + findings_off_their_lines(cat, directory) + lost_lines(cat, directory))
