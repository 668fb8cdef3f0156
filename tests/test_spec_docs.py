"""docs/spec is self-contained: it points into no code (`model/`; its links resolve:
tests/test_docs.py, for every page of the project), every vocabulary entry of the code is documented in
hkk-vocabulary.md and every entry documented there exists in the code; no
corpus case depends on the order of a shuffled deck (docs/spec/hkk-rules.md,
"Shuffling").

And it states everything the corpus checks (issue 24): every event and event
field a case expects or the reference emits, every `moved.cause`, every field
of a state the reference returns over the corpus, every decision, `then` key,
expected card / player / turn field and verb argument, the fields
`effect_prevented` carries, and the order of the events of each step (each
row of hkk-rules.md "The order within a step" against a scenario the
reference runs). Each check reads the page's text; a test gives it the page
with one entry deleted and sees it name that entry."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from conformance import vocabulary as vocab
from conformance.loader import load_files

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "docs" / "spec"
PAGES = sorted(SPEC.glob("*.md"))
VOCAB_MD = SPEC / "hkk-vocabulary.md"


def test_the_spec_has_its_pages():
    names = {p.name for p in PAGES}
    assert {"README.md", "hkk-case-format.md", "hkk-protocol.md", "hkk-rules.md",
            "hkk-vocabulary.md", "hkk-versions.md"} <= names
    readme = (SPEC / "README.md").read_text(encoding="utf-8")
    for p in PAGES:
        if p.name != "README.md":
            assert f"]({p.name})" in readme, f"{p.name} is not in the index"


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
    v2 = vocab.vocabulary(2)                  # the page lists every version's names (hkk-case/2 the largest)
    keyword_section = _section_names(md, "Keyword abilities")
    v2 = vocab.vocabulary(2)                   # the page lists every version's names (hkk-case/2 marked)
    pairs = [
        ("card kinds", _section_names(md, "Card kinds"), set(vocab.KINDS)),
        ("keywords", keyword_section, set(v2["keywords"])),
        ("ability fields", _subsection_names(md, "Ability fields"),
         set(vocab.ABILITY_FIELD_MEANING) | set(vocab.V2_ABILITY_FIELDS)),
        ("immunities", _subsection_names(md, "Immunities (`{keyword: immunity, to: ...}`)"),
         set(vocab.IMMUNITY_TO)),
        ("aliases", _subsection_names(md, "Other spellings (rejected)"), set(vocab.KEYWORD_ALIASES)),
        ("counters", _section_names(md, "Counters"), set(vocab.COUNTERS)),
        ("events", _section_names(md, "Events"), set(v2["events"])),
        ("move causes", _section_names(md, "`moved.cause`"), set(vocab.MOVE_CAUSES)),
        ("move causes per verb", _subsection_names(md, "Per verb"), set(vocab.MOVE_CAUSE_BY_VERB)),
        ("card fields", _section_names(md, "Card fields"), set(v2["card"])),
        ("returned card fields", _subsection_names(md, "Returned only"),
         set(vocab.RETURNED_CARD_FIELDS)),
        ("player fields", _section_names(md, "Player fields"), set(vocab.PLAYER_FIELDS)),
        ("then fields", _section_names(md, "Fields of `then`"), set(v2["then"])),
    ]
    for what, documented, code in pairs:
        assert code - documented == set(), f"{what} not documented: {sorted(code - documented)}"
        assert documented - code == set(), f"{what} documented but not in the code: {sorted(documented - code)}"
    # each event's fields are documented in its row
    events_md = md.split("\n## Events\n", 1)[1].split("\n## ", 1)[0]
    keywords_md = md.split("\n## Keyword abilities\n", 1)[1].split("\n### ", 1)[0]
    for name, ev in v2["events"].items():
        row = re.search(rf"^\| `{name}` \|(.*)$", events_md, flags=re.M).group(1)
        for f in ev.fields:
            assert f"`{f}`" in row, (name, f)
    for name, kw in v2["keywords"].items():
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


# --------------------------------------------------------------------------
# the contract states everything the corpus checks and the reference returns
# (issue 24): every event and field a case expects or the reference emits, every
# field of a returned state, every decision, `moved.cause`, `then` key and verb
# argument, the fields `effect_prevented` carries, and the order of the events of
# each step. Each check is a function of the page's text, and a test feeds it the
# page with one entry deleted: it must name that entry.

RULES_MD = SPEC / "hkk-rules.md"
VERBS_MD = SPEC / "hkk-verbs.md"
FORMAT_MD = SPEC / "hkk-case-format.md"
REACTIONS_MD = SPEC / "hkk-reactions.md"    # what hkk-case/2 adds: its names are stated there
V2_GLANCE = "What hkk-case/2 adds, at a glance"


def _text(md: Path) -> str:
    return md.read_text(encoding="utf-8")


def section(md: str, heading: str) -> str:
    """The text under the heading `heading` (any level), up to the next heading of the same
    or a higher level; fenced code is left out."""
    md = re.sub(r"```.*?```", "", md, flags=re.S)
    m = re.search(rf"^(#+) {re.escape(heading)}\n", md, flags=re.M)
    assert m, f"no heading {heading!r}"
    rest = md[m.end():]
    nxt = re.search(rf"^#{{1,{len(m.group(1))}}} ", rest, flags=re.M)
    return rest[:nxt.start()] if nxt else rest


def table_rows(text: str) -> dict[str, list[str]]:
    """The rows of the tables in `text` by every backticked name of their first cell:
    name -> the row's cells."""
    rows: dict[str, list[str]] = {}
    for line in text.splitlines():
        if not line.startswith("|") or re.match(r"^\|[-| ]+\|$", line):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        for name in re.findall(r"`([^`]+)`", cells[0]):
            rows.setdefault(name, cells)
    return rows


def _walk_steps(steps, out: set[tuple[str, str]]) -> None:
    """(verb, argument) of every step, with the steps inside cards' effects and delays."""
    for step in steps or []:
        if not isinstance(step, dict) or len(step) != 1:
            continue
        (verb, args), = step.items()
        if not isinstance(args, dict):
            continue
        for key, value in args.items():
            out.add((verb, key))
            if verb == "play" and key == "pay" and isinstance(value, dict):
                out.update(("play", f"pay.{k}") for k in value)
        if verb == "delay":
            _walk_steps([args.get("step")], out)
        if verb == "create" and isinstance(args.get("card"), dict):
            _walk_cards({"new": args["card"]}, out)


def _walk_cards(defs, out: set[tuple[str, str]]) -> None:
    for d in (defs or {}).values():
        if not isinstance(d, dict):
            continue
        _walk_steps(d.get("effects"), out)
        for ab in d.get("abilities") or []:
            if isinstance(ab, dict):
                _walk_steps(ab.get("effects"), out)
        for r in d.get("replace") or []:
            if isinstance(r, dict):
                _walk_steps(r.get("instead"), out)


@pytest.fixture(scope="module")
def corpus():
    return load_files().cases


@pytest.fixture(scope="module")
def reference(corpus):
    """Every corpus case run by the reference engine in-process, under its ruleset."""
    from conformance.runner import choose_ruleset, run_reference
    runs = []
    for c in corpus:
        ruleset, _why = choose_ruleset(c, None)
        if ruleset is not None:
            runs.append(run_reference(c, ruleset))
    return runs


def _add_event(seen: dict[str, set[str]], ev) -> None:
    if isinstance(ev, dict) and isinstance(ev.get("event"), str):
        seen.setdefault(ev["event"], set()).update(k for k in ev if k != "event")


def corpus_events(cases) -> dict[str, set[str]]:
    """event -> the fields the corpus's `then.events` and `then.no_events` name."""
    seen: dict[str, set[str]] = {}
    for c in cases:
        for ev in (c.then.get("events") or []) + (c.then.get("no_events") or []):
            _add_event(seen, ev)
    return seen


def emitted_events(runs) -> dict[str, set[str]]:
    seen: dict[str, set[str]] = {}
    for r in runs:
        for ev in r.events:
            _add_event(seen, ev)
    return seen


def undocumented_events(seen: dict[str, set[str]], vocab_md: str, registry: bool = False) -> list[str]:
    """The events (and fields) of `seen` that hkk-vocabulary.md's table of events lacks.
    `registry`: `seen` comes from the reference, which adds `clauses` (and `clause`) to every
    event — documented once, under "The `clause` of an event", not per row."""
    rows = table_rows(section(vocab_md, "Events"))
    generic = {"clause", "clauses"} if registry and "### The `clause` of an event" in vocab_md else set()
    out = []
    for name in sorted(seen):
        if name not in rows:
            out.append(f"event {name}: no row")
            continue
        fields = " ".join(rows[name][1:3])               # required and other fields
        out += [f"event {name}: field {f}" for f in sorted(seen[name] - generic) if f"`{f}`" not in fields]
    return out


def test_every_event_and_field_the_corpus_expects_is_documented(corpus):
    seen = corpus_events(corpus)
    assert len(seen) > 50
    assert undocumented_events(seen, _text(VOCAB_MD), _text(REACTIONS_MD)) == []


def test_every_event_and_field_the_reference_emits_is_documented(reference):
    seen = emitted_events(reference)
    assert {"moved", "effect_prevented", "conflict_resolved", "combat_step"} <= set(seen)
    assert undocumented_events(seen, _text(VOCAB_MD), registry=True) == []
    # without the section on the clause of an event, every event's `clauses` is undocumented
    no_section = _text(VOCAB_MD).replace("### The `clause` of an event", "### The clause")
    assert "event moved: field clauses" in undocumented_events(seen, no_section, registry=True)


def test_the_event_check_names_a_deleted_row_or_field():
    md = _text(VOCAB_MD)
    no_row = re.sub(r"^\| `strike_back_chosen` \|.*\n", "", md, flags=re.M)
    no_field = md.replace("| `exiled` | `card`, `player` | `to` |", "| `exiled` | `card`, `player` | — |")
    assert no_field != md
    seen = {"strike_back_chosen": {"player"}, "exiled": {"to", "card"}}
    assert undocumented_events(seen, md) == []
    assert undocumented_events(seen, no_row) == ["event strike_back_chosen: no row"]
    assert undocumented_events(seen, no_field) == ["event exiled: field to"]
    v2 = _text(REACTIONS_MD)
    seen2 = {"made_up": {"card", "ability"}, "passed": {"player", "queue"}}
    assert undocumented_events(seen2, md, v2) == []
    # hkk-case/2's events are on both pages (the generated index and hkk-reactions.md): a row
    # deleted from both is missing
    no_v2_row = re.sub(r"^\| `made_up` \|.*\n", "", v2, flags=re.M)
    no_v1_row = re.sub(r"^\| `made_up` \|.*\n", "", md, flags=re.M)
    assert no_v2_row != v2 and no_v1_row != md
    assert undocumented_events(seen2, no_v1_row, no_v2_row) == ["event made_up: no row"]


# -- moved.cause ---------------------------------------------------------------

def moved_causes(cases, runs) -> list:
    causes = [e.get("cause") for c in cases for e in (c.then.get("events") or [])
              if isinstance(e, dict) and e.get("event") == "moved" and "cause" in e]
    causes += [e.get("cause") for r in runs for e in r.events if e["event"] == "moved"]
    return causes


def undocumented_causes(causes, vocab_md: str) -> list[str]:
    rows = table_rows(section(vocab_md, "`moved.cause`"))
    return sorted({str(c) for c in causes if isinstance(c, str) and c not in rows})


def test_every_moved_cause_is_documented(corpus, reference):
    causes = moved_causes(corpus, reference)
    assert undocumented_causes(causes, _text(VOCAB_MD)) == []
    md = re.sub(r"^\| `shadow` \|.*\n", "", _text(VOCAB_MD), flags=re.M)
    assert undocumented_causes(causes, md) == ["shadow"]


def test_every_moved_cause_the_reference_emits_is_a_name(reference):
    # a muscle reward's draws once carried the mover's Cause object here (fixed in issue 24; case
    # 124.3/muscle-reward-draw-is-a-draw)
    assert [c for c in moved_causes([], reference) if not isinstance(c, str)] == []


# -- the returned state --------------------------------------------------------

# where hkk-rules.md states the fields of each part of a returned state
RETURNED_AT = {"state": "The state", "turn": "The turn", "player": "A returned player",
               "card": "A returned card", "pending": "Pending decisions"}


def returned_fields(states) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {k: set() for k in (*RETURNED_AT, "lasting", "delayed")}
    for st in states:
        out["state"] |= set(st)
        out["turn"] |= set(st["turn"])
        for pl in st["players"].values():
            out["player"] |= set(pl)
        for cd in st["cards"].values():
            out["card"] |= set(cd)
        out["pending"] |= set(st.get("pending") or {})
        for part in ("lasting", "delayed"):
            for item in st.get(part) or []:
                out[part] |= set(item)
    return out


def undocumented_returned(fields: dict[str, set[str]], rules_md: str, reactions_md: str = "") -> list[str]:
    rows = {part: table_rows(section(rules_md, heading)) for part, heading in RETURNED_AT.items()}
    if reactions_md:                                 # hkk-case/2's state fields (`queue`, `missed`)
        rows["state"] = {**table_rows(section(reactions_md, V2_GLANCE)), **rows["state"]}
    out = [f"{part}.{f}" for part in RETURNED_AT for f in sorted(fields[part]) if f not in rows[part]]
    for part in ("lasting", "delayed"):              # their items' fields, in the row of the state table
        named = {w for code in re.findall(r"`([^`]+)`", " ".join(rows["state"].get(part, [])))
                 for w in re.findall(r"[a-z_]+", code)}
        out += [f"{part}[].{f}" for f in sorted(fields[part]) if f not in named]
    return out


def test_every_field_of_a_returned_state_is_in_the_rules(reference):
    fields = returned_fields(r.state for r in reference)
    assert {"combat_step"} <= fields["turn"] and {"just_damaged", "attacking"} <= fields["card"]
    assert fields["lasting"] and fields["delayed"] and fields["pending"]
    assert undocumented_returned(fields, _text(RULES_MD), _text(REACTIONS_MD)) == []


def test_the_returned_state_check_names_a_deleted_field(reference):
    fields = returned_fields(r.state for r in reference)
    md, v2 = _text(RULES_MD), _text(REACTIONS_MD)
    for row, named in ((r"^\| `just_damaged` \|.*\n", "card.just_damaged"),
                       (r"^\| `combat_step` \|.*\n", "turn.combat_step"),
                       (r"^\| `base_max_hp` \|.*\n", "player.base_max_hp")):
        assert undocumented_returned(fields, re.sub(row, "", md, count=1, flags=re.M), v2) == [named]
    assert undocumented_returned(fields, md.replace("turns_left", "turns_to_go"), v2) == ["lasting[].turns_left"]
    no_missed = re.sub(r"^\| `missed` \|.*\n", "", md, count=1, flags=re.M)
    assert undocumented_returned(fields, no_missed, v2.replace("| `queue`, `missed` |", "| `queue` |")) \
        == ["state.missed"]


# -- decisions -----------------------------------------------------------------

def pending_choices(cases, runs) -> set[str]:
    choices = set()
    for c in cases:
        pend = c.then.get("pending")
        if isinstance(pend, dict) and "choice" in pend:
            choices.add(pend["choice"])
        choices |= {e.get("choice") for e in c.then.get("events") or []
                    if isinstance(e, dict) and e.get("event") == "decision_pending" and "choice" in e}
    for r in runs:
        choices |= {e["choice"] for e in r.events if e["event"] == "decision_pending"}
        if r.state.get("pending"):
            choices.add(r.state["pending"]["choice"])
    return choices


def undocumented_choices(choices: set[str], rules_md: str, reactions_md: str = "") -> list[str]:
    rows = table_rows(section(rules_md, "Pending decisions"))
    if reactions_md:                                 # hkk-case/2's decisions (`order`, `use`)
        rows = {**table_rows(section(reactions_md, V2_GLANCE)), **rows}
    return sorted(c for c in choices if c not in rows)


def test_every_decision_is_documented(corpus, reference):
    choices = pending_choices(corpus, reference)
    assert {"discard", "anti_magic", "anti_neutralization", "muscle_reward", "order", "use"} <= choices
    v2 = _text(REACTIONS_MD)
    assert undocumented_choices(choices, _text(RULES_MD), v2) == []
    md = re.sub(r"^\| `muscle_reward` \|.*\n", "", _text(RULES_MD), flags=re.M)
    assert undocumented_choices(choices, md, v2) == ["muscle_reward"]
    assert undocumented_choices(choices, _text(RULES_MD), v2.replace("| `order`, `use` |", "| `order` |")) \
        == ["use"]


# -- then keys, and the card / player / turn fields a case expects -------------

def expected_fields(cases) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {"then": set(), "card": set(), "player": set(), "turn": set()}
    for c in cases:
        out["then"] |= set(c.then)
        for part, key in (("card", "cards"), ("player", "players")):
            for pattern in (c.then.get(key) or {}).values():
                out[part] |= set(pattern or {})
        if isinstance(c.then.get("turn"), dict):
            out["turn"] |= set(c.then["turn"])
    return out


def unstated_expectations(fields: dict[str, set[str]], vocab_md: str, rules_md: str,
                          reactions_md: str = "") -> list[str]:
    cards = table_rows(section(vocab_md, "Card fields"))        # its "Returned only" table included
    then = table_rows(section(vocab_md, "Fields of `then`"))
    if reactions_md:                                 # hkk-case/2's `then` fields (`queue`, `missed`)
        then = {**table_rows(section(reactions_md, V2_GLANCE)), **then}
    where = {"then": then, "card": cards,
             "player": table_rows(section(vocab_md, "Player fields")),
             "turn": table_rows(section(rules_md, "The turn"))}
    return [f"{part}.{f}" for part in where for f in sorted(fields[part]) if f not in where[part]]


def test_every_then_key_and_field_a_case_expects_is_documented(corpus):
    fields = expected_fields(corpus)
    assert {"no_events", "pending", "lasting", "missed"} <= fields["then"] and "combat_step" in fields["turn"]
    v2 = _text(REACTIONS_MD)
    assert unstated_expectations(fields, _text(VOCAB_MD), _text(RULES_MD), v2) == []
    no_missed = re.sub(r"^\| `missed` \| hkk-case/2: the forgotten.*\n", "", _text(VOCAB_MD), flags=re.M)
    assert no_missed != _text(VOCAB_MD)
    assert unstated_expectations(fields, no_missed, _text(RULES_MD),
                                 v2.replace("| `queue`, `missed` |", "| `queue` |")) == ["then.missed"]
    vocab_md = re.sub(r"^\| `attacking` \|.*\n", "", _text(VOCAB_MD), flags=re.M)
    assert unstated_expectations(fields, vocab_md, _text(RULES_MD), v2) == ["card.attacking"]


# -- verb arguments ------------------------------------------------------------

def documented_arguments(format_md: str, verbs_md: str, effects_md: str,
                         reactions_md: str = "") -> set[tuple[str, str]]:
    """(verb, argument) the pages document: the verb tables of hkk-case-format.md and of
    hkk-verbs.md ("Verbs the kit added"), the arguments it added (`verb.argument`, `as_cost`
    with its verbs), `source` and `by` of every step; and hkk-case/2's (hkk-reactions.md: the
    `verb.argument` names of its table "at a glance", the verb table of "Reactions")."""
    args: set[tuple[str, str]] = set()
    tables = [section(format_md, "The steps (`when`)"), section(verbs_md, "Verbs the kit added")]
    any_step: set[str] = set()
    if reactions_md:
        tables.append(section(reactions_md, "Reactions"))
        for name, cells in table_rows(section(reactions_md, "What hkk-case/2 adds, at a glance")).items():
            verb, dot, arg = name.partition(".")
            if dot:
                args.add((verb, arg))
            elif "argument of any step" in cells[1]:
                any_step.add(name)
    for text in tables:
        for line in text.splitlines():
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]] if line.startswith("|") else []
            if len(cells) < 2:
                continue
            for verb in re.findall(r"`([a-z_]+)`", cells[0]):
                args |= {(verb, m) for m in re.findall(r"`([a-z_]+)", cells[1])}
    added = table_rows(section(verbs_md, "Arguments the kit added to the format's verbs"))
    for name, cells in added.items():
        if "." in name:
            verb, _, arg = name.partition(".")
            args.add((verb, arg))                        # `play.pay.muscle` -> (play, pay.muscle)
            if "." in arg:
                args.add((verb, arg.partition(".")[0]))
        elif name == "as_cost":
            args |= {(v, "as_cost") for v in re.findall(r"`([a-z_]+)`", cells[0]) if v != "as_cost"}
    if "Every step may carry `source` and `by`." in format_md:
        verbs = {v for v, _ in args}
        args |= {(v, k) for v in verbs for k in ("source", "by")}
    verbs = {v for v, _ in args}
    args |= {(v, k) for v in verbs for k in any_step}
    return args


def used_arguments(cases) -> set[tuple[str, str]]:
    used: set[tuple[str, str]] = set()
    for c in cases:
        _walk_steps(c.when, used)
        _walk_cards((c.given or {}).get("cards"), used)
    return used


def test_every_verb_argument_the_corpus_uses_is_documented(corpus):
    used = used_arguments(corpus)
    assert {("play", "pay.recycle"), ("damage", "split"), ("advance", "step"), ("repeat", "ability")} <= used
    docs = (_text(FORMAT_MD), _text(VERBS_MD), _text(SPEC / "hkk-effects.md"),
            _text(SPEC / "hkk-reactions.md"))
    assert sorted(used - documented_arguments(*docs)) == []
    no_split = docs[1].replace("| `damage.split`, `heal.split` |", "| `heal.split` |")
    assert no_split != docs[1]
    assert sorted(used - documented_arguments(docs[0], no_split, *docs[2:])) == [("damage", "split")]
    no_wait = [d.replace("| `play.wait`, `activate.wait` |", "| `activate.wait` |") for d in docs]
    assert no_wait[1] != docs[1] and no_wait[3] != docs[3]
    assert sorted(used - documented_arguments(*no_wait)) == [("play", "wait")]


# -- effect_prevented ----------------------------------------------------------

def effect_prevented_problems(runs, rules_md: str) -> list[str]:
    """Every `effect_prevented` carries only the fields the table of "Actions and effects"
    names, `player` only for the verbs it lists (and a discard's card)."""
    lines = [x for x in section(rules_md, "Actions and effects").splitlines() if x.startswith("| ")]
    whole = next((x for x in lines if x.startswith("| a whole step")), "")
    player_verbs = set(re.findall(r"`([a-z_]+)`", whole.split("`player`, for", 1)[-1].split(" only", 1)[0]))
    fields = " ".join(x.split("|")[2] for x in lines[1:])          # the second cells, below the header
    allowed = {"card", "target", "player", "source"} & set(re.findall(r"`([a-z_]+)`", fields))
    out = set()
    for r in runs:
        for e in r.events:
            if e["event"] != "effect_prevented":
                continue
            extra = set(e) - {"event", "verb", "clause", "clauses"} - allowed      # `clauses`: any event
            if extra:
                out.add(f"{e['verb']}: {sorted(extra)}")
            if "player" in e and e["verb"] not in player_verbs | {"discard"}:
                out.add(f"{e['verb']}: player")
    return sorted(out)


def test_effect_prevented_carries_the_fields_the_rules_name(reference):
    md = _text(RULES_MD)
    assert effect_prevented_problems(reference, md) == []
    fewer = md.replace("`sacrifice`, `sacrifice_hp`", "`sacrifice_hp`", 1)
    assert fewer != md
    assert effect_prevented_problems(reference, fewer) == ["sacrifice: player"]


# -- the order of events -------------------------------------------------------
# Each scenario names a row of hkk-rules.md "The order within a step" (or a heading: the
# "Every step" list) and events in the notation of the page (`name` or `name {field: value}`);
# the reference runs it, and the first event matching each (from step `from` on) must come in
# the order in which the row first names it.

ORDER_SCENARIOS = yaml.safe_load(r"""
- row: "`play` of a permanent"
  given:
    players:
      A: {vp: 5, components: 2, reserve: [b1], table: [s1], hand: [c1, m1], deck: [d1, d2, d3, d4, d5]}
      B: {hand: [x1], reserve: [p1]}
    cards:
      b1: {kind: creature, damage: 1, hp: 1}
      s1: {kind: item}
      m1: {kind: instant}
      x1: {kind: instant}
      p1: {kind: creature, damage: 1, hp: 1, abilities: [{keyword: penalty, hp: 1}]}
      d1: {kind: item}
      d2: {kind: item}
      d3: {kind: item}
      d4: {kind: item}
      d5: {kind: item}
      c1: {kind: creature, damage: 2, hp: 2, cost: {vp: 1, components: 1, builders: 1, sacrifice: 1, nekron: 1},
           abilities: [{keyword: life, x: 1}, {keyword: muscle, x: 1}, {keyword: blocking, x: 1}, {keyword: anti_magic, x: 1}],
           effects: [{move: {card: p1, to: hand}}]}
  when:
    - play: {player: A, card: c1, pay: {builders: [b1], sacrifice: [s1], muscle: [m1]}}
  check: [vp_spent, components_spent, passivated, sacrificed, "moved {cause: nekron}", played, "moved {cause: play}",
          "counter_added {counter: life, clause: 134.4}", discarded, "counter_added {counter: muscle}",
          max_vp_changed, hand_revealed, penalty]
- row: "`play` of an instant or sorcery"
  given:
    players:
      A: {hand: [i1]}
      B: {reserve: [x1]}
    cards:
      i1: {kind: instant, effects: [{move: {card: x1, to: hand}}]}
      x1: {kind: creature, damage: 1, hp: 1, abilities: [{keyword: penalty, hp: 2}, {keyword: compensation, vp: 1}]}
  when:
    - play: {player: A, card: i1}
  check: [played, penalty, compensation, "moved {cause: resolve}"]
- row: "`activate` of a card's own ability"
  given:
    players:
      A: {vp: 2, table: [k1]}
      B: {reserve: [x1]}
    cards:
      k1: {kind: item, abilities: [{keyword: bounce, cost: {vp: 1, passivate: true}, effects: [{move: {card: x1, to: hand}}]}]}
      x1: {kind: creature, damage: 1, hp: 1, abilities: [{keyword: penalty, hp: 2}]}
  when:
    - activate: {player: A, card: k1, ability: bounce}
  check: [vp_spent, passivated, ability_activated, penalty]
- row: "`activate` of `regeneration`"
  from: 1
  given:
    players:
      A: {vp: 5, reserve: [c1]}
    cards:
      c1: {kind: creature, damage: 1, hp: 2, abilities: [{keyword: regeneration}]}
  when:
    - damage: {target: c1, amount: 3, by: B}
    - activate: {player: A, card: c1, ability: regeneration, x: 2}
  check: [vp_spent, ability_activated, healed, saved]
- row: "`activate` of `shadow`"
  given:
    players:
      A: {vp: 2, reserve: [c1]}
    cards:
      c1: {kind: creature, damage: 1, hp: 2, abilities: [{keyword: shadow, cost: {vp: 1}}]}
  when:
    - activate: {player: A, card: c1, ability: shadow}
  check: [vp_spent, ability_activated, "moved {cause: shadow}"]
- row: "`activate` of `direct_damage`"
  from: 1
  given:
    turn: {active: A, phase: combat}
    players:
      A: {vp: 3, guard_post: [a1]}
      B: {guard_post: [g1]}
    cards:
      a1: {kind: creature, damage: 1, hp: 3, abilities: [{keyword: direct_damage, x: 2}]}
      g1: {kind: creature, damage: 1, hp: 1}
  when:
    - attack: {player: A, attacks: [{attacker: a1, target: g1}]}
    - activate: {player: A, card: a1, ability: direct_damage, x: 2, targets: [g1]}
  check: ["combat_step {step: IV}", vp_spent, combat_ability, damaged, dying]
- row: "`attack`"
  given:
    turn: {active: A, phase: combat}
    players:
      A: {guard_post: [a1, a2]}
      B: {guard_post: [g1]}
    cards:
      a1: {kind: creature, damage: 1, hp: 3}
      a2: {kind: creature, damage: 1, hp: 3}
      g1: {kind: creature, damage: 1, hp: 2}
  when:
    - attack: {player: A, attacks: [{attacker: a1, target: g1}, {attacker: a2, target: g1}]}
    - strike_back: {player: B, defender: g1, attacker: a2}
  check: [attack_declared, "combat_step {step: III}"]
- row: "`strike_back`"
  from: 1
  given:
    turn: {active: A, phase: combat}
    players:
      A: {guard_post: [a1, a2]}
      B: {guard_post: [g1]}
    cards:
      a1: {kind: creature, damage: 1, hp: 3}
      a2: {kind: creature, damage: 1, hp: 3}
      g1: {kind: creature, damage: 1, hp: 2}
  when:
    - attack: {player: A, attacks: [{attacker: a1, target: g1}, {attacker: a2, target: g1}]}
    - strike_back: {player: B, defender: g1, attacker: a2}
  check: [strike_back_chosen]
- row: "the strike (the combat phase ends, or `advance` to VI / VII)"
  from: 1
  given:
    turn: {active: A, phase: combat}
    players:
      A: {guard_post: [a1]}
      B: {guard_post: [g1]}
    cards:
      a1: {kind: creature, damage: 5, hp: 9, abilities: [{keyword: poison, x: 1}]}
      g1: {kind: creature, damage: 1, hp: 3, components_yield: 2}
  when:
    - attack: {player: A, attacks: [{attacker: a1, target: g1}]}
    - advance: {to: main2}
  check: [strike, damaged, "counter_added {counter: poison}", died, "moved {cause: destroy}", components_gained]
- row: "the strike (the combat phase ends, or `advance` to VI / VII)"
  from: 1
  given:
    turn: {active: A, phase: combat}
    players:
      A: {guard_post: [a1]}
      B: {guard_post: [g1]}
    cards:
      a1: {kind: creature, damage: 5, hp: 9}
      g1: {kind: creature, damage: 1, hp: 3}
  when:
    - attack: {player: A, attacks: [{attacker: a1, target: g1}]}
    - advance: {to: combat, step: VII}
  check: [combat_step, strike, damaged, dying, "combat_step {step: VII}"]
- row: "`advance`"
  given:
    turn: {active: A, phase: end}
    players:
      A: {hp: 15, reserve: [c1], table: [v1]}
      B: {turn: 4, reserve: [b2, b1], deck: [e1]}
    cards:
      c1: {kind: creature, damage: 1, hp: 3, wounds: 1}
      v1: {kind: enchantment, subtypes: [vizio]}
      b1: {kind: creature, damage: 1, hp: 3, active: false, counters: {poison: 1, sleep: 1}}
      b2: {kind: creature, damage: 1, hp: 1, counters: {poison: 1}}
      e1: {kind: item}
    lasting: [{id: t1, effect: {number: damage, add: 1}, affects: [c1], until: end_of_turn}]
    delayed: [{id: r1, at: end_of_turn, step: {heal: {target: A, amount: 1}}, by: A}]
  when:
    - advance: {to: main1}
  check: [resource_arrived, effect_ended, "moved {cause: effect}", wounds_healed, turn_started,
          phase_started, vp_gained, counter_added, died, counter_removed, activated,
          "moved {cause: draw}", drew]
- row: "`pass`"
  given:
    turn: {active: A, phase: main2}
  when:
    - pass: {player: A}
    - pass: {player: B}
  check: [passed, phase_ended, phase_started]
- row: "`start_game`"
  given:
    players:
      A: {deck: [a1, a2, a3, a4, a5, a6]}
      B: {deck: [b1, b2, b3, b4, b5, b6]}
    cards: {a1: {kind: item}, a2: {kind: item}, a3: {kind: item}, a4: {kind: item}, a5: {kind: item},
            a6: {kind: item}, b1: {kind: item}, b2: {kind: item}, b3: {kind: item}, b4: {kind: item},
            b5: {kind: item}, b6: {kind: item}}
  when:
    - start_game: {first: B}
  check: ["moved {cause: opening_hand}", turn_started, "phase_started {phase: preparation}", vp_gained,
          "phase_started {phase: draw}", "moved {cause: draw}", drew, "phase_started {phase: main1}"]
- row: "`exchange`"
  given:
    turn: {active: A, phase: exchange}
    players:
      A: {reserve: [c1], guard_post: [c2]}
    cards:
      c1: {kind: creature, damage: 1, hp: 1}
      c2: {kind: creature, damage: 1, hp: 1}
  when:
    - exchange: {player: A, guard_post: [c1], reserve: [c2]}
  check: ["moved {cause: exchange}"]
- row: "`sacrifice_for_components`"
  given:
    turn: {active: A, phase: preparation}
    players:
      A: {reserve: [c1, c2]}
    cards:
      c1: {kind: creature, damage: 1, hp: 1, components_yield: 2}
      c2: {kind: creature, damage: 1, hp: 1, components_yield: 1}
  when:
    - sacrifice_for_components: {player: A, cards: [c1, c2]}
  check: ["sacrificed {forced: false}", "moved {cause: sacrifice}", components_gained]
- row: "`choose`"
  from: 1
  given:
    players:
      A: {hand: [i1, h1, h2]}
    cards:
      i1: {kind: instant, effects: [{discard: {player: A, count: 1}}, {gain_vp: {player: A, amount: 1}}]}
      h1: {kind: instant}
      h2: {kind: instant}
  when:
    - play: {player: A, card: i1}
    - choose: {player: A, cards: [h2]}
  check: [moved, discarded]
- row: "a permanent leaving the table (any step)"
  given:
    players:
      A: {vp: 19, reserve: [c1], table: [e1], deck: [d1, d2]}
    cards:
      c1: {kind: creature, damage: 1, hp: 3, components_yield: 2, counters: {muscle: 2},
           abilities: [{keyword: penalty, hp: 2, vp: 1}, {keyword: compensation, hp: 1, vp: 1}]}
      e1: {kind: enchantment, attached_to: c1}
      d1: {kind: item}
      d2: {kind: item}
  when:
    - move: {card: c1, to: graveyard, by: B}
  check: [moved, components_gained, "moved {cause: attached}", penalty, damaged, compensation, vp_gained,
          decision_pending]
- row: "a permanent leaving the table (any step)"
  given:
    players:
      A: {reserve: [c1]}
    cards:
      c1: {kind: creature, damage: 1, hp: 3, components_yield: 2, premade: true}
  when:
    - move: {card: c1, to: void, by: B}
  check: [moved, removed_from_game, components_gained]
- row: "a permanent leaving the table (any step)"
  given:
    players:
      A: {reserve: [c1], deck: [d1]}
    cards:
      c1: {kind: creature, damage: 1, hp: 3}
      d1: {kind: item}
  when:
    - move: {card: c1, to: deck_shuffle}
  check: [moved, shuffled]
- row: "`sacrifice`"
  given:
    players:
      A: {vp: 3, reserve: [c1]}
    cards:
      c1: {kind: creature, damage: 1, hp: 3, components_yield: 1, counters: {muscle: 1},
           abilities: [{keyword: penalty, hp: 2}, {keyword: compensation, vp: 1}]}
  when:
    - sacrifice: {player: A, card: c1, forced: true, by: B}
  check: [sacrificed, moved, components_gained, penalty, compensation, decision_pending]
- row: "`steal` (also seduction)"
  given:
    players:
      A: {vp: 3, reserve: [c1], table: [e1]}
    cards:
      c1: {kind: creature, damage: 1, hp: 3, counters: {muscle: 1},
           abilities: [{keyword: penalty, hp: 2}, {keyword: compensation, vp: 1}]}
      e1: {kind: enchantment, attached_to: c1}
  when:
    - steal: {card: c1, to: B, by: B}
  check: ["moved {cause: steal}", "moved {cause: attached}", control_changed, penalty, compensation,
          decision_pending]
- row: "`damage`"
  given:
    players:
      A: {reserve: [c1]}
    cards:
      c1: {kind: creature, damage: 1, hp: 2}
  when:
    - damage: {target: c1, amount: 5, by: B}
  check: [damaged, dying, died]
- row: "`damage`"
  given:
    players:
      B: {table: [b1]}
    cards:
      b1: {kind: building, hp: 2}
  when:
    - damage: {target: b1, amount: 2}
  check: [damaged, destroyed, "moved {cause: destroy}"]
- row: "`heal`"
  given:
    players:
      A: {hp: 18}
  when:
    - heal: {target: A, amount: 5}
  check: [healed, hp_excess_lost]
- row: "`draw`"
  given:
    players:
      A: {deck: [d1, d2]}
    cards: {d1: {kind: item}, d2: {kind: item}}
  when:
    - draw: {player: A, count: 2}
  check: ["moved {cause: draw}", drew]
- row: "`discard`"
  given:
    players:
      A: {hand: [h1]}
    cards: {h1: {kind: item}}
  when:
    - discard: {player: A, count: 1}
  check: ["moved {cause: discard}", discarded]
- row: "`mill`"
  given:
    players:
      A: {deck: [d1]}
    cards: {d1: {kind: item}}
  when:
    - mill: {player: A, count: 1}
  check: ["moved {cause: mill}", milled]
- row: "`exile`"
  given:
    players:
      A: {graveyard: [g1]}
    cards: {g1: {kind: item}}
  when:
    - exile: {card: g1}
  check: ["moved {cause: exile}", exiled]
- row: "`search`"
  given:
    players:
      A: {deck: [d1, d2]}
    cards: {d1: {kind: item}, d2: {kind: item}}
  when:
    - search: {player: A, card: d2}
  check: ["moved {cause: search}", shuffled]
- row: "`search`"
  given:
    players:
      A: {deck: [d1, d2]}
    cards: {d1: {kind: item}, d2: {kind: item}}
  when:
    - search: {player: A, card: d2, to: graveyard}
  check: ["moved {cause: mill}", milled]
- row: "`create`"
  when:
    - create: {player: A, card: {id: t1, kind: item}, zone: deck}
  check: [created, "moved {cause: create}", removed_from_game]
- row: "`gain_vp`"
  given:
    players:
      A: {vp: 19}
  when:
    - gain_vp: {player: A, amount: 3}
  check: [vp_gained, vp_excess_lost]
- row: "`change_max_hp`, `change_max_vp`"
  when:
    - change_max_hp: {player: A, delta: -3}
  check: [max_hp_changed, hp_excess_lost]
- row: "`sacrifice_max_hp`"
  when:
    - sacrifice_max_hp: {player: A, amount: 3}
  check: [max_hp_sacrificed, hp_sacrificed]
- row: "`put_counter`"
  given:
    players:
      A: {guard_post: [c1]}
    cards: {c1: {kind: creature, damage: 1, hp: 1}}
  when:
    - put_counter: {card: c1, counter: sleep, count: 1}
  check: [counter_added, "moved {cause: effect}", passivated]
- row: "`repeat`"
  given:
    players:
      A: {graveyard: [s1]}
    cards: {s1: {kind: sorcery, effects: [{gain_vp: {player: A, amount: 1}}, {damage: {target: "$target", amount: 1}}]}}
  when:
    - repeat: {card: s1}
  check: ["effect_prevented {clause: 106.2}", repeated]
- row: "a replaced event"
  given:
    players:
      A: {table: [r1]}
    cards:
      r1: {kind: item, replace: [{event: gain_vp, scope: controller, instead: [{draw: {player: A, count: 1}}]}]}
  when:
    - gain_vp: {player: A, amount: 2}
  check: [replaced]
- row: "`delay`, `add_effect`"
  when:
    - delay: {at: end_of_phase, step: {gain_vp: {player: A, amount: 1}}}
    - add_effect: {effect: {number: max_hp, add: 1, scope: controller}}
  check: [resource_delayed, effect_started]
- row: "### Every step"
  from: 2
  given:
    players:
      A: {reserve: [c1, c2, c3], deck: [d1]}
    cards:
      c1: {kind: creature, damage: 1, hp: 1, counters: {muscle: 1}}
      c2: {kind: creature, damage: 1, hp: 1, counters: {muscle: 1}}
      c3: {kind: creature, damage: 1, hp: 1}
      d1: {kind: item}
  when:
    - damage: {target: c1, amount: 5, by: B}
    - damage: {target: c2, amount: 5, by: B}
    - damage: {target: c3, amount: 5, by: B}
  check: [muscle_reward, died, dying, decision_pending]
""")

TOKEN = re.compile(r"^([a-z_]+)(?: \{(.*)\})?$")


def event_token(text: str) -> tuple[str, dict[str, str]] | None:
    """`name` or `name {field: value, …}` as (name, {field: value}); None unless it names an event."""
    m = TOKEN.match(text.strip())
    if not m or m.group(1) not in vocab.EVENTS:
        return None
    fields = {}
    for part in (m.group(2) or "").split(","):
        if ":" in part:
            key, _, value = part.partition(":")
            fields[key.strip()] = value.strip().strip('"')
    return m.group(1), fields


def order_row(rules_md: str, row: str) -> list[tuple[str, dict[str, str]]] | None:
    """The events a row of "The order within a step" names (its second cell), or those of a
    section (`### heading`), in order."""
    if row.startswith("#"):
        text = section(rules_md, row.lstrip("# "))
    else:
        cells = next((c for c in [[x.strip() for x in re.split(r"(?<!\\)\|", line)[1:-1]]
                                   for line in section(rules_md, "The order within a step").splitlines()
                                   if line.startswith("|")] if c and c[0] == row), None)
        if cells is None:
            return None
        text = cells[1]
    return [t for t in map(event_token, re.findall(r"`([^`]+)`", text)) if t]


def _matches(event: dict, name: str, fields: dict[str, str]) -> bool:
    """The event is `name` with these fields, written as the page writes them (`forced: false`)."""
    def shown(value) -> str:
        return value if isinstance(value, str) else json.dumps(value)
    return event.get("event") == name and all(k in event and shown(event[k]) == v for k, v in fields.items())


def order_problems(scenario: dict, rules_md: str) -> list[str]:
    """Where the reference's events of `scenario` and the order the rules page states differ."""
    from model import engine
    from model.ruleset import load_ruleset
    from model.state import from_given
    named = order_row(rules_md, scenario["row"])
    if named is None:
        return [f"no row {scenario['row']}"]
    given, when = scenario.get("given") or {}, scenario["when"]
    run = engine.run_case(given, when)
    assert run.refused is None, run.refused
    rules, state, offset = load_ruleset("kodex"), None, 0
    state = from_given(given, rules)
    for step in when[:scenario.get("from", 0)]:           # the events of the steps before `from`
        out = engine.apply(state, step, rules)
        state, offset = out.state, offset + len(out.events)
    events = run.events[offset:]
    where_named, where_seen, problems = [], [], []
    for item in scenario["check"]:
        name, fields = event_token(item)
        at = next((i for i, (n, f) in enumerate(named) if n == name and fields.items() <= f.items()), None)
        seen = next((i for i, e in enumerate(events) if _matches(e, name, fields)), None)
        if at is None:
            problems.append(f"{scenario['row']}: does not name {item}")
        if seen is None:
            problems.append(f"{scenario['row']}: the reference emits no {item}")
        where_named.append(at)
        where_seen.append(seen)
    if not problems:
        by_row = [item for _, item in sorted(zip(where_named, scenario["check"]))]
        by_run = [item for _, item in sorted(zip(where_seen, scenario["check"]))]
        if by_row != by_run:
            problems.append(f"{scenario['row']}: the row says {by_row}, the reference emits {by_run}")
    return problems


@pytest.mark.parametrize("scenario", ORDER_SCENARIOS, ids=lambda s: s["row"].strip("`#  "))
def test_the_order_of_events_is_the_references(scenario):
    assert order_problems(scenario, _text(RULES_MD)) == []


def test_every_row_of_the_order_table_is_checked():
    rows = [c[0] for c in ([x.strip() for x in re.split(r"(?<!\\)\|", line)[1:-1]]
                           for line in section(_text(RULES_MD), "The order within a step").splitlines()
                           if line.startswith("|")) if c[0] not in ("step", "---")]
    assert sorted(set(rows) - {s["row"] for s in ORDER_SCENARIOS}) == []


def test_the_order_check_names_a_deleted_event_or_a_swapped_order():
    md = _text(RULES_MD)
    steal = next(s for s in ORDER_SCENARIOS if s["row"] == "`steal` (also seduction)")
    no_penalty = md.replace("`penalty`, `compensation` (taken from its owner's control)",
                            "`compensation` (taken from its owner's control)")
    swapped = md.replace("`penalty`, `compensation` (taken from its owner's control)",
                         "`compensation`, `penalty` (taken from its owner's control)")
    assert no_penalty != md and swapped != md
    assert order_problems(steal, no_penalty) == ["`steal` (also seduction): does not name penalty"]
    assert order_problems(steal, swapped)[0].startswith("`steal` (also seduction): the row says")
    assert order_problems({**steal, "row": "`steal`"}, md) == ["no row `steal`"]
