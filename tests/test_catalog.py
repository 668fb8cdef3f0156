"""Facts about the vendored sources, as seen through conformance.catalog."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from conformance.catalog import (
    KODEX_DIR,
    VENDORED,
    Catalog,
    Clause,
    load_catalog,
    normalize,
    slugify,
    to_json,
)

PART_II = "kodex-part-II.txt"
PART_VI = "kodex-part-VI.txt"
RB7 = "rulebook-7th-edition-chapter-2.txt"
MK = "magus-card-game-rules-5.00.txt"


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def findings(cat: Catalog, kind: str, clause: str | None = None):
    return [f for f in cat.findings if f.kind == kind and (clause is None or f.clause == clause)]


# --------------------------------------------------------------------- Kódex

def test_475_distinct_numbered_ids_in_parts_II_and_VI(cat):
    kodex = [c for c in cat if c.part in ("II", "VI")]
    assert len(kodex) == 475
    assert len({c.id for c in kodex}) == 475
    assert sum(c.part == "II" for c in kodex) == 203
    assert sum(c.part == "VI" for c in kodex) == 272


def test_kodex_ids_are_bare_numbers(cat):
    for c in cat:
        if c.part in ("II", "VI"):
            assert all(p.isdigit() for p in c.id.split(".")), c.id
            assert c.kind == ("title" if "." not in c.id else "clause")


@pytest.mark.parametrize("cid, section, part, source, line", [
    ("4.24.3.0", "4", "II", PART_II, 608),
    ("96.3.1", "96", "VI", PART_VI, 25),
    ("134.9.1", "134", "VI", PART_VI, 912),
    ("4.8.4", "4", "II", PART_II, 268),
    ("3", "3", "II", PART_II, 5),
    ("96", "96", "VI", PART_VI, 5),
    ("137.4", "137", "VI", PART_VI, 1047),
])
def test_location(cat, cid, section, part, source, line):
    c = cat.get(cid)
    assert c is not None and cid in cat
    assert (c.section, c.part, c.source, c.line) == (section, part, source, line)


def test_texts(cat):
    assert cat["4.8.4"].text.startswith("A Semmiből semmilyen módon")
    assert cat["4.24.3.0"].text.startswith("Aktiválást kívánó kapcsolódó hatás.")
    assert cat["96.3.1"].text.startswith("A tókeneket akkor is")
    assert cat["3.1"].text.startswith("A játék célja a HKK-ban")
    # two paragraphs joined with a newline
    assert cat["137.4"].text.count("\n") == 1
    assert cat["137.4"].text.endswith("amikor azonnali varázslat is kijátszható lenne.")


def test_titles_and_section_titles(cat):
    assert cat["102"].kind == "title"
    assert cat["102"].title == "Egymással ellentmondó lapok és hatások"
    assert cat["102.3"].section_title == "Egymással ellentmondó lapok és hatások"
    assert cat["4.24.3.0"].section_title == "Alapfogalmak, alapdefiníciók"
    assert cat["4.2"].title == "Pakli"
    assert cat["96.3"].title == "Tóken"
    assert cat["4.13.5"].title == "Nem lehet lapot előkeresni."
    assert cat["4.8.4"].title is None
    assert cat["96"].title == "Előre kikészített lapok"


def test_title_line_with_text(cat):
    c = cat["120"]
    assert c.kind == "title" and c.title == "Életjelző"
    assert c.text.startswith("Az életjelzőre vonatkozó szabályok")
    assert findings(cat, "text-on-number-line", "120")


def test_leading_dot_stripped(cat):
    assert cat["4.4.3"].title == "Kezdőkéz"
    assert cat["4.4.3"].text.startswith("A játék elején")
    f = findings(cat, "leading-dot", "4.4.3")
    assert len(f) == 1 and f[0].line == 165 and f[0].source == PART_II
    assert cat["131.3"].text.startswith("a láthatatlansággal")
    assert findings(cat, "leading-dot", "131.3")
    for c in cat:
        assert not c.text.startswith((". ", ": ")), c.id


def test_id_repeated_in_text(cat):
    for cid, start, line in [("96.5", "Amennyiben", 35), ("114.4", "A késleltetett", 395),
                             ("134.9.1", "Az anti-blokkolásra", 914)]:
        assert cat[cid].text.startswith(start)
        f = findings(cat, "id-repeated-in-text", cid)
        assert len(f) == 1 and f[0].line == line
    assert "96.5." not in cat["96.5"].text
    assert cat["96.5"].line == 33


def test_duplicates_keep_first(cat):
    for cid, first, second in [("5.3.2", 686, 779), ("5.3.3", 690, 783), ("5.3.4", 694, 787)]:
        assert cat[cid].line == first
        f = findings(cat, "duplicate", cid)
        assert len(f) == 1 and f[0].line == second and f[0].source == PART_II
    # the repeated block does not leak into the clause before it
    assert cat["5.6.2"].text.count("\n") == 0
    assert cat["5.3.2"].text == "Ha egy lény gazdát cserél, a tartalékba kerül. Ha aktív volt, aktívan."


def test_supplement(cat):
    assert cat["3.8"].supplement is True
    assert cat["3.7"].supplement is False
    assert cat["4"].supplement is True
    assert cat["132.14"].supplement is True
    assert findings(cat, "repeated-supplement", "132.14")
    for c in cat:
        assert "[Kiegészítés]" not in c.text


def test_page_headers_are_not_clauses(cat):
    for c in cat:
        assert "Tartalomjegyzék" not in c.text
        assert "rész -" not in c.text


def test_gaps_and_order(cat):
    gaps = {f.clause for f in findings(cat, "gap")}
    assert {"4.9.2", "4.11.4", "130.3", "132.15", "134.2", "134.3"} <= gaps
    missing = {f.clause for f in findings(cat, "missing-parent")}
    assert {"4.24.3", "114", "127.0", "111.1"} <= missing
    assert cat["114.0"].section_title == "Késleltetett erőforrás"
    assert findings(cat, "out-of-order", "135.1")
    assert findings(cat, "same-text", "135.3")


def test_heading_in_text(cat):
    assert cat["4.1"].title == "Játékos, ellenfél"
    assert findings(cat, "heading-in-text", "4.1")


def test_document_order(cat):
    ids = cat.ids()
    assert ids[0] == "3" and ids[1] == "3.1"
    assert ids.index("5.6.2") < ids.index("96") < ids.index("rb7:bevezetes") < ids.index("mk:5.00")
    assert ids.index("135.3.1") < ids.index("135.1")  # as in the text
    assert [c.id for c in cat][:3] == ids[:3]


def test_sections(cat):
    secs = cat.sections()
    assert secs[0] == ("3", "A játék célja és lényege", "II")
    assert ("102", "Egymással ellentmondó lapok és hatások", "VI") in secs
    assert ("rb7", "7. kiadás szabálykönyv, 2. fejezet", "rb7") in secs
    assert secs[-1][0] == "mk:5.12"
    assert [c.id for c in cat.in_section("102")] == ["102", "102.0", "102.1", "102.2", "102.3", "102.4"]


# ----------------------------------------------------------------------- rb7

RB7_IDS = [
    "rb7:elokeszito-fazis", "rb7:huzasi-fazis", "rb7:fo-fazis", "rb7:csere-fazis",
    "rb7:harci-fazis", "rb7:gyogyulasi-fazis",
    "rb7:vedekezes-bonusz", "rb7:anti-magia", "rb7:semmi",
    "rb7:magikus-vedekezes-tamadas", "rb7:regeneralodas", "rb7:direkt-sebzo-kepesseg",
    "rb7:lathatatlansag-lathatatlansag-latasa", "rb7:repules", "rb7:mergezes",
    "rb7:harci-kepessegek", "rb7:immunitas-tuzre-savra-stb",
    "rb7:lapok-kijatszasa", "rb7:idezesi-koltseg", "rb7:lenyek", "rb7:galetkik",
    "rb7:varazslatok", "rb7:epitmenyek", "rb7:targyak", "rb7:szakertelmek",
    "rb7:testreszek", "rb7:lenyek-szovegei", "rb7:allandoan-mukodo-kepessegek",
    "rb7:aktivalast-kivano-kepessegek", "rb7:kijatszasi-sorrend",
] + [f"rb7:harci-fazis.{n}" for n in ("I", "II", "III", "IV", "V", "VI", "VII")]


@pytest.mark.parametrize("cid", RB7_IDS)
def test_rb7_ids(cat, cid):
    c = cat.get(cid)
    assert c is not None, cid
    assert (c.part, c.section, c.kind, c.source) == ("rb7", "rb7", "rb7", RB7)
    assert c.section_title == "7. kiadás szabálykönyv, 2. fejezet"
    assert c.text


def test_rb7_entries(cat):
    assert cat["rb7:fo-fazis"].line == 17
    assert cat["rb7:fo-fazis"].text.startswith("Ilyenkor az a játékos")
    assert cat["rb7:elokeszito-fazis"].line == 8
    assert cat["rb7:elokeszito-fazis"].text.count("\n") == 5  # lines 9-14
    assert cat["rb7:harci-fazis"].text.startswith("A csere fázis után")
    assert cat["rb7:gyogyulasi-fazis"].text.endswith("Ezután közvetlenül az ellenfél köre jön.")
    assert cat["rb7:lapok-kijatszasa"].line == 3
    assert cat["rb7:idezesi-koltseg"].line == 4
    assert cat["rb7:lenyek"].line == 31 and cat["rb7:lenyek"].text.count("\n") == 5
    assert cat["rb7:kijatszasi-sorrend"].line == 90
    assert cat["rb7:kijatszasi-sorrend"].text.count("\n") == 9
    assert cat["rb7:vedekezes-bonusz"].title == "Védekezés bónusz"
    assert cat["rb7:vedekezes-bonusz"].text.startswith("Az ellenfél körében minden lénynek +1 SB-je")
    assert cat["rb7:semmi"].text.startswith("A Semmi egy új fogalom")
    assert cat["rb7:anti-magia"].line == 100
    assert cat["rb7:mergezes"].title == "Mérgezés"
    assert cat["rb7:mergezes"].text.startswith("Ha a lény megüt egy másikat")


def test_rb7_combat_subphases(cat):
    ii = cat["rb7:harci-fazis.II"]
    assert ii.title == "Támadás kijelölése" and ii.line == 57
    assert "Egy ellenséges lényre maximum két lénnyel" in ii.text
    iv = cat["rb7:harci-fazis.IV"]
    assert iv.title == "Speciális képességek használata"
    assert "Egy lénnyel csak egy célpontot lehet megsebezni" in iv.text
    assert cat["rb7:harci-fazis.VI"].title == "Ütés fázis"
    assert cat["rb7:harci-fazis.VII"].text.startswith("Ua. mint az V. fázis")
    assert cat["rb7:harci-fazis.I"].line == 56


def test_rb7_nested_lists(cat):
    # the clan list stays in its glossary entry
    clans = cat["rb7:lapok-szine-klanja-kapcsolat-a-hkk-istenekkel"].text
    assert "#10. Halhatatlanok." in clans and "#18. Bárdok." in clans
    # unheaded bullets return to the enclosing group
    assert "- Lények egy csoportjának" in cat["rb7:allandoan-mukodo-kepessegek"].text
    assert "- Minden egyéb képesség" in cat["rb7:harci-kepessegek"].text
    assert "Ezen belül lehetnek:" in cat["rb7:harci-kepessegek"].text
    assert "Minden egyéb" not in cat["rb7:direkt-sebzo-kepesseg"].text


def test_rb7_every_paragraph_reachable(cat):
    lines = (KODEX_DIR / RB7).read_text(encoding="utf-8").split("\n")
    blob = "\n".join(f"{c.title or ''}\n{c.text}" for c in cat if c.part == "rb7")
    for n, line in enumerate(lines, 1):
        s = line.strip().removeprefix("- ")
        if not s or n == 1 or s.startswith(("|", "Létrehozás:")) or "Fejezet - " in s:
            continue
        assert s[-30:] in blob, f"line {n} not in any rb7 entry"


# ------------------------------------------------------------------------ mk

@pytest.mark.parametrize("cid, line, section", [
    ("mk:5.00", 1, "mk:5.00"),
    ("mk:5.10", 103, "mk:5.10"),
    ("mk:5.10.G", 111, "mk:5.10"),
    ("mk:5.11", 127, "mk:5.11"),
    ("mk:5.12", 142, "mk:5.12"),
    ("mk:5.07.E.1", 73, "mk:5.07"),
])
def test_mk_ids(cat, cid, line, section):
    c = cat[cid]
    assert (c.line, c.section, c.part, c.kind, c.source) == (line, section, "mk", "mk", MK)


def test_mk_texts(cat):
    assert cat["mk:5.10"].title == "Képességek/laphatások felülbírálásának sorrendje"
    assert cat["mk:5.10.G"].section_title == "Képességek/laphatások felülbírálásának sorrendje"
    assert cat["mk:5.10.G"].text.startswith("Ha két hatás ugyanazon a szinten van")
    assert cat["mk:5.11"].title == "Speciális eset, amikor számot kell meghatározni"
    assert cat["mk:5.07.E.1"].text.startswith("Folyamatosan működő:")
    # unlettered bullets and examples belong to the enclosing point
    assert "• Minden lapnak adott az MP-értéke" in cat["mk:5.01.C"].text
    assert "Ekkor a vért nem érvényesül." in cat["mk:5.10.H"].text
    assert "mk:5.10.H.1" not in cat
    assert findings(cat, "empty-clause", "mk:5.00")
    assert sum(c.part == "mk" for c in cat) == 81


# ------------------------------------------------------------------- helpers

@pytest.mark.parametrize("text, slug", [
    ("3. és 6. Fő fázis", "fo-fazis"),
    ("1. Előkészítő Fázis", "elokeszito-fazis"),
    ("- Védekezés bónusz", "vedekezes-bonusz"),
    ("- Anti-mágia", "anti-magia"),
    ("Láthatatlanság/láthatatlanság látása", "lathatatlansag-lathatatlansag-latasa"),
    ("ÁRVÍZTŰRŐ TÜKÖRFÚRÓGÉP", "arvizturo-tukorfurogep"),
    ("Immunitás tűzre, savra stb.", "immunitas-tuzre-savra-stb"),
    ("Késleltetett hatás, X \"hatás\"", "kesleltetett-hatas-x-hatas"),
])
def test_slugify(text, slug):
    assert slugify(text) == slug


def test_normalize_and_sha256_stable_under_whitespace(cat):
    text = cat["4.8.4"].text
    variants = [text, "  " + text + "\n", text.replace(" ", "\u00a0"), text.replace(" ", " \n\t ")]
    for v in variants:
        assert normalize(v) == normalize(text)
        assert hashlib.sha256(normalize(v).encode()).hexdigest() == cat["4.8.4"].sha256
    assert normalize("a\u00a0 b\n\nc ") == "a b c"
    assert normalize("e\u0301") == "é"  # NFC


def test_ancestors_and_descendants(cat):
    assert cat.ancestors("4.13.4.1") == ["4.13.4", "4.13", "4"]
    assert cat.ancestors("4.24.3.1") == ["4.24", "4"]  # 4.24.3 is never numbered
    assert cat.ancestors("96.3.1") == ["96.3", "96"]
    assert cat.ancestors("3") == []
    assert cat.ancestors("mk:5.07.E.1") == ["mk:5.07.E", "mk:5.07"]
    assert cat.ancestors("rb7:harci-fazis.II") == ["rb7:harci-fazis"]
    assert cat.is_descendant("4.8.4", "4.8")
    assert cat.is_descendant("4.8.4", "4")
    assert not cat.is_descendant("4.8.4", "4.80")
    assert not Catalog.is_descendant("4.80.1", "4.8")
    assert not cat.is_descendant("4.8", "4.8")
    assert cat.is_descendant("4.8", "4.8", include_self=True)
    assert not cat.is_descendant("4", "4.8")
    assert cat.is_descendant("mk:5.10.G", "mk:5.10")
    assert not cat.is_descendant("mk:5.10.G", "5.10")


def test_to_json(cat):
    d = to_json(cat["96.3.1"])
    for k in ("id", "title", "section", "section_title", "part", "source", "line",
              "text", "sha256", "supplement", "kind"):
        assert k in d
    assert d["id"] == "96.3.1" and d["line"] == 25


def test_frozen(cat):
    with pytest.raises(Exception):
        cat["3.1"].text = "x"  # type: ignore[misc]
    assert isinstance(cat["3.1"], Clause)


def test_cached_and_directory_argument(cat, tmp_path: Path):
    assert load_catalog() is cat
    assert load_catalog(KODEX_DIR) is cat
    shutil.copy(KODEX_DIR / PART_VI, tmp_path / "renamed.txt")
    only = load_catalog(tmp_path)
    assert len(only) == 272 and only["96.3.1"].source == "renamed.txt"
    assert only["96.3.1"].sha256 == cat["96.3.1"].sha256


def test_findings_point_at_real_lines(cat):
    for f in cat.findings:
        if f.line:
            lines = (KODEX_DIR / f.source).read_text(encoding="utf-8").split("\n")
            assert 1 <= f.line <= len(lines) and lines[f.line - 1].strip(), f


@pytest.mark.parametrize("source", [PART_II, PART_VI, MK])
def test_no_text_lost(cat, source):
    import re
    blob = "\n".join(f"{c.id}\n{c.title or ''}\n{c.text}" for c in cat if c.source == source)
    chrome = ("Tartalomjegyzék", "II. rész", "VI. rész", "[Kiegészítés]", "Eszközök az oldalon")
    for n, line in enumerate((KODEX_DIR / source).read_text(encoding="utf-8").split("\n"), 1):
        s = line.strip()
        if not s or s.startswith(chrome):
            continue
        s = re.sub(r"^(\d+(\.\d+)*\.|•\s*([A-Z]\./)?(\d+\.)?)\s*", "", s).strip()
        s = s.removeprefix(". ").removeprefix(": ").rstrip(":")
        if s:
            assert s[-30:] in blob, f"{source} line {n} lost"


def test_vendored_texts_have_human_names_and_keep_the_seeds_name_as_source_id(cat):
    names = sorted(p.name for p in KODEX_DIR.glob("*.txt"))
    assert names == sorted(VENDORED)
    assert cat["4.8.4"].source == PART_II and cat["4.8.4"].source_id == "002_e1a284984842c9db.txt"
    assert cat["136.8"].source_id == "000_1a9e2c8ab29223d6.txt"
    assert cat["rb7:elet"].source_id == "003_b26b5153b3e34abc.txt"
    assert cat["mk:5.10"].source_id == "004_a42c886b35c43679.txt"
    assert {c.source_id for c in cat} == {sid for _p, sid in VENDORED.values()}
