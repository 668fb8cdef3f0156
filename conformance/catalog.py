"""Clause catalog: every citable rule of the vendored HKK sources, by id.

The four UTF-8 files in ``conformance/kodex/`` are read as they are (they are
vendored unchanged and never edited).  Each source kind is recognised by its
content (with the known file names as a fallback):

* **Kódex parts** (``II. rész`` / ``VI. rész`` header; files ``kodex-part-II.txt``
  and ``kodex-part-VI.txt``).  Every line starting with a dotted number (``3.``, ``4.24.3.0.``,
  ``96.``, ``114.0.``) starts a clause whose id is the number without the final
  dot.  One-component numbers are titles (``kind="title"``), the rest are
  numbered points (``kind="clause"``).  Text after the number is the clause's
  heading (``title``); the body is the following paragraphs.  ``section`` is the
  first component, ``section_title`` that title's name.
* **7th-edition rulebook, chapter 2** (``part="rb7"``): ids ``rb7:<slug>``, see
  :func:`slugify` and the entry list below.
* **M.A.G.U.S. card game rules 5.00** (``part="mk"``): ``mk:5.10`` for the
  numbered points, ``mk:5.10.G`` for the lettered ones (`` • G./ …``),
  ``mk:5.07.E.1`` for ``  • E./1. …``.  Unlettered bullets, example lines and
  plain paragraphs belong to the most recent point.  ``section`` is the top
  point (``mk:5.10``).

Quirks of the sources are never silently repaired; each one is reported as a
:class:`Finding`:

``duplicate``            a number (or rb7 slug, mk id) seen again; the first
                         occurrence stays in the catalog (5.3.2–5.3.4 are
                         repeated at the end of part II).
``id-repeated-in-text``  the body repeats the clause number (96.5, 114.4,
                         134.9.1); the number is stripped from the text.
``leading-dot``          the body starts with ``. `` or ``: `` continuing the
                         heading (4.4.3 ``Kezdőkéz`` / ``. A játék elején…``);
                         the punctuation is stripped.
``text-on-number-line``  a title line also holds text (120); split at the
                         first ``". "``.
``heading-in-text``      an empty number line followed by a lone short,
                         unpunctuated paragraph that heads sub-points (4.1
                         ``Játékos, ellenfél``); it becomes the title.
``gap``                  siblings skip a number (4.9.2, 4.11.4, 130.3, …).
``missing-parent``       sub-points whose parent number never appears
                         (4.24.3.x, 111.1.x, 127.0.x, and title 114 whose
                         heading is carried by 114.0).
``out-of-order``         a number lower than the one before it (135.1 after
                         135.3.1).
``same-text``            two different ids with identical normalised text.
``repeated-supplement``  ``[Kiegészítés]`` given twice for the same clause.
``empty-clause``         a point with neither text nor sub-points (mk 5.00).
``orphan``               an mk ``X./n.`` sub-point not under its letter X.
``missing-anchor``       an rb7 anchor paragraph (below) not found.
``lookalike-letter``     ``õ``/``û``/``ô`` written for ``ő``/``ű`` (4.16.3, 4.16.4,
                         rb7 Blokkolás); the text is left as is.
``ignored-text``         text outside any clause that is not known page chrome.
``unrecognized-source``  a file in the directory of no known kind.

``[Kiegészítés]`` lines set ``supplement=True`` on the preceding clause and are
not text.  Page chrome (``Tartalomjegyzék | Tárgymutató``, ``II. rész - …``,
navigation/footer lines) is skipped.

rb7 entries
-----------
* The phase headings ``1. Előkészítő Fázis``, ``2. Húzási fázis``,
  ``3. és 6. Fő fázis``, ``4. Csere fázis``, ``5. Harci fázis``,
  ``7. Gyógyulási fázis`` (list numbers are dropped from the slug:
  ``rb7:fo-fazis``); title = the heading line as written.
* The combat sub-phases ``I. `` … ``VII. ``: ``rb7:harci-fazis.I`` …
  ``rb7:harci-fazis.VII``; title = the sub-phase heading where the line gives
  one (``II. Támadás kijelölése.``, ``IV. Speciális képességek használata.``,
  ``VI. Ütés fázis.``; the text is the rest), else ``None`` (I, III, V, VII:
  the whole line is text).  Unheaded lines after a sub-phase belong to it.
* Ability-list items ``- Term. Sentence…`` (term: capitalised, at most five
  words) before the glossary: ``rb7:magikus-vedekezes-tamadas``,
  ``rb7:regeneralodas``, ``rb7:immunitas-meregre``, …; title = term, text = the
  rest of the line.  Each item is one paragraph; following unheaded paragraphs
  go back to the enclosing group, except that an item directly followed by a
  paragraph ending in ``:`` (``- Harci képességek.`` / ``Ezen belül
  lehetnek:``) becomes the enclosing group of the nested list.
* Glossary entries from ``- Anti-mágia`` on: each short ``- Term`` line (no
  sentence) and its paragraphs; the clan list (``#10.`` … ``#18.``) stays in
  ``rb7:lapok-szine-klanja-kapcsolat-a-hkk-istenekkel``.
* Unheaded introductory groups, identified by the opening words of their first
  paragraph (line numbers as vendored; ``title`` is ``None``):

  ==================================== ======= ===============================
  id                                   lines   anchor (first words)
  ==================================== ======= ===============================
  rb7:bevezetes                        2       Reméljük, sikerült megérteni
  rb7:lapok-kijatszasa                 3       Egy lap kijátszásának nevezzük
  rb7:idezesi-koltseg                  4–7     Minden kártyának van egy ún.
  rb7:lenyek                           31–36   A játék során kijátszott lények
  rb7:galetkik                         37–40   A lények közé tartoznak
  rb7:varazslatok                      41–47   A varázslatoknak három
  rb7:epitmenyek                       48–49   Az építmények kijátszásához
  rb7:targyak                          50      A tárgyak kijátszásához
  rb7:szakertelmek                     51      A játékosnak alapállapotban
  rb7:testreszek                       52–55   A testrészek játékban maradó
  rb7:lenyek-szovegei                  65–68   A lény kártyákon szerepelő
  rb7:allandoan-mukodo-kepessegek      69–70,  Az állandóan működő képesség
                                       73, 78
  rb7:aktivalast-kivano-kepessegek     79–80   Azok az aktiválást kívánó
  rb7:kozos-kepesseg-lapszoveg         87      Ha egy lapon ezt a szöveget
  rb7:hegymelyi-lenyek                 88–89   A hegymélyi lényeket
  rb7:kijatszasi-sorrend               90–99   A játék során előfordulhat
  ==================================== ======= ===============================

  Every entry's text runs to the next heading, item, sub-phase or anchor.
  ``section`` is ``"rb7"`` for all of them.

Which texts are read
--------------------
:func:`load_catalog` with a directory reads that directory. Without one it reads
:func:`texts_dir`: the directory named by the environment variable
``KODEX_TEXTS_DIR`` when it is set (and not empty), else ``conformance/kodex/``
(:data:`KODEX_DIR`). Every command, and every test that needs the kit's catalog,
calls ``load_catalog()`` without a directory, so the variable points the whole
kit at an amended copy of the texts without touching the vendored files::

    cp -r conformance/kodex /tmp/amended      # then edit /tmp/amended/*.txt
    KODEX_TEXTS_DIR=/tmp/amended make test    # or: … kodex coverage, kodex clause 136.10

(A clause added that way fails one test, the one asking that every clause is
covered or registered untestable: tests/test_amended_copy.py.)

A value that is not a directory holding a ``*.txt`` file is refused with a
:class:`TextsDirError` naming the variable (never an empty catalog). The
variable is read at each call, nothing is kept but the per-directory cache, so a
test that sets it for its own duration (``monkeypatch.setenv``) leaves no trace.
``kodex amend NEW_DIR`` compares a copy with the vendored texts without the
variable (reports/amendment.py).

The catalog is cached per directory by :func:`load_catalog`; treat it as
read-only.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import sys
import unicodedata
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator

__all__ = [
    "Clause",
    "Finding",
    "Catalog",
    "load_catalog",
    "slugify",
    "normalize",
    "to_json",
    "finding_to_json",
    "RB7_SECTION_TITLE",
    "detect_part",
    "section_name",
    "source_id",
    "VENDORED",
    "KODEX_DIR",
    "TEXTS_ENV",
    "TextsDirError",
    "texts_dir",
]

KODEX_DIR = Path(__file__).resolve().parent / "kodex"
TEXTS_ENV = "KODEX_TEXTS_DIR"    # the texts load_catalog() reads when set (module docstring)
RB7_SECTION_TITLE = "7. kiadás szabálykönyv, 2. fejezet"
SUPPLEMENT_MARK = "[Kiegészítés]"

# The vendored texts: their file name → (part, source id). A text's source id is the file name it
# had in the seed the kit was built from; it stays the same whatever the file is called, and an
# amended copy matched to it by content (reports/amendment.py) keeps it. The part is also the
# fallback when a file's content does not reveal its kind.
VENDORED = {
    "kodex-part-II.txt": ("II", "002_e1a284984842c9db.txt"),
    "kodex-part-VI.txt": ("VI", "000_1a9e2c8ab29223d6.txt"),
    "rulebook-7th-edition-chapter-2.txt": ("rb7", "003_b26b5153b3e34abc.txt"),
    "magus-card-game-rules-5.00.txt": ("mk", "004_a42c886b35c43679.txt"),
}
_KNOWN_FILES = {name: part for name, (part, _sid) in VENDORED.items()}
_KNOWN_FILES.update({sid: part for _name, (part, sid) in VENDORED.items()})


def source_id(file_name: str) -> str:
    """The source id of a vendored text (its seed file name); any other file is its own id."""
    entry = VENDORED.get(file_name)
    return entry[1] if entry is not None else file_name


# --------------------------------------------------------------------------
# data types


@dataclass(frozen=True)
class Clause:
    id: str
    title: str | None
    text: str
    section: str
    section_title: str
    part: str
    source: str
    line: int
    sha256: str
    supplement: bool
    kind: str
    source_id: str = ""      # the seed's file name of a vendored text (VENDORED); else ``source``


@dataclass(frozen=True)
class Finding:
    """A quirk of the source, reported, never hidden."""

    kind: str
    clause: str
    source: str
    line: int
    message: str


def to_json(clause: Clause) -> dict:
    """Plain-dict form of a clause (all fields)."""
    return asdict(clause)


def finding_to_json(finding: Finding) -> dict:
    return asdict(finding)


# --------------------------------------------------------------------------
# text helpers

_WS_RE = re.compile(r"\s+")
_LIST_NUMBER_RE = re.compile(r"^[\s\-–•]*(?:\d+[.)]\s*(?:(?:és|,|-|–)\s+)?)+")


def normalize(text: str) -> str:
    """NFC, whitespace runs (including NO-BREAK SPACE) folded to one space, stripped."""
    return _WS_RE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def _sha256(text: str) -> str:
    return hashlib.sha256(normalize(text).encode("utf-8")).hexdigest()


def _fold_ascii(text: str) -> str:
    return _strip_accents(text).lower()


def _strip_accents(text: str) -> str:
    """Accents off, case kept: ``Ő`` → ``O``, ``õ`` → ``o`` (any combining mark)."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFC", text))
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def slugify(text: str) -> str:
    """Slug for rb7 ids.

    Leading list numbers are dropped (``"3. és 6. Fő fázis"`` → ``fo-fazis``),
    Hungarian accents folded to ASCII, lowercased, runs of other characters
    become ``-``, trimmed of ``-`` (``"- Anti-mágia"`` → ``anti-magia``).
    """
    text = _LIST_NUMBER_RE.sub("", normalize(text))
    text = _fold_ascii(text)
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


def _dotted(cid: str) -> tuple[str, list[str]]:
    """Split ``"mk:5.07.E.1"`` into ``("mk:", ["5.07", "E", "1"])``.

    Kódex ids have no prefix and split on every dot; mk ids keep ``5.07`` as
    one component; rb7 slugs contain no dots except the sub-phase suffix.
    """
    prefix = ""
    if ":" in cid:
        head, cid = cid.split(":", 1)
        prefix = head + ":"
    parts = cid.split(".")
    if prefix == "mk:" and len(parts) >= 2:
        parts = [parts[0] + "." + parts[1]] + parts[2:]
    return prefix, parts


# --------------------------------------------------------------------------
# the catalog


class Catalog:
    """All clauses (document order) plus the findings about their sources."""

    def __init__(self, clauses: dict[str, Clause] | None = None,
                 findings: list[Finding] | None = None) -> None:
        self.clauses: dict[str, Clause] = clauses if clauses is not None else {}
        self.findings: list[Finding] = findings if findings is not None else []

    def get(self, id: str) -> Clause | None:  # noqa: A002 - API name
        return self.clauses.get(id)

    def __getitem__(self, id: str) -> Clause:  # noqa: A002
        return self.clauses[id]

    def __contains__(self, id: object) -> bool:  # noqa: A002
        return id in self.clauses

    def __iter__(self) -> Iterator[Clause]:
        return iter(self.clauses.values())

    def __len__(self) -> int:
        return len(self.clauses)

    def ids(self, part: str | None = None) -> list[str]:
        return [c.id for c in self if part is None or c.part == part]

    def sections(self) -> list[tuple[str, str, str]]:
        """``(section, section_title, part)`` in document order."""
        seen: dict[str, tuple[str, str, str]] = {}
        for c in self:
            if c.section not in seen:
                seen[c.section] = (c.section, c.section_title, c.part)
        return list(seen.values())

    def in_section(self, section: str) -> list[Clause]:
        return [c for c in self if c.section == section]

    def findings_of(self, kind: str | None = None, clause: str | None = None) -> list[Finding]:
        return [f for f in self.findings
                if (kind is None or f.kind == kind) and (clause is None or f.clause == clause)]

    def ancestors(self, id: str) -> list[str]:  # noqa: A002
        """Existing ancestors, nearest first: ``"4.13.4.1"`` → ``["4.13.4", "4.13", "4"]``.

        Only ids present in the catalog are returned, so missing parents are
        skipped (``"4.24.3.1"`` → ``["4.24", "4"]``: there is no 4.24.3).
        """
        prefix, parts = _dotted(id)
        out = []
        for n in range(len(parts) - 1, 0, -1):
            cand = prefix + ".".join(parts[:n])
            if cand in self.clauses:
                out.append(cand)
        return out

    def resolve(self, written: str) -> str | None:
        """The catalog id for an id as people write it, or None: the Kódex's own numbering with
        its final dot (``136.8.``), a lower-case mk letter (``mk:5.11.b``, ``MK:5.11``), an rb7
        term with its accents (``rb7:regenerálódás``), surrounding spaces or quotes."""
        s = normalize(str(written)).strip("\"'„”«» ")
        if s in self.clauses:
            return s
        s = s.rstrip(".").strip()
        if s in self.clauses:
            return s
        head, sep, rest = s.partition(":")
        if sep:
            head = head.lower()
            if head == "mk":
                rest = ".".join(p.upper() if p.isalpha() else p for p in rest.split("."))
            elif head == "rb7":
                base, dot, roman = rest.partition(".")
                rest = slugify(base) + (dot + roman.upper() if dot else "")
            s = f"{head}:{rest}"
        return s if s in self.clauses else None

    def search(self, text: str) -> list[Clause]:
        """The clauses whose id, title or text contains every word of ``text``, accents
        ignored (``regeneralodas`` finds ``regenerálódás``), in document order. Case is ignored
        unless ``text`` has a capital letter (smart case: ``Semmi`` finds the zone, ``Semmiből``,
        not ``semmilyen``)."""
        query = normalize(text)
        exact = query != query.lower()
        words = (_strip_accents(query) if exact else _fold_ascii(query)).split()
        if not words:
            return []
        return [c for c in self if all(w in _folded(c, exact) for w in words)]

    def label(self, cid: str) -> str:
        """``4.25.0 — Sebződés (4. Alapfogalmak, alapdefiníciók)``: the point's title, else its
        nearest titled ancestor's below the section, with the section; the section alone when
        neither has one; an id the catalog does not know says so."""
        cl = self.get(cid)
        if cl is None:
            return f"{cid} (not in the catalog)"
        sec = section_name(cl)
        if cl.id == cl.section:
            return f"{cid} — {cl.title or sec}"
        title = cl.title or next((self.clauses[a].title for a in self.ancestors(cid)
                                  if a != cl.section and self.clauses[a].title), None)
        return f"{cid} — {title} ({sec})" if title else f"{cid} — {sec}"

    @staticmethod
    def is_descendant(id: str, prefix: str, *, include_self: bool = False) -> bool:  # noqa: A002
        """True when ``id`` lies under ``prefix`` by whole dotted components.

        ``"4.8.4"`` is under ``"4.8"`` and ``"4"`` but not under ``"4.80"`` or
        ``"4.8.4"`` itself (unless ``include_self``).  Works for ``mk:`` and
        ``rb7:`` ids too (``"mk:5.07.E.1"`` under ``"mk:5.07"``).
        """
        p1, a = _dotted(id)
        p2, b = _dotted(prefix)
        if p1 != p2 or len(a) < len(b) or a[: len(b)] != b:
            return False
        return include_self or len(a) > len(b)


def section_name(cl: Clause) -> str:
    """``4. Alapfogalmak, alapdefiníciók`` for Kódex titles, else the section title."""
    sec = str(cl.section)
    if sec.isdigit():
        return f"{sec}. {cl.section_title}"
    if sec.startswith("mk:"):
        return f"{sec} {cl.section_title}"
    return cl.section_title or sec


@functools.lru_cache(maxsize=8192)
def _folded(cl: Clause, exact: bool = False) -> str:
    """What :meth:`Catalog.search` looks in: the id, title and text, accents folded (and, unless
    ``exact``, lower-cased)."""
    hay = normalize(" ".join((cl.id, cl.title or "", cl.text)))
    return _strip_accents(hay) if exact else _fold_ascii(hay)


# --------------------------------------------------------------------------
# Kódex parts

_KODEX_NUM_RE = re.compile(r"^(\d+(?:\.\d+)*)\.(?=[ \t\u00a0]|$)")
_PART_HEADER_RE = re.compile(r"^([IVXLC]+)\.\s+rész\b")
_KODEX_CHROME = ("Tartalomjegyzék",)


@dataclass
class _Raw:
    id: str
    line: int
    heading: str
    body: list[str] = field(default_factory=list)
    body_lines: list[int] = field(default_factory=list)
    supplement: bool = False
    marker_count: int = 0
    duplicate: bool = False
    title: str | None = None


def _key(cid: str) -> tuple[int, ...]:
    return tuple(int(x) for x in cid.split("."))


def _roman(s: str) -> int:
    vals = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
    total = 0
    for i, ch in enumerate(s):
        v = vals[ch]
        total += -v if i + 1 < len(s) and vals[s[i + 1]] > v else v
    return total


def _strip_leading_dot(raw: _Raw, source: str, findings: list[Finding], label: str) -> None:
    if raw.body:
        m = re.match(r"^([.:])\s+", raw.body[0])
        if m:
            raw.body[0] = raw.body[0][m.end():]
            findings.append(Finding(
                "leading-dot", label, source, raw.body_lines[0],
                f"text of {label} starts with {m.group(1)!r} continuing its heading "
                f"{raw.heading!r}; stripped"))


def _parse_kodex(path: Path, part: str, findings: list[Finding]) -> list[Clause]:
    source = path.name
    lines = path.read_text(encoding="utf-8").split("\n")
    raws: list[_Raw] = []
    first: dict[str, _Raw] = {}
    cur: _Raw | None = None
    for lineno, raw_line in enumerate(lines, 1):
        s = raw_line.strip()
        if not s:
            continue
        if s == SUPPLEMENT_MARK:
            if cur is None:
                findings.append(Finding("ignored-text", "", source, lineno,
                                        "[Kiegészítés] before any clause"))
                continue
            cur.marker_count += 1
            cur.supplement = True
            if cur.marker_count == 2:
                findings.append(Finding(
                    "repeated-supplement", cur.id, source, lineno,
                    f"[Kiegészítés] given more than once for {cur.id}"))
            continue
        m = _KODEX_NUM_RE.match(raw_line)
        if m:
            cid = m.group(1)
            rest = raw_line[m.end():].strip()
            if cur is not None and cid == cur.id and not cur.heading and not cur.body:
                cur.body.append(rest)
                cur.body_lines.append(lineno)
                findings.append(Finding(
                    "id-repeated-in-text", cid, source, lineno,
                    f"the text of {cid} (line {cur.line}) repeats its number; stripped"))
                continue
            cur = _Raw(cid, lineno, rest)
            if cid in first:
                cur.duplicate = True
            else:
                first[cid] = cur
            raws.append(cur)
            continue
        if cur is None:
            if _PART_HEADER_RE.match(s) or s.startswith(_KODEX_CHROME):
                continue
            findings.append(Finding("ignored-text", "", source, lineno,
                                    f"text before the first clause: {s[:60]!r}"))
            continue
        cur.body.append(s)
        cur.body_lines.append(lineno)

    live = [r for r in raws if not r.duplicate]

    # headings, leading dots, text on title lines, headings inside the text
    for i, r in enumerate(raws):
        if r.duplicate:
            continue
        is_title = "." not in r.id
        if is_title:
            m = re.match(r"^(.*?[^.\s])\.\s+(\S.*)$", r.heading)
            if m:
                r.heading = m.group(1)
                r.body.insert(0, m.group(2))
                r.body_lines.insert(0, r.line)
                findings.append(Finding(
                    "text-on-number-line", r.id, source, r.line,
                    f"title line of {r.id} holds both its name {m.group(1)!r} and text"))
        _strip_leading_dot(r, source, findings, r.id)
        nxt = next((x for x in raws[i + 1:] if not x.duplicate), None)
        if (not r.heading and len(r.body) == 1 and nxt is not None
                and Catalog.is_descendant(nxt.id, r.id)
                and not re.search(r"[.:!?;)]$", r.body[0])
                and len(r.body[0].split()) <= 6):
            r.title = r.body[0]
            findings.append(Finding(
                "heading-in-text", r.id, source, r.body_lines[0],
                f"{r.id} has an empty number line; its lone paragraph {r.body[0]!r} "
                f"heads its sub-points and is taken as the title"))
            r.body, r.body_lines = [], []
        else:
            r.title = r.heading.rstrip(":").strip() or None

    # duplicates
    for r in raws:
        if r.duplicate:
            f = first[r.id]
            same = normalize("\n".join(r.body)) == normalize("\n".join(f.body))
            findings.append(Finding(
                "duplicate", r.id, source, r.line,
                f"{r.id} appears again at line {r.line} (first at line {f.line}); "
                f"{'identical' if same else 'different'} text; the first is kept"))

    # sections
    titles: dict[str, str] = {}
    for r in live:
        sec = r.id.split(".")[0]
        if "." not in r.id:
            titles[sec] = r.title or ""
    for r in live:
        sec = r.id.split(".")[0]
        if sec not in titles:
            titles[sec] = r.title or ""

    ids = {r.id for r in live}
    _numbering_findings(live, ids, source, findings)

    clauses = []
    for r in live:
        sec = r.id.split(".")[0]
        text = "\n".join(r.body)
        clauses.append(Clause(
            id=r.id, title=r.title, text=text, section=sec,
            section_title=titles[sec], part=part, source=source, source_id=source_id(source),
            line=r.line,
            sha256=_sha256(text), supplement=r.supplement,
            kind="title" if "." not in r.id else "clause"))
    return clauses


def _numbering_findings(live: list[_Raw], ids: set[str], source: str,
                        findings: list[Finding]) -> None:
    line_of = {r.id: r.line for r in live}
    # missing parents (reported once, at the first child)
    missing: dict[str, tuple[str, int]] = {}
    for r in live:
        parts = r.id.split(".")
        for n in range(len(parts) - 1, 0, -1):
            p = ".".join(parts[:n])
            if p not in ids and p not in missing:
                missing[p] = (r.id, r.line)
    for p, (child, line) in missing.items():
        what = "title" if "." not in p else "point"
        findings.append(Finding(
            "missing-parent", p, source, line,
            f"{what} {p} never appears; its sub-points start with {child}"))
    # gaps among siblings (implied parents count as present)
    present = ids | set(missing)
    children: dict[tuple[int, ...], set[int]] = {}
    for cid in present:
        k = _key(cid)
        children.setdefault(k[:-1], set()).add(k[-1])
    for parent, nums in sorted(children.items()):
        lo = min(nums) if not parent else 1
        for n in range(lo, max(nums)):
            if n in nums:
                continue
            gap_id = ".".join(map(str, parent + (n,)))
            prev = max(x for x in nums if x < n) if any(x < n for x in nums) else None
            after = min(x for x in nums if x > n)
            after_id = ".".join(map(str, parent + (after,)))
            prev_id = ".".join(map(str, parent + (prev,))) if prev is not None else None
            findings.append(Finding(
                "gap", gap_id, source, line_of.get(after_id, missing.get(after_id, ("", 0))[1]),
                f"{gap_id} is missing" + (f" between {prev_id} and {after_id}" if prev_id
                                          else f" before {after_id}")))
    # order
    prev: _Raw | None = None
    for r in live:
        if prev is not None and _key(r.id) < _key(prev.id):
            findings.append(Finding(
                "out-of-order", r.id, source, r.line,
                f"{r.id} follows {prev.id} (line {prev.line}) in the text"))
        prev = r


# --------------------------------------------------------------------------
# rb7: 7th-edition rulebook, chapter 2

_RB7_ANCHORS: list[tuple[str, str]] = [
    ("bevezetes", "Reméljük, sikerült megérteni"),
    ("lapok-kijatszasa", "Egy lap kijátszásának nevezzük"),
    ("idezesi-koltseg", "Minden kártyának van egy ún."),
    ("lenyek", "A játék során kijátszott lények"),
    ("galetkik", "A lények közé tartoznak"),
    ("varazslatok", "A varázslatoknak három"),
    ("epitmenyek", "Az építmények kijátszásához"),
    ("targyak", "A tárgyak kijátszásához"),
    ("szakertelmek", "A játékosnak alapállapotban"),
    ("testreszek", "A testrészek játékban maradó"),
    ("lenyek-szovegei", "A lény kártyákon szerepelő"),
    ("allandoan-mukodo-kepessegek", "Az állandóan működő képesség"),
    ("aktivalast-kivano-kepessegek", "Azok az aktiválást kívánó"),
    ("kozos-kepesseg-lapszoveg", "Ha egy lapon ezt a szöveget"),
    ("hegymelyi-lenyek", "A hegymélyi lényeket"),
    ("kijatszasi-sorrend", "A játék során előfordulhat"),
]
_RB7_PHASE_RE = re.compile(r"^\d+\.\s+(?:és\s+\d+\.\s+)?[A-ZÁÉÍÓÖŐÚÜŰ][^.]{0,38}$")
_RB7_SUBPHASE_RE = re.compile(r"^(VII|VI|V|IV|III|II|I)\.\s+(.*)$")
_RB7_TERM_RE = re.compile(r"^-\s+([A-ZÁÉÍÓÖŐÚÜŰ].{0,58})$")
_RB7_ITEM_RE = re.compile(r"^-\s+([A-ZÁÉÍÓÖŐÚÜŰ][^.]*?)\.\s+(\S.*)$")
_ABBREVIATIONS = {"stb", "pl", "ill", "ld", "vö", "ún"}
_SENTENCE_SPLIT_RE = re.compile(r"^(.*?[^.\s])\.\s+(?=[A-ZÁÉÍÓÖŐÚÜŰ(\"„])(.*)$")


def _rb7_is_chrome(s: str, lineno: int) -> bool:
    return (lineno == 1 and "szabálykönyv" in s) or s.startswith("|") \
        or s.startswith("Létrehozás:") or ("Fejezet - " in s and "|" in s)


def _rb7_is_term(s: str) -> str | None:
    m = _RB7_TERM_RE.match(s)
    if not m:
        return None
    term = m.group(1).strip()
    if term.endswith((".", ":")) or ". " in term:
        return None
    return term


def _parse_rb7(path: Path, findings: list[Finding]) -> list[Clause]:
    source = path.name
    lines = path.read_text(encoding="utf-8").split("\n")

    @dataclass
    class Entry:
        slug: str
        title: str | None
        line: int
        paras: list[str] = field(default_factory=list)

    entries: list[Entry] = []
    anchors_found: set[str] = set()
    group: Entry | None = None      # where unheaded paragraphs go
    last_item: Entry | None = None  # ability item just seen (for nested lists)
    in_glossary = False

    def new(slug: str, title: str | None, line: int) -> Entry:
        e = Entry(slug, title, line)
        entries.append(e)
        return e

    for lineno, raw_line in enumerate(lines, 1):
        s = raw_line.strip()
        if not s or _rb7_is_chrome(s, lineno):
            continue
        term = _rb7_is_term(s)
        if term is not None:
            in_glossary = True
            group, last_item = new(slugify(term), term, lineno), None
            continue
        if in_glossary:
            if group is None:  # pragma: no cover - glossary always opens with a term
                continue
            group.paras.append(s)
            continue
        if _RB7_PHASE_RE.match(s):
            group, last_item = new(slugify(s), s, lineno), None
            continue
        m = _RB7_SUBPHASE_RE.match(s)
        if m:
            numeral, rest = m.group(1), m.group(2)
            title = None
            hm = _SENTENCE_SPLIT_RE.match(rest)
            if hm and 2 <= len(hm.group(1).split()) <= 5:
                title, rest = hm.group(1), hm.group(2)
            group = new(f"harci-fazis.{numeral}", title, lineno)
            group.paras.append(rest)
            last_item = None
            continue
        anchor = next((slug for slug, start in _RB7_ANCHORS if s.startswith(start)), None)
        if anchor is not None:
            anchors_found.add(anchor)
            group = new(anchor, None, lineno)
            group.paras.append(s)
            last_item = None
            continue
        m = _RB7_ITEM_RE.match(s)
        if m and len(m.group(1).split()) <= 5:
            term = m.group(1)
            if term.split()[-1] in _ABBREVIATIONS:  # "… savra stb." keeps its dot
                term += "."
            item = new(slugify(term), term, lineno)
            item.paras.append(m.group(2))
            last_item = item
            continue
        if last_item is not None and s.endswith(":"):
            group = last_item  # the item owns a nested list
        last_item = None
        if group is None:
            findings.append(Finding("ignored-text", "", source, lineno,
                                    f"rb7 paragraph outside any entry: {s[:60]!r}"))
            continue
        group.paras.append(s)

    for slug, start in _RB7_ANCHORS:
        if slug not in anchors_found:
            findings.append(Finding("missing-anchor", f"rb7:{slug}", source, 0,
                                    f"no paragraph starts with {start!r}"))

    clauses: list[Clause] = []
    seen: dict[str, Entry] = {}
    for e in entries:
        cid = f"rb7:{e.slug}"
        if cid in seen:
            n = 2
            while f"{cid}-{n}" in seen:
                n += 1
            findings.append(Finding(
                "duplicate", cid, source, e.line,
                f"slug {e.slug!r} (line {e.line}) already used at line {seen[cid].line}; "
                f"this entry is {cid}-{n}"))
            cid = f"{cid}-{n}"
        seen[cid] = e
        text = "\n".join(e.paras)
        clauses.append(Clause(
            id=cid, title=e.title, text=text, section="rb7",
            section_title=RB7_SECTION_TITLE, part="rb7", source=source,
            source_id=source_id(source), line=e.line,
            sha256=_sha256(text), supplement=False, kind="rb7"))
    return clauses


# --------------------------------------------------------------------------
# mk: M.A.G.U.S. card game rules 5.00

_MK_TOP_RE = re.compile(r"^(\d+\.\d\d)\.\s+(.*)$")
_MK_SUBSUB_RE = re.compile(r"^•\s*([A-Z])\./\s*(\d+)\.\s+(.*)$")
_MK_LETTER_RE = re.compile(r"^•\s*([A-Z])\./\s*(.*)$")
_MK_CHROME = ("Eszközök az oldalon",)


def _parse_mk(path: Path, findings: list[Finding]) -> list[Clause]:
    source = path.name
    lines = path.read_text(encoding="utf-8").split("\n")

    @dataclass
    class Point:
        id: str
        title: str | None
        line: int
        top: str
        paras: list[str] = field(default_factory=list)
        duplicate: bool = False

    points: list[Point] = []
    by_id: dict[str, Point] = {}
    top: Point | None = None
    letter: Point | None = None
    cur: Point | None = None

    def add(p: Point) -> Point:
        if p.id in by_id:
            p.duplicate = True
            findings.append(Finding(
                "duplicate", p.id, source, p.line,
                f"{p.id} appears again at line {p.line} (first at line {by_id[p.id].line}); "
                f"the first is kept"))
        else:
            by_id[p.id] = p
        points.append(p)
        return p

    for lineno, raw_line in enumerate(lines, 1):
        s = raw_line.strip()
        if not s:
            continue
        m = _MK_TOP_RE.match(s)
        if m:
            top = cur = add(Point(f"mk:{m.group(1)}", m.group(2).rstrip(":").strip() or None,
                                  lineno, f"mk:{m.group(1)}"))
            letter = None
            continue
        if top is None:
            if not s.startswith(_MK_CHROME):
                findings.append(Finding("ignored-text", "", source, lineno,
                                        f"text before the first point: {s[:60]!r}"))
            continue
        m = _MK_SUBSUB_RE.match(s)
        if m:
            let, num, rest = m.groups()
            if letter is None or not letter.id.endswith("." + let):
                findings.append(Finding(
                    "orphan", f"{top.id}.{let}.{num}", source, lineno,
                    f"{let}./{num}. is not under a {let}./ point"))
            cur = add(Point(f"{top.id}.{let}.{num}", None, lineno, top.id, [rest]))
            continue
        m = _MK_LETTER_RE.match(s)
        if m:
            let, rest = m.groups()
            letter = cur = add(Point(f"{top.id}.{let}", None, lineno, top.id, [rest]))
            continue
        if s.startswith(_MK_CHROME):
            continue
        cur.paras.append(s)

    live = [p for p in points if not p.duplicate]
    titles = {p.id: p.title or "" for p in live if p.id == p.top}

    # empty points, gaps
    for p in live:
        has_children = any(Catalog.is_descendant(q.id, p.id) for q in live)
        if not p.paras and not has_children:
            same = [q.id for q in live if q is not p and q.title and q.title == p.title]
            findings.append(Finding(
                "empty-clause", p.id, source, p.line,
                f"{p.id} has neither text nor sub-points"
                + (f"; its heading repeats {same[0]}" if same else "")))
    groups: dict[str, list[tuple[str, Point]]] = {}
    for p in live:
        prefix, parts = _dotted(p.id)
        groups.setdefault(prefix + ".".join(parts[:-1]), []).append((parts[-1], p))
    for parent, kids in groups.items():
        def ordinal(c: str) -> int:
            return int(c.split(".")[-1]) if c[0].isdigit() else ord(c) - ord("A") + 1
        nums = sorted({ordinal(c) for c, _ in kids})
        have = set(nums)
        for n in range(nums[0], nums[-1]):
            if n not in have:
                findings.append(Finding("gap", f"{parent}.{n}", source, 0,
                                        f"numbering under {parent or 'mk'} skips {n}"))
        prev_o = None
        for c, p in kids:
            o = ordinal(c)
            if prev_o is not None and o < prev_o:
                findings.append(Finding("out-of-order", p.id, source, p.line,
                                        f"{p.id} comes after a later sibling"))
            prev_o = o

    clauses = []
    for p in live:
        text = "\n".join(p.paras)
        clauses.append(Clause(
            id=p.id, title=p.title, text=text, section=p.top,
            section_title=titles.get(p.top, ""), part="mk", source=source,
            source_id=source_id(source),
            line=p.line, sha256=_sha256(text), supplement=False, kind="mk"))
    return clauses


# --------------------------------------------------------------------------
# loading


def _detect(path: Path) -> str | None:
    try:
        head = [ln.strip() for ln in path.read_text(encoding="utf-8").split("\n")[:12]]
    except (UnicodeDecodeError, OSError):
        return None
    for ln in head:
        m = _PART_HEADER_RE.match(ln)
        if m:
            return m.group(1)
    nonempty = [ln for ln in head if ln]
    if nonempty and "7. kiadás szabálykönyv" in nonempty[0]:
        return "rb7"
    if nonempty and _MK_TOP_RE.match(nonempty[0]):
        return "mk"
    return _KNOWN_FILES.get(path.name)


def detect_part(path: Path) -> str | None:
    """The kind of a text by its content: a Kódex part (``II``, ``VI`` …), ``rb7``, ``mk``; the
    vendored file names as a fallback; None for a file of no known kind."""
    return _detect(Path(path))


def _order(part: str) -> tuple[int, int]:
    if part == "rb7":
        return (1, 0)
    if part == "mk":
        return (2, 0)
    return (0, _roman(part))


_LOOKALIKES = {"õ": "ő", "û": "ű", "ô": "ő", "Õ": "Ő", "Û": "Ű", "Ô": "Ő"}


def _text_findings(clauses: list[Clause], findings: list[Finding]) -> None:
    seen: dict[tuple[str, str], Clause] = {}
    for c in clauses:
        odd = sorted({ch for ch in (c.title or "") + c.text if ch in _LOOKALIKES})
        if odd:
            findings.append(Finding(
                "lookalike-letter", c.id, c.source, c.line,
                f"{c.id} spells " + ", ".join(f"{ch!r} for {_LOOKALIKES[ch]!r}" for ch in odd)
                + " (legacy-encoding substitute); text left as is"))
        if not c.text.strip():
            continue
        k = (c.part, c.sha256)
        if k in seen:
            o = seen[k]
            findings.append(Finding(
                "same-text", c.id, c.source, c.line,
                f"{c.id} has the same text as {o.id} (line {o.line})"))
        else:
            seen[k] = c


def _build(directory: Path) -> Catalog:
    findings: list[Finding] = []
    sources: list[tuple[str, Path]] = []
    for path in sorted(directory.glob("*.txt")):
        part = _detect(path)
        if part is None:
            findings.append(Finding("unrecognized-source", "", path.name, 0,
                                    "file of no known kind; skipped"))
            continue
        sources.append((part, path))
    sources.sort(key=lambda t: _order(t[0]))

    all_clauses: list[Clause] = []
    for part, path in sources:
        found: list[Finding] = []
        if part == "rb7":
            cs = _parse_rb7(path, found)
        elif part == "mk":
            cs = _parse_mk(path, found)
        else:
            cs = _parse_kodex(path, part, found)
        _text_findings(cs, found)
        findings.extend(sorted(found, key=lambda f: f.line))
        all_clauses.extend(cs)

    clauses: dict[str, Clause] = {}
    for c in all_clauses:
        if c.id in clauses:
            o = clauses[c.id]
            findings.append(Finding(
                "duplicate", c.id, c.source, c.line,
                f"{c.id} also defined in {o.source} line {o.line}; the first is kept"))
            continue
        clauses[c.id] = c
    return Catalog(clauses, findings)


@functools.lru_cache(maxsize=None)
def _load_cached(directory: str) -> Catalog:
    return _build(Path(directory))


class TextsDirError(ValueError):
    """``$KODEX_TEXTS_DIR`` names no directory of texts."""


def texts_dir() -> Path:
    """The directory :func:`load_catalog` reads by default: ``$KODEX_TEXTS_DIR`` when set, else
    :data:`KODEX_DIR` (module docstring, "Which texts are read")."""
    value = os.environ.get(TEXTS_ENV, "")
    if not value:
        return KODEX_DIR
    d = Path(value)
    if not d.is_dir():
        raise TextsDirError(f"{TEXTS_ENV}={value}: not a directory")
    if not any(p.is_file() for p in d.glob("*.txt")):
        raise TextsDirError(f"{TEXTS_ENV}={value}: no *.txt file in the directory")
    return d


def load_catalog(directory: Path | str | None = None) -> Catalog:
    """Load (and cache) the catalog of ``directory`` (default: :func:`texts_dir`)."""
    d = Path(directory) if directory is not None else texts_dir()
    return _load_cached(str(d.resolve()))


def _main(argv: list[str]) -> int:
    paths = [a for a in argv if not a.startswith("-")]
    cat = load_catalog(Path(paths[0]) if paths else None)
    from collections import Counter
    parts = Counter(c.part for c in cat)
    print("clauses:", len(cat), dict(parts))
    print("findings:", dict(Counter(f.kind for f in cat.findings)))
    if "-v" in argv or "--findings" in argv:
        for f in cat.findings:
            print(f"  {f.kind:22} {f.clause:14} {f.source}:{f.line}  {f.message}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(_main(sys.argv[1:]))
