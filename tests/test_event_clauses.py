"""Every event the reference engine emits carries the clause (or clauses) that produced it
(model/event_clauses.py, applied in Game.emit), and every such clause is in the catalog.

Run over the whole corpus, under each case's ruleset: an event type the engine starts to emit
without registering its clause fails here, with the case and the event named."""
from __future__ import annotations

from collections import Counter

import pytest

from conformance.catalog import load_catalog
from conformance.loader import load_files
from conformance.runner import choose_ruleset, run_reference
from model import event_clauses
from model.event_clauses import clauses_of, stamp


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture(scope="module")
def corpus_events():
    """(case id, ruleset, event) for every event of every case of the corpus."""
    res = load_files()
    assert not res.errors
    out = []
    for case in res.cases:
        rulesets = list(case.rulesets or []) or [choose_ruleset(case)[0]]
        for rs in rulesets:
            run = run_reference(case, rs)
            out.extend((case.id, rs, ev) for ev in run.events)
    return out


def test_every_registered_clause_is_in_the_catalog(catalog):
    named = set(event_clauses.EVENT.values())
    for _field, table, default in event_clauses.BY_FIELD.values():
        named |= set(table.values()) | {default}
    for _field, table in event_clauses.ALSO.values():
        named |= set(table.values())
    missing = sorted(c for c in named if c not in catalog)
    assert not missing, f"clauses of model/event_clauses.py not in the catalog: {missing}"


def test_every_event_of_the_corpus_carries_a_catalog_clause(corpus_events, catalog):
    assert len(corpus_events) > 5000
    kinds: Counter = Counter()
    problems = []
    for cid, rs, ev in corpus_events:
        kinds[ev["event"]] += 1
        named = list(ev.get("clauses") or [])
        if named and ev.get("clause") is not None and ev["clause"] != named[0]:
            problems.append(f"{cid} [{rs}]: {ev['event']}: clause {ev['clause']!r} is not the "
                            f"first of clauses {named}")
        if ev["event"] in event_clauses.PLAIN and ev.get("clause") is None:
            problems.append(f"{cid} [{rs}]: {ev['event']} has no clause")
        if not named:
            problems.append(f"{cid} [{rs}]: {ev['event']} carries no clause: register it in "
                            f"model/event_clauses.py ({ev})")
            continue
        for c in named:
            if c not in catalog:
                problems.append(f"{cid} [{rs}]: {ev['event']} names {c!r}, not in the catalog")
    assert not problems, "\n".join(problems[:20]) + (f"\n… {len(problems)} in all" if len(problems) > 20 else "")
    # the corpus reaches most event types: the registry is exercised, not only its table
    assert len(kinds) >= 50, sorted(kinds)


def test_a_clause_the_call_names_is_kept_and_an_undecided_conflict_names_none():
    ev = {"event": "counter_prevented", "card": "c1", "counter": "poison", "clause": "132.3"}
    stamp(ev)
    assert ev["clause"] == "132.3" and ev["clauses"] == ["132.3"]
    undecided = {"event": "conflict_resolved", "policy": "mk-5.10", "unresolved": True}
    stamp(undecided)                      # no rule named one: `clause: null` still matches
    assert "clause" not in undecided and undecided["clauses"] == ["mk:5.10"]
    died = {"event": "died", "card": "c1", "clause": "121.1"}      # a poison death names its own
    stamp(died)
    assert died["clause"] == "121.1" and died["clauses"] == ["121.1"]
    moved = {"event": "moved", "card": "c1", "from": "reserve", "to": "void", "cause": "effect",
             "counts_as": "graveyard"}
    stamp(moved)
    assert moved["clause"] == "97.0" and moved["clauses"] == ["97.0", "4.16.2"]
    assert clauses_of({"event": "no_such_event"}) == []


def test_the_clause_follows_the_field_that_tells_the_rule(corpus_events):
    seen = {}
    for _cid, _rs, ev in corpus_events:
        if ev["event"] == "moved":
            seen.setdefault(ev["cause"], ev["clause"])
    assert seen["draw"] == "4.12.0" and seen["exile"] == "4.16.0" and seen["destroy"] == \
        "rb7:lapok-elpusztitasa"



def test_the_registry_writes_no_field_a_case_may_name():
    """`clause` is written by the registry only on events whose vocabulary row does not list
    it (a case naming it there is an input error), `clauses` is in no event's row: whatever
    the registry says, no well-formed case can require it (the corpus never does)."""
    from conformance import vocabulary as vocab
    events = vocab.vocabulary(2)["events"]          # every version's
    listed = {name for name, ev in events.items() if "clause" in ev.fields}
    assert event_clauses.OWN_CLAUSE == listed
    assert not any("clauses" in ev.fields for ev in events.values())
    ev = {"event": "counter_added", "card": "c1", "counter": "poison", "count": 1}
    stamp(ev)
    assert "clause" not in ev and ev["clauses"] == ["121.1"]
    assert set(event_clauses.PLAIN) | event_clauses.OWN_CLAUSE == set(events)
