"""Facts about the texts the kit reads (conformance/kodex/, or ``$KODEX_TEXTS_DIR``: see
conformance/catalog.py), as seen through conformance.catalog.

No test here counts clauses or names a line number of the texts: what would change with any
amendment is checked by invariants (tests/catalog_invariants.py), and every test that takes
``cat`` runs twice, on the texts as read and on an amended copy with a new clause in each text
(tests/amended_texts.py), so that it is seen to survive an amendment. What stays pinned is about
the clause the test names. The parser itself is tested on fixture texts:
tests/test_catalog_parser.py."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

import catalog_invariants as inv
from amended_texts import amended_copy
from conformance.catalog import (
    KODEX_DIR,
    VENDORED,
    Catalog,
    Clause,
    load_catalog,
    normalize,
    slugify,
    texts_dir,
    to_json,
)

PART_II = "kodex-part-II.txt"
PART_VI = "kodex-part-VI.txt"
RB7 = "rulebook-7th-edition-chapter-2.txt"
MK = "magus-card-game-rules-5.00.txt"


@pytest.fixture(scope="module", params=["as read", "amended"])
def texts(request, tmp_path_factory) -> Path:
    """The directory of the texts: the kit's, then an amended copy of them."""
    if request.param == "as read":
        return texts_dir()
    return amended_copy(tmp_path_factory.mktemp("amended")).directory


@pytest.fixture(scope="module")
def cat(texts) -> Catalog:
    return load_catalog(texts)


def findings(cat: Catalog, kind: str, clause: str | None = None):
    return [f for f in cat.findings if f.kind == kind and (clause is None or f.clause == clause)]


def line_at(texts: Path, source: str, line: int) -> str:
    return inv.lines_of(texts, source)[line - 1]


# ---------------------------------------------------------------- invariants

def test_every_clause_starts_at_its_line(cat, texts):
    assert inv.unresolved_lines(cat, texts) == []


def test_every_numbered_line_is_one_clause_or_a_reported_repeat(cat, texts):
    """What a pinned count of the clauses of each part used to check, in a form that an
    amendment does not break."""
    assert inv.unaccounted_numbers(cat, texts) == []


def test_ids_have_the_form_of_their_kind_and_hashes_their_text(cat):
    assert inv.identity_problems(cat) == []


def test_document_order(cat):
    assert inv.order_problems(cat) == []
    ids = cat.ids()
    assert ids.index("5.6.2") < ids.index("96") < ids.index("rb7:bevezetes") < ids.index("mk:5.00")
    assert ids.index("135.3.1") < ids.index("135.1")  # as in the text
    assert [c.id for c in cat] == ids


def test_sections(cat):
    assert inv.section_problems(cat) == []
    secs = cat.sections()
    assert ("3", "A játék célja és lényege", "II") in secs
    assert ("102", "Egymással ellentmondó lapok és hatások", "VI") in secs
    assert ("rb7", "7. kiadás szabálykönyv, 2. fejezet", "rb7") in secs
    assert ("mk:5.12", "Hatás, Helyettesítő hatás", "mk") in secs
    assert {"102", "102.0", "102.3"} <= {c.id for c in cat.in_section("102")}


def test_findings_point_at_real_lines(cat, texts):
    assert inv.findings_off_their_lines(cat, texts) == []


def test_no_text_lost(cat, texts):
    """Every line of every text (rb7 included) is in some clause, page chrome aside."""
    assert inv.lost_lines(cat, texts) == []


# --------------------------------------------------------------------- Kódex

@pytest.mark.parametrize("cid, section, part, source", [
    ("4.24.3.0", "4", "II", PART_II),
    ("96.3.1", "96", "VI", PART_VI),
    ("134.9.1", "134", "VI", PART_VI),
    ("4.8.4", "4", "II", PART_II),
    ("3", "3", "II", PART_II),
    ("96", "96", "VI", PART_VI),
    ("137.4", "137", "VI", PART_VI),
])
def test_location(cat, texts, cid, section, part, source):
    c = cat.get(cid)
    assert c is not None and cid in cat
    assert (c.section, c.part, c.source) == (section, part, source)
    assert line_at(texts, source, c.line).startswith(f"{cid}.")


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


def test_leading_dot_stripped(cat, texts):
    assert cat["4.4.3"].title == "Kezdőkéz"
    assert cat["4.4.3"].text.startswith("A játék elején")
    f = findings(cat, "leading-dot", "4.4.3")
    assert len(f) == 1 and f[0].source == PART_II and f[0].line > cat["4.4.3"].line
    assert line_at(texts, PART_II, f[0].line).startswith(". A játék elején")
    assert cat["131.3"].text.startswith("a láthatatlansággal")
    assert findings(cat, "leading-dot", "131.3")
    for c in cat:
        assert not c.text.startswith((". ", ": ")), c.id


def test_id_repeated_in_text(cat, texts):
    for cid, start in [("96.5", "Amennyiben"), ("114.4", "A késleltetett"),
                       ("134.9.1", "Az anti-blokkolásra")]:
        assert cat[cid].text.startswith(start)
        f = findings(cat, "id-repeated-in-text", cid)
        assert len(f) == 1 and f[0].line > cat[cid].line
        assert line_at(texts, PART_VI, f[0].line).startswith(f"{cid}. {start}")
    assert "96.5." not in cat["96.5"].text


def test_duplicates_keep_first(cat, texts):
    for cid in ("5.3.2", "5.3.3", "5.3.4"):
        f = findings(cat, "duplicate", cid)
        assert len(f) == 1 and f[0].source == PART_II and f[0].line > cat[cid].line
        assert line_at(texts, PART_II, f[0].line).startswith(f"{cid}.")
        assert "identical text" in f[0].message
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


def first_and_last(c: Clause) -> tuple[str, str]:
    paras = c.text.split("\n")
    return paras[0], paras[-1]


def test_rb7_entries(cat):
    # where an entry starts is checked for all of them (test_every_clause_starts_at_its_line);
    # here: where the named ones end
    assert cat["rb7:fo-fazis"].text.startswith("Ilyenkor az a játékos")
    first, last = first_and_last(cat["rb7:elokeszito-fazis"])
    assert first.startswith("- A játékos az első körében") and last.startswith("- Végezetül")
    assert cat["rb7:harci-fazis"].text.startswith("A csere fázis után")
    assert cat["rb7:gyogyulasi-fazis"].text.endswith("Ezután közvetlenül az ellenfél köre jön.")
    assert cat["rb7:lapok-kijatszasa"].text.startswith("Egy lap kijátszásának nevezzük")
    assert cat["rb7:idezesi-koltseg"].text.startswith("Minden kártyának van egy ún.")
    first, last = first_and_last(cat["rb7:lenyek"])
    assert first.startswith("A játék során kijátszott") and last.startswith("A játékos az előkészítő")
    first, last = first_and_last(cat["rb7:kijatszasi-sorrend"])
    assert first.startswith("A játék során előfordulhat") and last.startswith("Ne felejtsd el")
    assert cat["rb7:vedekezes-bonusz"].title == "Védekezés bónusz"
    assert cat["rb7:vedekezes-bonusz"].text.startswith("Az ellenfél körében minden lénynek +1 SB-je")
    assert cat["rb7:semmi"].text.startswith("A Semmi egy új fogalom")
    assert cat["rb7:anti-magia"].title == "Anti-mágia"
    assert cat["rb7:mergezes"].title == "Mérgezés"
    assert cat["rb7:mergezes"].text.startswith("Ha a lény megüt egy másikat")


def test_rb7_combat_subphases(cat):
    ii = cat["rb7:harci-fazis.II"]
    assert ii.title == "Támadás kijelölése"
    assert "Egy ellenséges lényre maximum két lénnyel" in ii.text
    iv = cat["rb7:harci-fazis.IV"]
    assert iv.title == "Speciális képességek használata"
    assert "Egy lénnyel csak egy célpontot lehet megsebezni" in iv.text
    assert cat["rb7:harci-fazis.VI"].title == "Ütés fázis"
    assert cat["rb7:harci-fazis.VII"].text.startswith("Ua. mint az V. fázis")
    assert cat["rb7:harci-fazis.I"].title is None
    assert cat["rb7:harci-fazis.I"].text.startswith("A támadó bejelenti")


def test_rb7_nested_lists(cat):
    # the clan list stays in its glossary entry
    clans = cat["rb7:lapok-szine-klanja-kapcsolat-a-hkk-istenekkel"].text
    assert "#10. Halhatatlanok." in clans and "#18. Bárdok." in clans
    # unheaded bullets return to the enclosing group
    assert "- Lények egy csoportjának" in cat["rb7:allandoan-mukodo-kepessegek"].text
    assert "- Minden egyéb képesség" in cat["rb7:harci-kepessegek"].text
    assert "Ezen belül lehetnek:" in cat["rb7:harci-kepessegek"].text
    assert "Minden egyéb" not in cat["rb7:direkt-sebzo-kepesseg"].text


# ------------------------------------------------------------------------ mk

@pytest.mark.parametrize("cid, section", [
    ("mk:5.00", "mk:5.00"),
    ("mk:5.10", "mk:5.10"),
    ("mk:5.10.G", "mk:5.10"),
    ("mk:5.11", "mk:5.11"),
    ("mk:5.12", "mk:5.12"),
    ("mk:5.07.E.1", "mk:5.07"),
])
def test_mk_ids(cat, texts, cid, section):
    c = cat[cid]
    assert (c.section, c.part, c.kind, c.source) == (section, "mk", "mk", MK)
    marker = {"mk:5.10.G": "• G./", "mk:5.07.E.1": "• E./1."}.get(cid) or cid[3:] + "."
    assert line_at(texts, MK, c.line).strip().startswith(marker)


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
    assert d["id"] == "96.3.1" and (d["line"], d["text"]) == (cat["96.3.1"].line, cat["96.3.1"].text)


def test_frozen(cat):
    with pytest.raises(Exception):
        cat["3.1"].text = "x"  # type: ignore[misc]
    assert isinstance(cat["3.1"], Clause)


def test_cached_and_directory_argument(tmp_path: Path):
    cat = load_catalog()
    assert load_catalog() is cat
    assert load_catalog(texts_dir()) is cat
    shutil.copy(texts_dir() / PART_VI, tmp_path / "renamed.txt")
    only = load_catalog(tmp_path)
    assert only.ids() == cat.ids("VI") and only["96.3.1"].source == "renamed.txt"
    assert only["96.3.1"].sha256 == cat["96.3.1"].sha256
    assert only["96.3.1"].source_id == "renamed.txt"       # a name of no vendored text


def test_vendored_texts_have_human_names_and_keep_the_seeds_name_as_source_id(cat):
    names = sorted(p.name for p in KODEX_DIR.glob("*.txt"))
    assert names == sorted(VENDORED)
    assert cat["4.8.4"].source == PART_II and cat["4.8.4"].source_id == "002_e1a284984842c9db.txt"
    assert cat["136.8"].source_id == "000_1a9e2c8ab29223d6.txt"
    assert cat["rb7:elet"].source_id == "003_b26b5153b3e34abc.txt"
    assert cat["mk:5.10"].source_id == "004_a42c886b35c43679.txt"
    assert {c.source_id for c in cat} == {sid for _p, sid in VENDORED.values()}
