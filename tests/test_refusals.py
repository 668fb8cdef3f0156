"""The refusal table (conformance/refusals.yaml, docs/spec/hkk-refusals.md) against the engine's
refusal sites, what the engine refuses over the corpus and random play, and what the corpus
expects (issue 24: the contract states every refusal clause a case checks)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conformance import refusals
from conformance.loader import load_files
from conformance.matching import clause_matches, step_verbs
from conformance.runner import choose_ruleset, run_reference
from model import engine

ROOT = Path(__file__).resolve().parents[1]
TABLE = refusals.load_table()


@pytest.fixture(scope="module")
def corpus_runs():
    """(case, result) of every corpus case, run in-process."""
    loaded = load_files()
    assert not loaded.errors
    out = []
    for case in loaded.cases:
        ruleset, _ = choose_ruleset(case, None)
        out.append((case, run_reference(case, ruleset)))
    return out


def test_the_page_is_generated_from_the_table():
    assert refusals.DOC_PATH.read_text(encoding="utf-8") == refusals.markdown(), \
        "docs/spec/hkk-refusals.md is stale: run python -m conformance.vocabulary"


# --------------------------------------------------------------------------
# the table itself

def _table_text(tmp_path, text: str) -> str:
    p = tmp_path / "t.yaml"
    p.write_text(text, encoding="utf-8")
    return str(p)


GOOD = """\
format: hkk-refusals/1
situations:
  a: {clause: "1.1", when: x}
  b: {clause: "1.2", when: y, also: ["1.3"]}
before_every_step: [a]
actions:
  play: [b]
effects: []
"""


@pytest.mark.parametrize("change, message", [
    (("play: [b]", "play: [b, nope]"), "unknown situation 'nope'"),
    (("play: [b]", "play: [b, b]"), "names a situation twice"),
    (("play: [b]", "play: []"), "situations no verb uses: b"),
    (('b: {clause: "1.2"', 'a: {clause: "1.2"'), "a defined twice"),
    (("when: y,", "when: y, outcome: maybe,"), "unknown outcome"),
    (("hkk-refusals/1", "hkk-refusals/9"), "format must be"),
])
def test_a_malformed_table_is_an_error(tmp_path, change, message):
    refusals.load_table(_table_text(tmp_path, GOOD))          # the good one loads
    bad = _table_text(tmp_path, GOOD.replace(*change))
    with pytest.raises(refusals.TableError, match=message):
        refusals.load_table.__wrapped__(bad)


def test_alternatives_are_per_verb_and_clause(tmp_path):
    t = refusals.load_table(_table_text(tmp_path, GOOD))
    assert t.alternatives("play", "1.2") == {"1.3"}
    assert t.alternatives("play", "1.3") == frozenset()
    assert t.alternatives("attack", "1.2") == frozenset()
    assert t.refusal_clauses("play") == {"1.1", "1.2", "1.3"}
    assert t.refusal_clauses("choose") == set()              # the gates are not choose's


# --------------------------------------------------------------------------
# the engine's refusal sites

def _module_constants(tree: ast.Module) -> dict[str, ast.AST]:
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name) and node.value is not None:
                    out[t.id] = node.value
    return out


def _strings(node: ast.AST, consts: dict[str, ast.AST], seen: set[str] | None = None) -> tuple[set[str], bool]:
    """The string constants an expression may evaluate to (module constants followed), and whether
    a part of it is not known statically (a parameter, a call's result)."""
    seen = set() if seen is None else seen
    found, dynamic = set(), False
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            found.add(sub.value)
        elif isinstance(sub, ast.Name) and sub.id not in seen:
            if sub.id in consts:
                seen.add(sub.id)
                more, dyn = _strings(consts[sub.id], consts, seen)
                found |= more
                dynamic |= dyn
            elif sub.id[:1].islower() and sub.id not in ("g", "self"):
                dynamic = True
    return found, dynamic


def _refusal_sites():
    """(file:function, clause strings, dynamic?) of every `refuse(...)` call in model/."""
    for path in sorted((ROOT / "model").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        consts = _module_constants(tree)
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.Lambda)):
                continue
            for call in ast.walk(fn):
                if isinstance(call, ast.Call) and getattr(call.func, "attr", None) == "refuse" \
                        and call.args:
                    clauses, dynamic = _strings(call.args[0], consts)
                    for kw in call.keywords:
                        if kw.arg == "also":
                            more, _ = _strings(kw.value, consts)
                            clauses |= more
                    name = getattr(fn, "name", "<lambda>")
                    yield f"{path.name}:{name}", {c for c in clauses if _looks_like_clause(c)}, dynamic


def _looks_like_clause(s: str) -> bool:
    return s[:1].isdigit() or s.startswith(("rb7:", "mk:"))


# refusal sites whose clause comes from elsewhere: the values each may take are in the table too
DYNAMIC_SITES = {
    "effects.py:_targets_and_amounts": {"111.1.4", "111.2.4"},
    "effects.py:sacrifice_permanent": {"104.0", "105.0"},
    "keywords.py:check_targets": {"132.4", "132.5", "132.6", "132.7", "132.8"},
    "resources.py:spend": {"4.20.3"},
}


def test_every_clause_the_engine_refuses_with_is_in_the_table():
    in_table = {c for s in TABLE.situations.values() for c in (s.clause, *s.also)}
    dynamic = {}
    for site, clauses, is_dynamic in _refusal_sites():
        missing = clauses - in_table
        assert not missing, f"{site} refuses with {sorted(missing)}, which conformance/refusals.yaml lacks"
        if is_dynamic and not clauses:
            dynamic[site] = set()
    assert set(dynamic) <= set(DYNAMIC_SITES), \
        f"refusal sites whose clause is not a constant, not reviewed: {sorted(set(dynamic) - set(DYNAMIC_SITES))}"
    for site, values in DYNAMIC_SITES.items():
        assert values <= in_table, (site, sorted(values - in_table))


def test_the_static_scan_sees_refusal_sites():
    sites: dict[str, set[str]] = {}
    for site, clauses, _ in _refusal_sites():
        sites.setdefault(site, set()).update(clauses)
    assert "4.21.0" in sites["play.py:announce"] and "rb7:harci-fazis.II" in sites["combat.py:attack"]
    assert len(sites) > 30


# --------------------------------------------------------------------------
# what the engine refuses, and what the corpus expects

def _check_refusal(verb: str, refused: dict, where: str) -> None:
    clause = refused["clause"]
    assert clause in TABLE.refusal_clauses(verb), \
        f"{where}: a {verb} step refused under {clause}: no row of the refusal table for {verb} names it"
    extra = set(refused.get("clauses", [clause])[1:]) - TABLE.alternatives(verb, clause)
    assert not extra, (f"{where}: a {verb} refusal under {clause} adds co-clauses {sorted(extra)} "
                       "the refusal table does not list for it")


def test_every_refusal_over_the_corpus_has_its_row(corpus_runs):
    n = 0
    for case, res in corpus_runs:
        if res.refused is not None:
            n += 1
            _check_refusal(step_verbs(case.when)[res.refused["step"]], res.refused, case.id)
    assert n > 300


def test_every_prevented_effect_over_the_corpus_has_its_row(corpus_runs):
    rows = {}
    for verbs, sid in TABLE.effects:
        s = TABLE.situations[sid]
        for v in verbs:
            rows.setdefault(v, set()).update((s.clause, *s.also))
    seen = 0
    for case, res in corpus_runs:
        for ev in res.events:
            if ev["event"] in ("effect_prevented", "counter_prevented"):
                seen += 1
                verb = ev.get("verb", "put_counter")
                assert ev["clause"] in rows.get(verb, set()) | rows["*"], (case.id, ev)
    assert seen > 50


def test_every_refusal_in_random_play_has_its_row():
    from properties.driver import drive
    seen = []

    def stepper(state, step, rules, i):
        out = engine.apply(state, step, rules)
        if out.refusal is not None:
            (verb,) = step
            seen.append((verb, {"clause": out.refusal.clause, "clauses": out.refusal.clauses}))
        return out

    for seed in range(12):
        drive(seed, 150, stepper=stepper, keep_states=False)
    assert len({v for v, _ in seen}) >= 3, seen[:5]
    for verb, refused in seen:
        _check_refusal(verb, refused, f"random play, {verb}")


def bare_refusals(cases) -> list[str]:
    """The cases that expect a step refused without naming the clause (`error: true`, or `error`
    with a `step` only): a refusal for any reason would pass them."""
    return [c.id for c in cases
            if (c.then or {}).get("error") not in (None, False)
            and not (isinstance(c.then["error"], dict) and c.then["error"].get("clause"))]


def test_every_refusal_the_corpus_expects_names_its_clause(corpus_runs):
    assert bare_refusals(case for case, _ in corpus_runs) == []
    from conformance.loader import Case
    made = [Case(id="t", clause="3.3", then={"error": True}),
            Case(id="s", clause="3.3", then={"error": {"step": 1}}),
            Case(id="ok", clause="3.3", then={"error": {"clause": "4.21.0"}})]
    assert bare_refusals(made) == ["t", "s"]


def test_every_clause_the_corpus_expects_is_in_the_table_of_its_verb(corpus_runs):
    n = 0
    for case, _res in corpus_runs:
        err = (case.then or {}).get("error")
        if not isinstance(err, dict) or err.get("clause") is None:
            continue
        n += 1
        step = err.get("step", len(case.when) - 1)
        verb = step_verbs(case.when)[step]
        assert any(clause_matches(err["clause"], c) for c in TABLE.refusal_clauses(verb)), \
            f"{case.id} expects a {verb} refused under {err['clause']}: not in the refusal table for {verb}"
    assert n > 300
