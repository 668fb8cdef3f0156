"""kodex strength (properties/strength.py) on a tiny synthetic engine and corpus.

No full mutation run here: a three-function package written to tmp_path, a
handful of Cosmic Ray operators, and an oracle of four plain cases. What is
checked: the mapping mutant → clauses, the score arithmetic, the report shape,
the equivalence file's validation, timeouts, and the incremental cache (a
second run on unchanged inputs runs no mutant; an edit reruns only what it
must).
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import re
import sys
import time
import uuid
from pathlib import Path

import pytest

pytest.importorskip("cosmic_ray")

from properties import strength as S  # noqa: E402

TINY = '''"""A tiny engine. Clauses: 1.1, 1.2."""
from __future__ import annotations


def cap(x: int | None, limit: int) -> int:
    """Never above the limit (2.1)."""
    if x > limit:
        return limit
    return x


def double(x):
    """Twice as much (3.1)."""
    return x * 2


def spin(n):
    """Counts up to n (4.1)."""
    i = 0
    while i < n:
        i = i + 1          # 4.2
        sleep(0.0005)      # the mutant that never ends waits instead of burning a core
    return i


def helper(v):
    return not v


from time import sleep
'''

OPERATORS = [
    "core/ReplaceComparisonOperator_Gt_GtE",      # cap: x >= limit (equivalent)
    "core/ReplaceComparisonOperator_Gt_Lt",       # cap: x < limit (killed)
    "core/ReplaceBinaryOperator_Mul_Add",         # double: x + 2 (survives 2 → 4)
    "core/ReplaceBinaryOperator_Add_Sub",         # spin: i - 1 (hangs: timeout)
    "core/ReplaceBinaryOperator_BitOr_BitAnd",    # int & None in an annotation
]

CASES = [
    {"id": "2.1/cap-above", "clause": "2.1", "fn": "cap", "args": [5, 3], "want": 3},
    {"id": "2.1/cap-below", "clause": "2.1", "fn": "cap", "args": [1, 3], "want": 1},
    {"id": "3.1/double-two", "clause": "3.1", "fn": "double", "args": [2], "want": 4},
    {"id": "4.1/spin-three", "clause": "4.1", "fn": "spin", "args": [3], "want": 3},
]

EQUIVALENT = """
rules:
  - where: annotation
    reason: annotations are never evaluated
mutants:
  - function: "{pkg}.core:cap"
    operator: core/ReplaceComparisonOperator_Gt_GtE
    change: "if x>limit: → if x>=limit:"
    reason: at x == limit both branches return the same value
"""


class TinyOracle:
    """Plain cases: call ``fn(*args)`` of ``<package>.core`` and compare with ``want``."""

    def __init__(self, root: Path, package: str, cases: list[dict]):
        self.root, self.package, self.case_list = root, package, cases
        self.runs = 0

    def prepare(self) -> None:
        if str(self.root) not in sys.path:
            sys.path.insert(0, str(self.root))
        for name in [k for k in sys.modules if k == self.package or k.startswith(self.package + ".")]:
            del sys.modules[name]
        importlib.invalidate_caches()
        mod = importlib.import_module(f"{self.package}.core")
        self.cases, self.digests, self.durations, self.clauses = {}, {}, {}, {}
        for c in self.case_list:
            assert getattr(mod, c["fn"])(*c["args"]) == c["want"], c["id"]
            self.cases[c["id"]] = c
            self.digests[c["id"]] = hashlib.sha256(json.dumps(c, sort_keys=True).encode()).hexdigest()
            self.durations[c["id"]] = 0.0
            self.clauses[c["id"]] = [c["clause"]]
        self.corpus_digest = hashlib.sha256(json.dumps(self.case_list, sort_keys=True).encode()).hexdigest()
        self.baseline_seconds = 0.01
        self.baseline_failures = []

    def run(self, order):
        mod = importlib.import_module(f"{self.package}.core")
        for cid in order:
            c = self.cases[cid]
            try:
                got = getattr(mod, c["fn"])(*c["args"])
            except Exception as exc:
                return S.KILLED, cid, f"error: {exc}"
            if got != c["want"]:
                return S.KILLED, cid, f"fail: {got!r}"
        return S.SURVIVED, None, ""


@pytest.fixture()
def tiny(tmp_path):
    pkg = f"tiny_{uuid.uuid4().hex[:8]}"
    d = tmp_path / pkg
    d.mkdir()
    (d / "__init__.py").write_text("", encoding="utf-8")
    (d / "core.py").write_text(TINY, encoding="utf-8")
    eq = tmp_path / "equivalent.yaml"
    eq.write_text(EQUIVALENT.format(pkg=pkg), encoding="utf-8")
    yield {"root": tmp_path, "pkg": pkg, "dir": d, "eq": eq, "cache": tmp_path / "cache"}
    for name in [k for k in sys.modules if k == pkg or k.startswith(pkg + ".")]:
        del sys.modules[name]
    if str(tmp_path) in sys.path:
        sys.path.remove(str(tmp_path))


def _run(tiny, cases=CASES, **kw):
    oracle = TinyOracle(tiny["root"], tiny["pkg"], cases)
    data = S.run(package_dir=tiny["dir"], oracle=oracle, operators=OPERATORS,
                 cache_dir=tiny["cache"], equivalent=tiny["eq"], workers=2,
                 mutant_timeout=0.5, known=lambda cid: True,
                 title_of=lambda cid: cid.split(".")[0], **kw)
    return data


def _by(data, function, operator_part):
    found = [m for m in data["mutants"] if m["function"] == function and operator_part in m["operator"]]
    assert len(found) == 1, (function, operator_part, found)
    return found[0]


# ---------------------------------------------------------------------------
# mapping

def test_clause_map_comment_then_function_then_module():
    cmap = S.clause_map(TINY, known=lambda cid: cid != "1.2")
    assert cmap.module_ids == ["1.1"]                       # unknown ids are left out
    assert cmap.lookup(7) == (["2.1"], "docstring:cap", "cap")
    assert cmap.lookup(21) == (["4.2"], "comment", "spin")  # the line's own comment first
    assert cmap.lookup(20) == (["4.1"], "docstring:spin", "spin")
    assert cmap.lookup(26) == (["1.1"], "module", "helper")  # no docstring: the module's
    assert cmap.lookup(2) == (["1.1"], "module", "")
    assert cmap.in_annotation(5, 13) and not cmap.in_annotation(7, 7)


def test_enumerate_maps_each_mutant_to_its_clauses(tiny):
    ms = S.enumerate_mutants(tiny["dir"], OPERATORS, known=lambda cid: True)
    assert {m.file for m in ms} == {f"{tiny['pkg']}/core.py"}
    where = {(m.function, m.operator.split("/")[1]): m for m in ms}
    assert where[("cap", "ReplaceComparisonOperator_Gt_GtE")].clauses == ["2.1"]
    assert where[("cap", "ReplaceComparisonOperator_Gt_GtE")].line == 7
    assert where[("double", "ReplaceBinaryOperator_Mul_Add")].clauses == ["3.1"]
    assert where[("spin", "ReplaceBinaryOperator_Add_Sub")].clauses == ["4.2"]
    ann = where[("cap", "ReplaceBinaryOperator_BitOr_BitAnd")]
    assert ann.annotation and ann.line == 5
    assert all(m.module == f"{tiny['pkg']}.core" for m in ms)
    assert len({m.key for m in ms}) == len(ms)


RAISING = """\
class Bad(ValueError):
    pass

def check(n, kind):
    if n < 0:
        what = "negative" if n < -10 else "small"
        raise Bad(f"{what}: {n + 1}")
    if kind == "x":
        log = print("side effect")
        raise Bad("x")
    if n > 5:
        raise OtherError("n" * 2)
    return n + 1
"""


def test_raise_paths_are_only_the_code_that_ends_in_a_raise():
    cmap = S.ClauseMap(RAISING)
    assert cmap.raising(5, 7) is None                       # the guard: it runs on good input
    assert cmap.raising(6, 30) == "Bad"                     # an assignment before the raise
    assert cmap.raising(7, 25) == "Bad"                     # inside the raise
    assert cmap.raising(9, 14) == "Bad"                     # whatever the assignment calls, the
    assert cmap.raising(10, 8) == "Bad"                     # branch can only end in the raise
    assert cmap.raising(12, 22) == "OtherError"
    assert cmap.raising(13, 13) is None                     # the normal path
    assert cmap.raising(8, 7) is None                       # the second guard


def test_input_error_rule_matches_only_the_named_exceptions(tmp_path):
    p = tmp_path / "eq.yaml"
    p.write_text("rules: [{where: input-error, errors: [Bad], reason: only on bad input}]",
                 encoding="utf-8")
    eq = S.load_equivalents(p)
    m = _m(S.SURVIVED, ["1.1"])
    assert S.equivalence_of(m, eq) == (None, None)
    m.raises = "Bad"
    assert S.equivalence_of(m, eq) == ("only on bad input", None)
    m.raises = "OtherError"
    assert S.equivalence_of(m, eq) == (None, None)


def test_describe_change():
    assert S.describe_change("a\nif x > y:\nb\n", "a\nif x >= y:\nb\n") == "if x > y: → if x >= y:"
    assert S.change_snippet("a\nif x > y:  # 1.2\nb\n", "a\nif x >= y:  # 1.2\nb\n") == "if x>y: → if x>=y:"
    assert S.change_snippet("@property\ndef f(): pass\n", "def f(): pass\n") == "@property → (removed)"


@pytest.mark.parametrize("lines, normal", [
    (['st.info["in_strike"] = True            # 134.4.7'], 'st.info["in_strike"]=True'),
    (['if st.phase != "combat" or rec["struck"] or not rec["attacks"]:'],
     'if st.phase!="combat" or rec["struck"] or not rec["attacks"]:'),
    (["deal_damage(g, target, n,  None, combat=True)"], "deal_damage(g, target, n, None, combat=True)"),
    (["target = targets[ -1]"], "target=targets[-1]"),                 # cosmic-ray's own spacing
    (["x = f'{a or  b}:  {c!r:>3}'  # f-strings kept as written"], "x=f'{a or  b}:  {c!r:>3}'"),
    (["gifts = [{k: v for k, v in ab.items() if k != '_c'} for ab, _ in granted(g.state,"],
     "gifts=[{k:v for k, v in ab.items() if k!='_c'} for ab, _ in granted(g.state,"),   # a piece
    (["return (a +", "        b)  # wrapped"], "return (a+b)"),
    (["return (a + b)"], "return (a+b)"),
    (["def f(x: int = 0) -> int:"], "def f(x:int=0)->int:"),
])
def test_normal_source_drops_comments_and_layout(lines, normal):
    assert S.normal_source(lines) == normal


# ---------------------------------------------------------------------------
# the score

def _m(status, clauses, line=1):
    return S.Mutant(file="m.py", module="m", path="m.py", file_sha="0", operator="core/X",
                    occurrence=line, line=line, col=0, function="f", clauses=clauses,
                    mapped_by="module", status=status)


def test_score_arithmetic():
    ms = [_m(S.KILLED, ["1.1", "1.2"], 1), _m(S.TIMEOUT, ["1.1"], 2), _m(S.SURVIVED, ["1.2", "2.1"], 3),
          _m(S.EQUIVALENT, ["2.1"], 4), _m(S.SURVIVED, [], 5), _m(S.NO_MUTATION, ["1.1"], 6)]
    sc = S.score(ms, title_of=lambda c: c.split(".")[0])
    o = sc["overall"]
    assert (o["mutants"], o["killed"], o["timeout"], o["survived"], o["equivalent"], o["scored"]) == (5, 1, 1, 2, 1, 4)
    assert o["score"] == 50.0
    clauses = {r["id"]: r for r in sc["clauses"]}
    assert clauses["1.1"]["score"] == 100.0 and clauses["1.1"]["scored"] == 2
    assert clauses["1.2"]["score"] == 50.0
    assert clauses["2.1"]["score"] == 0.0 and clauses["2.1"]["equivalent"] == 1
    assert clauses["(no clause)"]["survived"] == 1
    titles = {r["id"]: r for r in sc["titles"]}
    # the first mutant cites 1.1 and 1.2 and counts once for title 1
    assert titles["1"]["mutants"] == 3 and titles["1"]["score"] == pytest.approx(66.67)
    assert titles["2"]["scored"] == 1 and titles["2"]["score"] == 0.0
    assert [r["id"] for r in sc["titles"]][0] in ("2", "(no clause)")       # lowest first
    assert S.score([_m(S.EQUIVALENT, ["1.1"])])["overall"]["score"] is None


# ---------------------------------------------------------------------------
# the equivalence file

DECL = "{function: 'm.a:f', operator: core/X, change: 'a → b', reason: r}"


@pytest.mark.parametrize("text, problem", [
    ("[1, 2]", ":1: a mapping"),
    ("bogus: []", "unknown keys"),
    ("rules: [{where: anywhere, reason: x}]", "rules.0: `where` must be one of annotation, input-error"),
    ("rules: [{where: input-error, reason: x}]", "errors"),
    ("rules: [{where: input-error, errors: [], reason: x}]", "errors"),
    ("rules: [{where: input-error, errors: ['not a name'], reason: x}]", "errors"),
    ("rules: [{where: annotation, errors: [E], reason: x}]", "unknown keys"),
    ("rules: [{where: annotation}]", "reason"),
    ("mutants:\n- {function: 'm.a:f', operator: core/X, change: 'a → b'}", ":2: mutants.0: `reason`"),
    ("mutants:\n- {file: a.py, line: 3, change: 'a → b', reason: r}",
     ":2: mutants.0.file: `file` is no longer a key"),
    ("mutants:\n- function: 'm.a:f'\n  operator: core/X\n  line: 3\n  change: 'a → b'\n  reason: r",
     ":4: mutants.0.line: `line` is no longer a key"),
    ("mutants: [{function: f, operator: core/X, change: 'a → b', reason: r}]", "`module:Class.function`"),
    ("mutants: [{function: 'm.a:f(x)', operator: core/X, change: 'a → b', reason: r}]", "function"),
    ("mutants: [{function: 'm.a:f', change: 'a → b', reason: r}]", "`operator`"),
    ("mutants: [{function: 'm.a:f', operator: core/X, change: 'a to b', reason: r}]", "before → after"),
    ("mutants: [{function: 'm.a:f', operator: core/X, change: 'a → b', reason: '  '}]", "reason"),
    ("mutants: [{function: 'm.a:f', operator: core/X, change: 'a → b', reason: r, why: r}]",
     "mutants.0.why: unknown key"),
    ("mutants: [{function: 'm.a:f', operator: core/X, change: 'a → b', count: 1, reason: r}]", "count"),
    ("mutants: [{function: 'm.a:f', operator: core/X, change: 'a → b', count: x, reason: r}]", "count"),
    ("mutants: [{function: 'm.a:f', operator: core/X, change: 'a → b', unused: x, reason: r}]", "unused"),
    ("mutants: [{function: 'm.a:f', operator: core/X, change: 'a → b', unused: {value: 'm.a:f'}, "
     "reason: r}]", "unused"),
    ("mutants: [{function: 'm.a:f', operator: core/X, change: 'a → b', unused: {field: 'm.a:C'}, "
     "reason: r}]", "module:Class.field"),
    (f"mutants:\n- {DECL}\n- {DECL.replace('a → b', 'a  →  b')}", ":3: mutants.1: listed twice (first at line 2)"),
    ("rules: [\n", ":2: not YAML"),
])
def test_equivalence_file_is_validated(tmp_path, text, problem):
    p = tmp_path / "eq.yaml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(S.EquivalenceError) as err:
        S.load_equivalents(p)
    assert str(err.value).startswith(f"{p}:") and problem in str(err.value)
    assert "\n" not in str(err.value)


# a reason that says a parameter, field, return value or default is never used or read
NEVER_READ = re.compile(r"(?=.*\b(parameter|argument|field|return value|default|attribute)s?\b)"
                        r"(?=.*\b(never|not|no longer) (used|read|reads|passed)\b)", re.I | re.S)


def test_project_equivalence_file_is_valid():
    eq = S.load_equivalents(S.DEFAULT_EQUIVALENT)
    for d in eq["mutants"]:
        assert (S.ROOT / (d.module.replace(".", "/") + ".py")).is_file(), d
        assert len(d.reason.split()) >= 4, d
        # a reason that says a value is never read states it as a claim the tool checks
        assert d.unused or not NEVER_READ.search(d.reason), (
            f"{S.DEFAULT_EQUIVALENT}:{d.line}: the reason says a parameter, field, return value or "
            f"default is never used or read: remove the dead code from model/, or state it as "
            f"`unused` (checked)")


@pytest.mark.parametrize("reason, flagged", [
    ("the `combat` parameter is never read", True),
    ("the return value is never used by a caller", True),
    ("every caller passes `builtin`: the default is never used", True),
    ("Computed.setting and .overridden are fields never read by the engine", True),
    ("a stray combat_step outside combat is never read", False),          # not the class
    ("magnitudes and unused parts are never negative", False),
])
def test_never_read_reasons_are_recognised(reason, flagged):
    assert bool(NEVER_READ.search(reason)) is flagged


def test_project_unused_claims_hold():
    """Every `unused` claim of the project's declarations is true of today's model/ and
    conformance/ (the run checks them too, every time)."""
    eq = S.load_equivalents(S.DEFAULT_EQUIVALENT)
    assert S.unused_claim_problems(eq, [S.DEFAULT_MODEL, *S.CorpusOracle.harness]) == []


def test_equivalence_matching():
    d = S.Declaration("m:f", "core/X", "a → b", "r")
    eq = {"rules": [], "mutants": [d]}
    m = _m(S.SURVIVED, [])
    m.snippet = "a  →  b"
    assert S.equivalence_of(m, eq) == ("r", 0)
    m.line = 40                                   # a line plays no part
    assert S.equivalence_of(m, eq) == ("r", 0)
    m.operator = "core/Y"                         # the operator does
    assert S.equivalence_of(m, eq) == (None, None)
    m.operator = "core/X"
    m.function = "g"                              # and the function
    assert S.equivalence_of(dataclasses.replace(m), eq) == (None, None)
    assert S.equivalence_of(dataclasses.replace(m, function="f", snippet="a → c"), eq) == (None, None)
    assert _m(S.SURVIVED, []).where == "m:f" and dataclasses.replace(m, function="").where == "m:<module>"


# ---------------------------------------------------------------------------
# a whole (tiny) run: statuses, report, cache

def test_run_statuses_and_report(tiny, tmp_path):
    data = _run(tiny)
    assert _by(data, "cap", "Gt_Lt")["status"] == S.KILLED
    assert _by(data, "cap", "Gt_Lt")["killer"].startswith("2.1/")
    eq = _by(data, "cap", "Gt_GtE")
    assert eq["status"] == S.EQUIVALENT and "same value" in eq["equivalent_reason"]
    assert _by(data, "double", "Mul_Add")["status"] == S.SURVIVED
    assert _by(data, "double", "Mul_Add")["change"] == "return x * 2 → return x + 2"
    hang = _by(data, "spin", "Add_Sub")
    assert hang["status"] == S.TIMEOUT and "longer than" in hang["detail"]
    ann = _by(data, "cap", "BitOr_BitAnd")
    assert ann["status"] == S.EQUIVALENT and ann["seconds"] == 0
    o = data["overall"]
    assert (o["killed"], o["timeout"], o["survived"], o["equivalent"]) == (1, 1, 1, 2)
    assert o["score"] == pytest.approx(66.67)
    # one equivalent by a rule (the annotation), one declared one by one; if the declaration
    # were wrong the score would be 2 of 4
    assert data["equivalents"] == {"by_rule": 1, "one_by_one": 1, "score_if_declarations_survived": 50.0}
    assert ann["equivalent_by"] == "rule" and eq["equivalent_by"] == "declaration"
    assert data["problems"] == []
    assert data["timing"]["ran"] == 4

    md, js = S.write_reports(data, tmp_path / "out")
    assert md.name == "strength.md" and js.name == "strength.json"
    back = json.loads(js.read_text(encoding="utf-8"))
    assert back["schema"] == S.SCHEMA
    for key in ("tool", "goal", "corpus", "timing", "overall", "titles", "clauses", "problems", "mutants"):
        assert key in back
    assert {"id", "file", "line", "change", "clauses", "status", "killer"} <= set(back["mutants"][0])
    text = md.read_text(encoding="utf-8")
    assert "json-sha256: " + hashlib.sha256(js.read_text(encoding="utf-8").encode()).hexdigest() in text
    assert "## Surviving mutants (1)" in text
    assert (f"| {tiny['pkg']}/core.py:14 | {tiny['pkg']}.core:double | core/ReplaceBinaryOperator_Mul_Add "
            f"| `return x*2 → return x+2` |") in text          # what a declaration names
    assert "## Killed by timeout (1)" in text
    assert "## Equivalent mutants (2)" in text and "never evaluated" in text
    assert "| 3 " in text                                 # the title of the surviving mutant


def test_second_run_on_unchanged_inputs_runs_no_mutant(tiny):
    first = _run(tiny)
    assert first["timing"]["ran"] == 4
    t0 = time.perf_counter()
    second = _run(tiny)
    assert second["timing"]["ran"] == 0
    assert time.perf_counter() - t0 < 5
    assert second["overall"] == first["overall"]
    assert all(m["cached"] for m in second["mutants"] if m["status"] != S.EQUIVALENT or m["change"])
    # a new case: only the surviving (and timed-out) mutants run again; the killed one
    # keeps its killer, which is unchanged
    more = CASES + [{"id": "3.1/double-three", "clause": "3.1", "fn": "double", "args": [3], "want": 6}]
    third = _run(tiny, cases=more)
    assert third["timing"]["ran"] == 3        # the survivor, the timeout, the declared equivalent
    assert _by(third, "double", "Mul_Add")["status"] == S.KILLED
    assert _by(third, "double", "Mul_Add")["killer"] == "3.1/double-three"
    assert _by(third, "cap", "Gt_Lt")["cached"]


def test_an_edited_file_runs_again_and_a_changed_killer_too(tiny):
    _run(tiny)
    core = tiny["dir"] / "core.py"
    core.write_text(TINY.replace("return not v", "return not not v"), encoding="utf-8")
    again = _run(tiny)
    assert again["timing"]["ran"] == 4        # every mutant key names the file's hash
    changed = [dict(c) for c in CASES]
    killer = _by(again, "cap", "Gt_Lt")["killer"]
    for c in changed:
        if c["id"] == killer:
            c["args"] = [7, 3]
    third = _run(tiny, cases=changed)
    assert not _by(third, "cap", "Gt_Lt")["cached"]
    assert _by(third, "cap", "Gt_Lt")["status"] == S.KILLED


def test_an_edit_of_another_module_runs_every_mutant_again(tiny):
    """A verdict depends on the modules the mutant was not made in too: editing one of them
    (here the package's __init__) leaves no cached verdict standing."""
    first = _run(tiny)
    assert first["timing"]["ran"] == 4
    (tiny["dir"] / "__init__.py").write_text("# edited\n", encoding="utf-8")
    again = _run(tiny)
    assert again["timing"]["ran"] == 4
    assert not any(m["cached"] for m in again["mutants"])
    assert again["overall"] == first["overall"]


def test_equivalent_but_killed_is_a_problem(tiny):
    tiny["eq"].write_text(EQUIVALENT.format(pkg=tiny["pkg"]).replace("x>=limit", "x<limit").replace(
        "Gt_GtE", "Gt_Lt"), encoding="utf-8")
    data = _run(tiny)
    assert any("declared equivalent" in p for p in data["problems"])
    assert _by(data, "cap", "Gt_Lt")["status"] == S.KILLED
    assert _by(data, "cap", "Gt_GtE")["status"] == S.SURVIVED      # no longer declared


def test_parser_defaults():
    args = S.build_parser().parse_args([])
    assert args.workers == 2 and args.out == "reports" and args.cache == S.DEFAULT_CACHE


def test_reachable_modules(tmp_path):
    d = tmp_path / "eng"
    d.mkdir()
    (d / "__init__.py").write_text("", encoding="utf-8")
    (d / "engine.py").write_text("from . import a\nfrom .b import x\n", encoding="utf-8")
    (d / "a.py").write_text("from eng.c import y\n", encoding="utf-8")
    (d / "b.py").write_text("x = 1\n", encoding="utf-8")
    (d / "c.py").write_text("y = 1\n", encoding="utf-8")
    (d / "lonely.py").write_text("from . import a\n", encoding="utf-8")
    assert S.reachable_modules(d) == {"__init__.py", "engine.py", "a.py", "b.py", "c.py"}
    (d / "engine.py").unlink()
    assert "lonely.py" in S.reachable_modules(d)


def test_a_declaration_survives_moved_lines_comments_and_spacing(tiny):
    """A declaration names the function and the normalised change: lines added above, the
    line re-spaced and given a comment leave it standing; naming another function makes it
    stale, a problem naming its line in the equivalence file."""
    core = tiny["dir"] / "core.py"
    core.write_text(core.read_text(encoding="utf-8").replace(
        "from __future__ import annotations\n", "from __future__ import annotations\n\n\nMOVED = 1\n").replace(
        "    if x > limit:\n", "    if x  >  limit:     # 2.1: above the limit\n"), encoding="utf-8")
    data = _run(tiny)
    eq = _by(data, "cap", "Gt_GtE")
    assert eq["status"] == S.EQUIVALENT and eq["line"] == 10 and data["problems"] == []
    assert eq["where"] == f"{tiny['pkg']}.core:cap" and eq["snippet"] == "if x>limit: → if x>=limit:"
    tiny["eq"].write_text(EQUIVALENT.format(pkg=tiny["pkg"]).replace(".core:cap", ".core:double"),
                          encoding="utf-8")
    data = _run(tiny)
    assert _by(data, "cap", "Gt_GtE")["status"] == S.SURVIVED
    assert [p for p in data["problems"] if "matches no mutant: stale" in p] == [
        f"{tiny['eq']}:6: {tiny['pkg']}.core:double core/ReplaceComparisonOperator_Gt_GtE "
        f"`if x>limit: → if x>=limit:` matches no mutant: stale (the code changed: re-declare it "
        f"from the report, or remove it)"]


def test_a_declaration_names_as_many_mutants_as_its_count(tiny):
    """The same change twice in one function: one declaration names both with `count: 2`;
    without it, or with another count, the run says how many it matched."""
    core = tiny["dir"] / "core.py"
    core.write_text(core.read_text(encoding="utf-8").replace(
        "    if x > limit:\n        return limit\n",
        "    if x > limit:\n        return limit\n    if x > limit:\n        return limit\n"),
        encoding="utf-8")
    data = _run(tiny)
    assert [p.split(": ", 1)[1] for p in data["problems"]] == [
        f"{tiny['pkg']}.core:cap core/ReplaceComparisonOperator_Gt_GtE `if x>limit: → if x>=limit:` "
        f"matches 2 mutants, not 1: give its `count`, or the `block` of the one meant: ''"]
    assert [m["status"] for m in data["mutants"] if "Gt_GtE" in m["operator"]] == [S.EQUIVALENT] * 2
    tiny["eq"].write_text(EQUIVALENT.format(pkg=tiny["pkg"]).replace("    reason: at", "    count: 2\n    reason: at"),
                          encoding="utf-8")
    assert _run(tiny)["problems"] == []
    tiny["eq"].write_text(EQUIVALENT.format(pkg=tiny["pkg"]).replace("    reason: at", "    count: 3\n    reason: at"),
                          encoding="utf-8")
    assert "matches 2 mutants, not 3: set its `count` right" in _run(tiny)["problems"][0]


def test_a_declaration_names_the_block_of_the_one_meant(tiny):
    """The same change in two blocks of one function, only one of them equivalent: `block` (the
    first line of the statement heading it, normalised) names it; the other runs as usual."""
    core = tiny["dir"] / "core.py"
    core.write_text(core.read_text(encoding="utf-8").replace(
        "    if x > limit:\n        return limit\n",
        "    if x > limit:\n        return limit\n    while limit is None:   # never\n"
        "        if x > limit:\n            return limit\n"), encoding="utf-8")
    data = _run(tiny)
    assert "`block` of the one meant: '', 'while limit is None:'" in data["problems"][0]
    tiny["eq"].write_text(EQUIVALENT.format(pkg=tiny["pkg"]).replace(
        "    reason: at", "    block: 'while limit  is None:'\n    reason: at"), encoding="utf-8")
    data = _run(tiny)
    assert data["problems"] == []
    gte = sorted((m["line"], m["block"], m["status"]) for m in data["mutants"] if "Gt_GtE" in m["operator"])
    assert gte == [(7, "", S.SURVIVED), (10, "while limit is None:", S.EQUIVALENT)]


# ---------------------------------------------------------------------------
# `unused` claims: a reason that says a value is never read, checked

ENGINE = {
    "core.py": """\
from dataclasses import dataclass


@dataclass
class Result:
    value: int
    detail: int


def heal(st, n, combat=False):
    st.hp += n
    return n * 2


def fight(st):
    heal(st, 1)
    return Result(st.hp, 0).value
""",
    "other.py": """\
from .core import heal


def rest(st):
    heal(st, 2, combat=True)
""",
}

CLAIMS = """\
mutants:
  - function: "eng.core:heal"
    operator: core/NumberReplacer
    change: "return n*2 → return n*3"
    unused: {return: "eng.core:heal"}
    reason: the value of heal is dropped by every caller
  - function: "eng.core:heal"
    operator: core/ReplaceFalseWithTrue
    change: "def heal(st, n, combat=False): → def heal(st, n, combat=True):"
    unused: {parameter: "eng.core:heal.combat"}
    reason: the body never reads combat
  - function: "eng.core:fight"
    operator: core/NumberReplacer
    change: "return Result(st.hp, 0).value → return Result(st.hp, 1).value"
    unused: {field: "eng.core:Result.detail"}
    reason: Result.detail is never read
"""


@pytest.fixture()
def claims(tmp_path):
    d = tmp_path / "eng"
    d.mkdir()
    (d / "__init__.py").write_text("", encoding="utf-8")
    for name, text in ENGINE.items():
        (d / name).write_text(text, encoding="utf-8")
    harness = tmp_path / "harness"
    harness.mkdir()
    (harness / "run.py").write_text("def run(st):\n    return st\n", encoding="utf-8")
    eq = tmp_path / "eq.yaml"
    eq.write_text(CLAIMS, encoding="utf-8")
    return d, harness, eq


def _claims(claims):
    d, harness, eq = claims
    return S.unused_claim_problems(S.load_equivalents(eq), [d, harness])


def test_unused_claims_hold(claims):
    assert _claims(claims) == []


@pytest.mark.parametrize("where, before, after, problem", [
    # the value of heal now read: by a caller of the engine, of the harness, or passed on
    ("eng/other.py", "    heal(st, 2, combat=True)", "    return heal(st, 2, combat=True)",
     ":2: `unused: {return: eng.core:heal}`: no longer true: the value of heal is read at "),
    ("harness/run.py", "    return st", "    return heal(st, 3)", "the value of heal is read at"),
    ("eng/other.py", "def rest(st):", "HOOKS = [heal]\n\n\ndef rest(st):", "the value of heal is read at"),
    # the parameter now read
    ("eng/core.py", "    st.hp += n\n", "    st.hp += n if combat else 0\n", "heal's combat is read at"),
    ("eng/core.py", "def heal(st, n, combat=False):", "def heal(st, n):", "heal has no parameter combat"),
    # the field now read, by an attribute or getattr
    ("harness/run.py", "    return st", "    return st.detail", "Result.detail is read at"),
    ("harness/run.py", "    return st", "    return getattr(st, 'detail')", "Result.detail is read at"),
    ("eng/core.py", "    detail: int\n", "", "Result has no field detail"),
    ("eng/core.py", "def heal(", "def mend(", "no function heal in eng.core"),
])
def test_an_unused_claim_that_stops_being_true_is_a_problem(claims, where, before, after, problem):
    d, harness, eq = claims
    path = d.parent / where
    text = path.read_text(encoding="utf-8")
    assert before in text
    path.write_text(text.replace(before, after), encoding="utf-8")
    problems = _claims(claims)
    assert len(problems) >= 1 and any(problem in p for p in problems), problems
    assert all(p.startswith(f"{eq}:") for p in problems)


def test_a_sample_is_the_same_for_the_same_tree_and_says_it_is_partial(tiny):
    """`--sample N` (CI: .ci/strength): N mutants, the same ones on every run of the same tree,
    the selection written into the report; a declaration whose mutant is not in the sample is
    not stale."""
    full = _run(tiny)
    assert full["selection"]["sample"] is None and full["selection"]["run"] == full["selection"]["of"]
    one = _run(tiny, sample=3)
    two = _run(tiny, sample=3)
    ids = [(m["line"], m["operator"], m["occurrence"]) for m in one["mutants"]]
    assert len(ids) == 3 and ids == [(m["line"], m["operator"], m["occurrence"]) for m in two["mutants"]]
    assert one["selection"] == {"files": None, "max": None, "sample": 3,
                                "of": full["selection"]["of"], "run": 3}
    assert not [p for p in one["problems"] if "stale" in p]
    assert "**A partial run**: 3 of the" in S.markdown(one)
    assert "partial" not in S.markdown(full)


def test_ci_strength_script_runs_the_touched_model_files(tmp_path):
    """.ci/strength picks the model/ files changed since its base and runs a sample of them."""
    text = (S.ROOT / ".ci" / "strength").read_text(encoding="utf-8")
    assert "--sample" in text and "--fail-under 100" in text and "'model/*.py'" in text
    assert not re.search(r"^\s*make test", text, re.M)   # run by .ci/run after the tests
    assert ".ci/strength" in (S.ROOT / ".ci" / "run").read_text(encoding="utf-8")


CLASSES_TINY = '''"""Refusals and names. Clauses: 5.1."""
class G:
    def refuse(self, clause, message):
        raise ValueError(clause)


def check(n, who):
    """5.1"""
    g = G()
    if n > 3:
        g.refuse("5.1", f"{n} is more than {3 + 0} ({len(who) > 1})")
    if who == "A":
        return n
    if who == "longname":
        return -n
    return 0
'''


def test_run_classes_refusal_text_and_cached_literals(tiny):
    """The classes whose mutants run (`refusal-message`, `cached-literal-identity`): a survivor
    in one is equivalent by the class, a killed one is killed, and mutants of the same kinds
    outside the classes (the refusal's guard; an identity mutant with a longer literal, which only
    interning makes the same object here) are not."""
    (tiny["dir"] / "core.py").write_text(CLASSES_TINY, encoding="utf-8")
    cases = [{"id": "5.1/a", "clause": "5.1", "fn": "check", "args": [1, "A"], "want": 1},
             {"id": "5.1/long", "clause": "5.1", "fn": "check", "args": [2, "longname"], "want": -2}]
    tiny["eq"].write_text("""
rules:
  - where: refusal-message
    reason: the text of a refusal is not judged
  - where: cached-literal-identity
    reason: one object of each cached literal
mutants: []
""", encoding="utf-8")
    ops = ["core/ReplaceBinaryOperator_Add_Sub", "core/ReplaceComparisonOperator_Gt_GtE",
           "core/ReplaceComparisonOperator_Eq_Is", "core/ReplaceComparisonOperator_Eq_IsNot"]
    oracle = TinyOracle(tiny["root"], tiny["pkg"], cases)
    data = S.run(package_dir=tiny["dir"], oracle=oracle, operators=ops, cache_dir=None,
                 equivalent=tiny["eq"], workers=1, mutant_timeout=2, known=lambda c: True,
                 title_of=lambda c: c.split(".")[0])
    got = sorted((m["line"], m["operator"].split("_", 1)[1], m["status"], m["equivalent_by"])
                 for m in data["mutants"])
    assert got == [
        (10, "Gt_GtE", S.SURVIVED, None),                 # the refusal's guard: not in a class
        (11, "Add_Sub", S.EQUIVALENT, "rule"),            # 3 - 0 in the text of the refusal
        (11, "Gt_GtE", S.EQUIVALENT, "rule"),             # len(who) >= 1 in the text
        (12, "Eq_Is", S.EQUIVALENT, "rule"),              # who is "A": a cached one-character str
        (12, "Eq_IsNot", S.KILLED, None),                 # run: the corpus kills it
        (14, "Eq_Is", S.SURVIVED, None),                  # "longname": interned here, but not in the class
        (14, "Eq_IsNot", S.KILLED, None),
    ], got
    assert data["problems"] == []
