"""The clause parser (conformance/catalog.py) on small fixture texts in the exact layout of each
vendored source (tests/fixtures/kodex/): a Kódex part II excerpt (under the vendored file name),
a part VI excerpt, a rulebook chapter 2 excerpt and an M.A.G.U.S. rules excerpt, with one
instance of each quirk the parser reports. Line numbers are looked up in the fixtures by their
text, never written down, so a fixture can grow."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import catalog_invariants as inv
from conformance.catalog import (
    KODEX_DIR,
    RB7_SECTION_TITLE,
    TEXTS_ENV,
    VENDORED,
    Catalog,
    TextsDirError,
    detect_part,
    load_catalog,
    source_id,
    texts_dir,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "kodex"
II = "kodex-part-II.txt"             # the vendored name: the seed's source id
VI = "part-VI-excerpt.txt"           # recognised by its "VI. rész" header
RB7 = "rulebook-excerpt.txt"         # by "7. kiadás szabálykönyv" on its first line
MK = "magus-excerpt.txt"             # by its first line, a point "5.00. …"
SECTION_II = {"3": "A játék célja és lényege", "4": "Alapfogalmak, alapdefiníciók",
              "5": "Játéktér"}


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(FIXTURES)


def line_of(source: str, start: str, nth: int = 1) -> int:
    """The number of the ``nth`` line of fixture ``source`` that starts with ``start`` (spaces
    and NO-BREAK SPACEs at its ends ignored)."""
    hits = [n for n, line in enumerate(inv.lines_of(FIXTURES, source), 1)
            if line.strip(" \u00a0").startswith(start)]
    assert len(hits) >= nth, f"{source}: no line {nth} starting with {start!r}"
    return hits[nth - 1]


def numbered(source: str, cid: str, nth: int = 1) -> int:
    """The number of the ``nth`` line of Kódex fixture ``source`` numbered ``cid``."""
    hits = [n for n, line in enumerate(inv.lines_of(FIXTURES, source), 1)
            if (m := inv.KODEX_NUMBER.match(line)) and m.group(1) == cid]
    assert len(hits) >= nth, f"{source}: no line {nth} numbered {cid}"
    return hits[nth - 1]


def found(cat: Catalog, kind: str) -> list[tuple[str, str, int]]:
    return [(f.clause, f.source, f.line) for f in cat.findings if f.kind == kind]


# ------------------------------------------------------------------ the whole

def test_every_invariant_holds_on_the_fixtures(cat):
    assert inv.all_problems(cat, FIXTURES) == []


def test_ids_in_document_order(cat):
    assert cat.ids() == [
        "3", "3.1", "3.2", "3.3", "4", "4.0", "4.1", "4.1.1", "4.1.2", "4.2", "4.2.1", "4.2.3",
        "4.3.2", "4.4", "5", "5.1", "5.1.1", "5.1.2", "5.1.3", "5.2", "5.3",
        "96", "96.0", "96.1", "96.1.1", "96.2", "97.0", "98", "99", "99.0", "99.2",
        "100", "100.2.1", "100.1", "100.2", "100.3",
        "rb7:bevezetes", "rb7:lapok-kijatszasa", "rb7:idezesi-koltseg", "rb7:elokeszito-fazis",
        "rb7:fo-fazis", "rb7:harci-fazis", "rb7:lenyek", "rb7:harci-fazis.I",
        "rb7:harci-fazis.II", "rb7:allandoan-mukodo-kepessegek", "rb7:immunitas-tuzre-savra-stb",
        "rb7:aktivalast-kivano-kepessegek", "rb7:harci-kepessegek", "rb7:direkt-sebzo-kepesseg",
        "rb7:anti-magia", "rb7:ep-felaldozasa", "rb7:blokkolas",
        "rb7:lapok-szine-klanja-kapcsolat-a-hkk-istenekkel", "rb7:anti-magia-2",
        "mk:5.00", "mk:5.01", "mk:5.01.A", "mk:5.01.B", "mk:5.01.C", "mk:5.02", "mk:5.02.A",
        "mk:5.02.B", "mk:5.02.B.1", "mk:5.02.B.2", "mk:5.02.C.1", "mk:5.03", "mk:5.03.A",
        "mk:5.03.B",
    ]
    assert {c.source for c in cat} == {II, VI, RB7, MK}


def test_source_ids(cat):
    """A text under a vendored file name keeps the seed's name as its source id; any other
    file is its own."""
    assert {c.source_id for c in cat if c.source == II} == {VENDORED[II][1]}
    for name in (VI, RB7, MK):
        assert {c.source_id for c in cat if c.source == name} == {name}
    assert source_id(II) == "002_e1a284984842c9db.txt" and source_id("x.txt") == "x.txt"


def test_kinds_are_told_by_content_then_by_name(tmp_path):
    assert [detect_part(FIXTURES / n) for n in (II, VI, RB7, MK)] == ["II", "VI", "rb7", "mk"]
    plain = "Semmi különös.\n"
    (tmp_path / "kodex-part-VI.txt").write_text(plain, encoding="utf-8")
    (tmp_path / "notes.txt").write_text(plain, encoding="utf-8")
    (tmp_path / "latin1.txt").write_bytes("Tartalomjegyzék".encode("latin-1"))
    assert detect_part(tmp_path / "kodex-part-VI.txt") == "VI"       # by the vendored name
    assert detect_part(tmp_path / "notes.txt") is None
    assert detect_part(tmp_path / "latin1.txt") is None               # not UTF-8
    part = tmp_path / "renamed-part.txt"
    shutil.copy(FIXTURES / VI, part)
    assert detect_part(part) == "VI"                                  # by its header


# --------------------------------------------------------------------- Kódex

@pytest.mark.parametrize("cid, kind, title, text", [
    ("3", "title", "A játék célja és lényege", ""),
    ("3.1", "clause", None, "A játék célja a HKK-ban: győzelmet aratni az ellenfél felett."),
    ("3.3", "clause", None, ""),                              # a point with no text
    ("4.0", "clause", None,
     "Egyes részletszabályok adhatnak olyan utasítást, amely eltér az alapszabályoktól."),
    ("4.1.2", "clause", None, "Az ellenfél mindig a másik játékos.\n"
     "Ha a játékosok csapatban játszanak, az ellenfél a másik csapat bármely tagja."),
    ("4.4", "clause", "Nem lehet lapot előkeresni.", "A pakliból csak húzni lehet."),
    ("5.1", "clause", "Tartalék", ""),
    ("96.1", "clause", "Tóken",
     "Azokat a lapokat, amelyek különleges méretű illusztrációval készültek, tókennek nevezzük."),
    ("99.0", "clause", "Nem lehet rá (valamivel) reagálni",
     "ez a képesség azt jelenti, hogy a lap kijátszására nem lehet reagálni."),
    ("100.2", "clause", "Büntetés: [veszteség]",
     "Ha a büntetéssel rendelkező lap kikerül a játékból, a gazdája veszít."),
])
def test_kodex_points(cat, cid, kind, title, text):
    c = cat[cid]
    assert (c.kind, c.title, c.text) == (kind, title, text)
    source = II if c.part == "II" else VI
    assert (c.source, c.line) == (source, numbered(source, cid))
    assert c.section == cid.split(".")[0]


def test_sections_and_their_titles(cat):
    for cid in ("3", "3.2", "4", "4.1.1", "5", "5.2"):
        assert (cat[cid].section, cat[cid].section_title) == (cid[0], SECTION_II[cid[0]])
    assert cat.sections()[:3] == [(s, t, "II") for s, t in SECTION_II.items()]
    assert [c.id for c in cat.in_section("99")] == ["99", "99.0", "99.2"]
    # title 97 never appears: its section is titled by its first point
    assert (cat["97.0"].section, cat["97.0"].section_title) == ("97", "Késleltetett erőforrás")
    assert "97" not in cat


def test_a_title_line_with_text_is_split(cat):
    c = cat["98"]
    assert (c.kind, c.title) == ("title", "Életjelző")
    assert c.text == "Az életjelzőre vonatkozó szabályok az Élet alatt találhatók meg."
    assert found(cat, "text-on-number-line") == [("98", VI, numbered(VI, "98"))]


def test_a_lone_short_paragraph_heading_sub_points_is_the_title(cat):
    assert (cat["4.1"].title, cat["4.1"].text) == ("Játékos, ellenfél", "")
    assert found(cat, "heading-in-text") == [("4.1", II, line_of(II, "Játékos, ellenfél"))]
    # such a paragraph with no sub-points after it stays text
    assert (cat["5.3"].title, cat["5.3"].text) == (None, "Őrposzt mérete")


def test_leading_dot_or_colon_is_stripped(cat):
    assert cat["4.2"].text == "A játék elején felhúzott lapokat kezdőkéznek nevezzük."
    assert cat["100.1"].text.startswith("ha egy mérgezés")
    assert found(cat, "leading-dot") == [("4.2", II, line_of(II, ". A játék elején")),
                                         ("100.1", VI, line_of(VI, ": ha egy mérgezés"))]


def test_a_number_repeated_in_the_text_is_stripped(cat):
    c = cat["96.2"]
    assert c.line == numbered(VI, "96.2")
    assert c.text == ("Amennyiben egy játékos ellop egy tókent létrehozó lapot, csak bemutatható "
                      "tókent hozhat létre vele.\n"
                      "Ha a termelt lap tóken, akkor csak olyat termelhet vele, amit be is tud "
                      "mutatni.")
    assert found(cat, "id-repeated-in-text") == [("96.2", VI, numbered(VI, "96.2", 2))]


def test_supplement_marks(cat):
    supplemented = [c.id for c in cat if c.supplement]
    assert supplemented == ["3.2", "4", "96.0", "99.0"]
    assert found(cat, "repeated-supplement") == [("99.0", VI, line_of(VI, "[Kiegészítés]", 3))]
    assert not any("Kiegészítés" in c.text for c in cat)


def test_duplicates_keep_the_first(cat):
    assert cat["5.1.2"].line == numbered(II, "5.1.2")
    assert cat["5.1.3"].text == "A tartalék mérete nincs korlátozva."
    # the repeated block leaks into no clause
    assert cat["5.2"].text == "Egy lap gazdája az a játékos, akinek a térfelén a lap elhelyezkedik."
    dups = {f.clause: f for f in cat.findings if f.kind == "duplicate" and f.source == II}
    assert sorted(dups) == ["5.1.2", "5.1.3"]
    assert dups["5.1.2"].line == numbered(II, "5.1.2", 2)
    assert dups["5.1.3"].line == numbered(II, "5.1.3", 2)
    assert "identical text" in dups["5.1.2"].message and "different text" in dups["5.1.3"].message


def test_numbering_findings(cat):
    # among sub-points a gap counts from 1 (4.3.1), among titles from the lowest
    assert found(cat, "gap") == [("4.2.2", II, numbered(II, "4.2.3")),
                                 ("4.3.1", II, numbered(II, "4.3.2")),
                                 ("99.1", VI, numbered(VI, "99.2"))]
    assert found(cat, "missing-parent") == [("4.3", II, numbered(II, "4.3.2")),
                                            ("97", VI, numbered(VI, "97.0"))]
    assert found(cat, "out-of-order") == [("100.1", VI, numbered(VI, "100.1"))]
    assert found(cat, "same-text") == [("100.3", VI, numbered(VI, "100.3"))]
    assert cat.ancestors("4.3.2") == ["4"] and cat.ancestors("100.2.1") == ["100.2", "100"]


def test_lookalike_letters_are_reported_and_left(cat):
    assert "kezdőkézbõl" in cat["4.2.1"].text
    assert [(c, s) for c, s, _ in found(cat, "lookalike-letter")] == [("4.2.1", II),
                                                                      ("rb7:blokkolas", RB7)]


def test_page_chrome_is_no_clause_and_no_text(cat):
    assert not any("Tartalomjegyzék" in c.text or "rész -" in c.text or "Eszközök" in c.text
                   or "Létrehozás" in c.text or "Fejezet -" in c.text for c in cat)
    assert found(cat, "ignored-text") == [] and found(cat, "unrecognized-source") == []


# ----------------------------------------------------------------------- rb7

@pytest.mark.parametrize("cid, title, first, at", [
    # introductory groups, known by their opening words; no title
    ("rb7:bevezetes", None, "Reméljük, sikerült megérteni", "Reméljük"),
    ("rb7:idezesi-koltseg", None, "Minden kártyának van egy ún.", "Minden kártyának"),
    # phase headings: list numbers dropped from the slug, the heading as written is the title
    ("rb7:elokeszito-fazis", "1. Előkészítő Fázis", "- A játékos az első körében", "1. "),
    ("rb7:fo-fazis", "3. és 6. Fő fázis", "Ilyenkor az a játékos", "3. és 6."),
    ("rb7:harci-fazis", "5. Harci fázis", "A csere fázis után", "5. "),
    # combat sub-phases: a title only where the line gives one
    ("rb7:harci-fazis.I", None, "A támadó bejelenti", "I. "),
    ("rb7:harci-fazis.II", "Támadás kijelölése", "A támadó kijelöli", "II. "),
    # ability items: the term is the title, the rest of the line the text; "stb." keeps its dot
    ("rb7:immunitas-tuzre-savra-stb", "Immunitás tűzre, savra stb.", "A lényt az adott",
     "- Immunitás"),
    ("rb7:harci-kepessegek", "Harci képességek", "A harci képességeket ikon jelöli.", "- Harci"),
    # glossary entries: a short "- Term" line; accents and capitals folded in the slug
    ("rb7:anti-magia", "Anti-mágia", "Ha egy lapra írva azt látod", "- Anti-mágia"),
    ("rb7:ep-felaldozasa", "ÉP feláldozása", "Bizonyos hatások feltétele", "- ÉP"),
    ("rb7:lapok-szine-klanja-kapcsolat-a-hkk-istenekkel",
     "Lapok színe (klánja), kapcsolat a HKK istenekkel", "Minden lap valamelyik klánhoz", "- Lapok"),
])
def test_rb7_entries(cat, cid, title, first, at):
    c = cat[cid]
    assert (c.title, c.kind, c.part, c.section, c.section_title, c.source) == (
        title, "rb7", "rb7", "rb7", RB7_SECTION_TITLE, RB7)
    assert c.text.startswith(first)
    assert c.line == line_of(RB7, at)


def test_rb7_slugs(cat):
    """List numbers dropped, accents folded (capitals too), anything else a hyphen."""
    assert {"rb7:fo-fazis", "rb7:elokeszito-fazis", "rb7:ep-felaldozasa",
            "rb7:lapok-szine-klanja-kapcsolat-a-hkk-istenekkel"} <= set(cat.ids())
    slug = re.compile(r"rb7:[a-z0-9]+(-[a-z0-9]+)*(\.[IVX]+)?")
    assert all(slug.fullmatch(cid) for cid in cat.ids("rb7"))


def test_rb7_paragraphs_go_to_their_entry(cat):
    def last(cid: str) -> str:
        return cat[cid].text.split("\n")[-1]
    assert last("rb7:idezesi-koltseg") == "Varázspontot minden köröd elején kapsz."
    assert last("rb7:elokeszito-fazis").startswith("Soha, semmilyen")
    assert last("rb7:harci-fazis.II") == "Egy ellenséges lényre maximum két lénnyel támadhatsz."
    # an unheaded bullet after an ability item goes back to the enclosing group …
    assert cat["rb7:allandoan-mukodo-kepessegek"].text.split("\n") == [
        'Az állandóan működő képesség a lény "beépített tulajdonsága", bejelentés nélkül működik.',
        "Ilyenek:",
        "- Lények egy csoportjának (általában csak a te oldaladon levőknek) plusz sebzés adása."]
    # … unless the item is followed by a paragraph ending in ":" — it owns the nested list
    assert cat["rb7:harci-kepessegek"].text.split("\n") == [
        "A harci képességeket ikon jelöli.", "Ezen belül lehetnek:",
        "- Minden egyéb képesség, melyet a ikon jelöl."]
    assert cat["rb7:direkt-sebzo-kepesseg"].text == \
        "Mindig található előtte egy szám, pl. 3-as tűzlehelet."
    # the clan list stays in its glossary entry
    assert cat["rb7:lapok-szine-klanja-kapcsolat-a-hkk-istenekkel"].text.endswith(
        "#10. Halhatatlanok.\n#18. Bárdok.")


def test_rb7_duplicate_slug_gets_a_number(cat):
    assert cat["rb7:anti-magia"].text.startswith("Ha egy lapra")
    assert cat["rb7:anti-magia-2"].text == "Egy második Anti-mágia bekezdés, más szöveggel."
    assert ("rb7:anti-magia", RB7, line_of(RB7, "- Anti-mágia", 2)) in found(cat, "duplicate")
    assert cat["rb7:anti-magia-2"].line == line_of(RB7, "- Anti-mágia", 2)


def test_rb7_missing_anchors_are_reported(cat):
    assert found(cat, "missing-anchor") == [(f"rb7:{slug}", RB7, 0) for slug in (
        "galetkik", "varazslatok", "epitmenyek", "targyak", "szakertelmek", "testreszek",
        "lenyek-szovegei", "kozos-kepesseg-lapszoveg", "hegymelyi-lenyek", "kijatszasi-sorrend")]
    assert {"rb7:bevezetes", "rb7:lenyek", "rb7:aktivalast-kivano-kepessegek"} <= set(cat.ids())


def test_rb7_paragraph_before_any_entry_is_reported(tmp_path):
    """… but not the title line, even without its navigation links."""
    lines = inv.lines_of(FIXTURES, RB7)
    title = lines[0].split("|")[0]
    assert "7. kiadás szabálykönyv" in title and "Fejezet - " not in title
    text = "\n".join([title, "Egy bekezdés, amely semmilyen bejegyzéshez nem tartozik.",
                      *lines[1:]])
    (tmp_path / RB7).write_text(text, encoding="utf-8")
    cat = load_catalog(tmp_path)
    assert found(cat, "ignored-text") == [("", RB7, 2)]
    assert cat["rb7:bevezetes"].line == 3


# ------------------------------------------------------------------------ mk

@pytest.mark.parametrize("cid, title, text, marker", [
    ("mk:5.01", "Lap leidézése és képesség/laphatás aktivizálás",
     "Egy lap leidézése Kézből történik.", "5.01. "),
    ("mk:5.01.A", None, "Leidézett lap megmutatása: A játékos kiválasztja a lapot, melyet le akar "
     "idézni.", "• A./"),
    ("mk:5.02.B.1", None, "Folyamatosan működő: Egy képesség akkor folyamatosan működő, ha a "
     "Jelenben működik.", "• B./1."),
    ("mk:5.03", "Hatás, Helyettesítő hatás", "", "5.03. "),
])
def test_mk_points(cat, cid, title, text, marker):
    c = cat[cid]
    assert (c.title, c.text, c.kind, c.part, c.source) == (title, text, "mk", "mk", MK)
    assert c.line == line_of(MK, marker)
    assert c.section == cid[:7] and c.section_title == cat[cid[:7]].title


def test_mk_unlettered_bullets_and_examples_belong_to_the_latest_point(cat):
    assert cat["mk:5.01.B"].text.split("\n")[1] == \
        "• Minden lapnak adott az MP-értéke (jobb felső sarokban található szám)."
    assert cat["mk:5.02.C.1"].text.endswith("• Példa: Ekkor a vért nem érvényesül.")
    assert cat.ancestors("mk:5.02.B.2") == ["mk:5.02.B", "mk:5.02"]


def test_mk_findings(cat):
    (empty,) = [f for f in cat.findings if f.kind == "empty-clause"]
    assert (empty.clause, empty.line) == ("mk:5.00", 1) and "repeats mk:5.01" in empty.message
    assert cat["mk:5.00"].text == ""
    assert found(cat, "orphan") == [("mk:5.02.C.1", MK, line_of(MK, "• C./1."))]
    assert ("mk:5.03.A", MK, line_of(MK, "• A./ Ismételt")) in found(cat, "duplicate")
    assert cat["mk:5.03.A"].line == line_of(MK, "• A./ Helyettesítőnek")


def test_mk_text_before_the_first_point_is_reported(tmp_path):
    """Known as the mk rules by its vendored name alone (its first line is no point)."""
    name = "magus-card-game-rules-5.00.txt"
    text = "Előszó a szabályokhoz.\nEszközök az oldalon\n" + \
        (FIXTURES / MK).read_text(encoding="utf-8")
    (tmp_path / name).write_text(text, encoding="utf-8")
    assert detect_part(tmp_path / name) == "mk"
    cat = load_catalog(tmp_path)
    assert found(cat, "ignored-text") == [("", name, 1)]              # the chrome line is not
    assert cat.ids() == load_catalog(FIXTURES).ids("mk") and cat["mk:5.00"].line == 3


# ------------------------------------------------------------- several texts

def test_the_same_id_in_two_texts_keeps_the_first(tmp_path):
    """Texts of one kind are read in the order of their names; a clause already read is kept."""
    shutil.copy(FIXTURES / VI, tmp_path / VI)
    shutil.copy(FIXTURES / VI, tmp_path / "part-VI-z-copy.txt")
    cat = load_catalog(tmp_path)
    assert {c.source for c in cat} == {VI}
    again = [f for f in cat.findings if f.kind == "duplicate"]
    assert [(f.clause, f.source, f.line) for f in again] == [
        (c.id, "part-VI-z-copy.txt", c.line) for c in cat]
    assert f"96 also defined in {VI} line {cat['96'].line}" in again[0].message


def test_unknown_texts_and_stray_text_are_reported(tmp_path):
    (tmp_path / "notes.txt").write_text("Ez csak egy jegyzet.\n", encoding="utf-8")
    ii = (FIXTURES / II).read_text(encoding="utf-8")
    (tmp_path / II).write_text(ii.replace("II. rész - A játék ismertetése",
                                          "II. rész - A játék ismertetése\n\n[Kiegészítés]\n\n"
                                          "Bevezető mondat.", 1), encoding="utf-8")
    cat = load_catalog(tmp_path)
    assert found(cat, "unrecognized-source") == [("", "notes.txt", 0)]
    stray = [(f.line, f.message) for f in cat.findings if f.kind == "ignored-text"]
    assert [line for line, _ in stray] == [5, 7]
    assert "[Kiegészítés] before any clause" in stray[0][1] and "Bevezető" in stray[1][1]
    assert cat.ids() == load_catalog(FIXTURES).ids("II")


# ------------------------------------------------------- which texts are read

def test_the_texts_dir_variable_points_load_catalog_at_a_copy(monkeypatch):
    monkeypatch.delenv(TEXTS_ENV, raising=False)
    default = load_catalog()
    assert texts_dir() == KODEX_DIR
    monkeypatch.setenv(TEXTS_ENV, str(FIXTURES))
    assert texts_dir() == FIXTURES
    assert load_catalog() is load_catalog(FIXTURES) and "rb7:anti-magia-2" in load_catalog()
    monkeypatch.setenv(TEXTS_ENV, "")
    assert texts_dir() == KODEX_DIR
    monkeypatch.delenv(TEXTS_ENV)
    assert texts_dir() == KODEX_DIR and load_catalog() is default
    assert "rb7:anti-magia-2" not in default


@pytest.mark.parametrize("make, message", [
    (lambda d: d / "absent", "not a directory"),
    (lambda d: d, "no *.txt file in the directory"),
    (lambda d: (d / "a.txt").write_text("x", encoding="utf-8") and d / "a.txt", "not a directory"),
])
def test_a_texts_dir_that_holds_no_texts_is_refused(tmp_path, monkeypatch, make, message):
    value = str(make(tmp_path))
    monkeypatch.setenv(TEXTS_ENV, value)
    with pytest.raises(TextsDirError) as err:
        load_catalog()
    assert str(err.value) == f"{TEXTS_ENV}={value}: {message}"
