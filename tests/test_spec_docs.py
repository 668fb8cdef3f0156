"""docs/spec is self-contained: its links resolve, it points into no code
(`model/`), every vocabulary entry of the code is documented in
hkk-vocabulary.md and every entry documented there exists in the code; no
corpus case depends on the order of a shuffled deck (docs/spec/hkk-rules.md,
"Shuffling")."""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from conformance import vocabulary as vocab
from conformance.loader import load_files

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "docs" / "spec"
PAGES = sorted(SPEC.glob("*.md"))
VOCAB_MD = SPEC / "hkk-vocabulary.md"

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    s = heading.strip().lower()
    s = "".join(ch for ch in s if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return s.replace(" ", "-")


def anchors(md: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", md.read_text(encoding="utf-8"), flags=re.S)
    return {slug(h) for h in re.findall(r"^#+\s+(.*)$", text, flags=re.M)}


def test_the_spec_has_its_pages():
    names = {p.name for p in PAGES}
    assert {"README.md", "hkk-case-format.md", "hkk-protocol.md", "hkk-rules.md",
            "hkk-vocabulary.md", "hkk-versions.md"} <= names
    readme = (SPEC / "README.md").read_text(encoding="utf-8")
    for p in PAGES:
        if p.name != "README.md":
            assert f"]({p.name})" in readme, f"{p.name} is not in the index"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_resolve(page):
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    bad = []
    links = LINK.findall(text)
    for target in links:
        if re.match(r"^[a-z]+:", target):          # http:, https:, mailto:
            continue
        path, _, frag = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            bad.append(f"{target}: no such file")
            continue
        if frag and dest.suffix == ".md" and frag not in anchors(dest):
            bad.append(f"{target}: no heading #{frag}")
    assert bad == []


def test_link_checker_finds_broken_links(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("# Title\n[a](missing.md) [b](#title) [c](#nope)\n", encoding="utf-8")
    text = page.read_text(encoding="utf-8")
    found = LINK.findall(text)
    assert found == ["missing.md", "#title", "#nope"]
    assert "title" in anchors(page) and "nope" not in anchors(page)
    assert slug("`moved.cause`") == "movedcause"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_pointers_into_the_code(page):
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"\bmodel/", text), f"{page.name} points into model/"
    assert not re.search(r"\bmodel\.[a-z_]+\.py|\(model/", text)


def test_vocabulary_page_is_generated_and_current():
    assert VOCAB_MD.read_text(encoding="utf-8") == vocab.render_doc(), \
        "run: python -m conformance.vocabulary"


def _section_names(md: str, heading: str) -> set[str]:
    """The backticked first-column names of the tables under `## heading` (up to the
    next `## `)."""
    body = md.split(f"\n## {heading}\n", 1)[1]
    body = re.split(r"\n##+ ", body, maxsplit=1)[0]     # up to the next heading of any level
    names = set()
    for row in re.findall(r"^\| *`([^`]+)` *\|", body, flags=re.M):
        names.add(row)
    return names


def _subsection_names(md: str, heading: str) -> set[str]:
    body = md.split(f"\n### {heading}\n", 1)[1]
    body = re.split(r"\n##+ ", body, maxsplit=1)[0]
    return set(re.findall(r"^\| *`([^`]+)` *\|", body, flags=re.M))


def test_every_vocabulary_entry_is_documented_and_vice_versa():
    md = VOCAB_MD.read_text(encoding="utf-8")
    keyword_section = _section_names(md, "Keyword abilities")
    pairs = [
        ("card kinds", _section_names(md, "Card kinds"), set(vocab.KINDS)),
        ("keywords", keyword_section, set(vocab.KEYWORDS)),
        ("ability fields", _subsection_names(md, "Ability fields"), set(vocab.ABILITY_FIELD_MEANING)),
        ("immunities", _subsection_names(md, "Immunities (`{keyword: immunity, to: ...}`)"),
         set(vocab.IMMUNITY_TO)),
        ("aliases", _subsection_names(md, "Other spellings (rejected)"), set(vocab.KEYWORD_ALIASES)),
        ("counters", _section_names(md, "Counters"), set(vocab.COUNTERS)),
        ("events", _section_names(md, "Events"), set(vocab.EVENTS)),
        ("move causes", _section_names(md, "`moved.cause`"), set(vocab.MOVE_CAUSES)),
        ("move causes per verb", _subsection_names(md, "Per verb"), set(vocab.MOVE_CAUSE_BY_VERB)),
        ("card fields", _section_names(md, "Card fields"), set(vocab.CARD_FIELDS)),
        ("returned card fields", _subsection_names(md, "Returned only"),
         set(vocab.RETURNED_CARD_FIELDS)),
        ("player fields", _section_names(md, "Player fields"), set(vocab.PLAYER_FIELDS)),
        ("then fields", _section_names(md, "Fields of `then`"), set(vocab.THEN_FIELDS)),
    ]
    for what, documented, code in pairs:
        assert code - documented == set(), f"{what} not documented: {sorted(code - documented)}"
        assert documented - code == set(), f"{what} documented but not in the code: {sorted(documented - code)}"
    # each event's fields are documented in its row
    events_md = md.split("\n## Events\n", 1)[1].split("\n## ", 1)[0]
    keywords_md = md.split("\n## Keyword abilities\n", 1)[1].split("\n### ", 1)[0]
    for name, ev in vocab.EVENTS.items():
        row = re.search(rf"^\| `{name}` \|(.*)$", events_md, flags=re.M).group(1)
        for f in ev.fields:
            assert f"`{f}`" in row, (name, f)
    for name, kw in vocab.KEYWORDS.items():
        row = re.search(rf"^\| `{name}` \|(.*)$", keywords_md, flags=re.M).group(1)
        for f in kw.fields:
            assert f"`{f}`" in row, (name, f)


def test_the_rules_page_covers_what_implementers_had_to_guess():
    rules = (SPEC / "hkk-rules.md").read_text(encoding="utf-8")
    for heading in ("Steps: `source` and `by`", "Zones and where a card goes",
                    "Who made a premade card", "Leaving the table",
                    "Muscle counters leaving (124.2–124.6)", "Creating a card (`create`)",
                    "Computed values of a card", "A returned card", "Events and their order",
                    "Shuffling"):
        assert f"\n## {heading}\n" in rules or f"\n### {heading}\n" in rules, heading
    for verb in ("draw", "discard", "mill", "move", "exile", "search", "sacrifice", "steal",
                 "create", "play"):
        assert re.search(rf"^\| `{verb}`", rules, flags=re.M), f"no destination row for {verb}"


# --------------------------------------------------------------------------
# shuffles: no case depends on the order of a shuffled deck

def _shuffles(step) -> bool:
    if not isinstance(step, dict) or len(step) != 1:
        return False
    (verb, args), = step.items()
    args = args if isinstance(args, dict) else {}
    if verb == "shuffle":
        return True
    if verb == "move" and args.get("to") == "deck_shuffle":
        return True
    if verb == "search" and args.get("to", "hand") in ("hand", "reserve"):   # a mill does not (4.13.2)
        return True
    if verb == "play" and isinstance(args.get("pay"), dict) and args["pay"].get("recycle"):
        return True
    return False


def _card_shuffles(case) -> bool:
    def walk(x):
        if isinstance(x, dict):
            return _shuffles(x) or any(walk(v) for v in x.values())
        if isinstance(x, list):
            return any(walk(v) for v in x)
        return False
    return walk(case.given.get("cards") or {})


def shuffle_order_dependencies(cases) -> list[str]:
    out = []
    for c in cases:
        idx = [i for i, s in enumerate(c.when) if _shuffles(s)]
        if not idx and not _card_shuffles(c):
            continue
        err = c.then.get("error")
        if err not in (None, False) and idx and not _card_shuffles(c):
            refused = err.get("step", len(c.when) - 1) if isinstance(err, dict) else len(c.when) - 1
            if all(i >= refused for i in idx):
                continue                          # the shuffle never happened
        for p, pl in (c.then.get("players") or {}).items():
            if isinstance(pl, dict) and isinstance(pl.get("deck"), list) and len(pl["deck"]) > 1:
                out.append(f"{c.id}: then.players.{p}.deck lists {len(pl['deck'])} cards after a shuffle")
    return out


def test_no_case_depends_on_a_shuffled_decks_order():
    cases = load_files().cases
    assert shuffle_order_dependencies(cases) == []


def test_shuffle_check_can_fail():
    from conformance.loader import Case
    bad = Case(id="x", clause="4.15.0", when=[{"shuffle": {"player": "A"}}],
               then={"players": {"A": {"deck": ["c1", "c2"]}}})
    refused = Case(id="y", clause="4.15.0", when=[{"shuffle": {"player": "A"}}],
                   then={"players": {"A": {"deck": ["c1", "c2"]}}, "error": True})
    fine = Case(id="z", clause="4.15.0", when=[{"move": {"card": "c1", "to": "deck_shuffle"}}],
                then={"cards": {"c1": {"zone": "deck"}}})
    assert shuffle_order_dependencies([bad, refused, fine]) == [
        "x: then.players.A.deck lists 2 cards after a shuffle"]
