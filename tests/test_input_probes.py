"""The input probes of kodex strength (properties/strength_probes.py, properties/input_probes/).

- Every probe file loads, and every probe's outcome on the reference engine is the input error
  it expects, or for a policy probe the PolicyError it expects or the verdicts written in it:
  `make test` checks the engine's input validation and the priority language too.
- A policy probe whose hand-written verdict (or expected message) is wrong does not probe; a
  mutant of a (tiny) policy compiler that the corpus lets through is killed by a policy probe.
- A malformed probe file is one line naming the file, the line and the field; nothing of the
  directory is loaded; ids are unique over all files; `checks` names a function of the code.
- On a tiny synthetic engine: a mutant the corpus lets through and a probe kills is killed
  "by a probe", counted apart in the report; the cache keys on the probes; a declaration whose
  mutant a probe kills is a problem.
"""
from __future__ import annotations

import hashlib
import importlib
import json
import re
import sys
import uuid
from pathlib import Path

import pytest

from properties import strength_probes as P
from properties.code_names import defines

PROBES = P.load_probes(P.DEFAULT_DIR)


# ---------------------------------------------------------------------------
# the project's probes

@pytest.fixture(scope="module")
def reference():
    oracle = P.ProbeOracle(PROBES, P.DEFAULT_DIR)
    oracle.baseline_problems()                 # each probe's outcome: judged by the test below
    return oracle


@pytest.mark.parametrize("probe", PROBES, ids=lambda p: p.id)
def test_every_probe_gets_its_input_error_from_the_reference_engine(reference, probe):
    got = reference.reference[probe.id]
    if probe.is_policy:
        assert probe.policy_problem(got) is None, f"{probe.where}: {probe.id}: {got}"
        out = P.policy_outcome(got)
        if probe.expect is not None:
            assert "raised model.priority.PolicyError: " in out["compile"] + out["table"]
        else:
            assert [v[0] if not v[2] else "conflict" for v in out["verdicts"]] == \
                [{"none": None}.get(r["winner"], r["winner"]) for r in probe.resolve]
        return
    assert re.match(r"raised model\.(errors\.InputProblem|ruleset\.RulesetError): ", got), (
        f"{probe.where}: {probe.id}: {got}")
    assert probe.expect in got.split(": ", 1)[1], f"{probe.where}: {probe.id}: {got}"


def test_probes_name_existing_functions_with_unique_ids():
    assert len({p.id for p in PROBES}) == len(PROBES)
    assert all(defines(p.checks, P.ROOT) for p in PROBES)
    assert not defines("model.shapes:check_nothing", P.ROOT)
    assert not defines("model.nowhere:check_entry", P.ROOT)
    assert defines("model.engine:Outcome.__init__", P.ROOT)            # a method, by its class


def test_a_probe_that_does_not_probe_stops_the_run(tmp_path):
    """The expected text missing from the reference's message, or no input error at all (a
    well-formed given), is a baseline failure naming the probe's file and line."""
    (tmp_path / "x.yaml").write_text(PROBE_FILE.format(extra="") + """
  - id: well-formed
    checks: model.shapes:check_step
    title: a combat in sub-phase II
    given: {turn: {phase: combat, combat_step: II}}
    expect: "/turn/combat_step:"
""", encoding="utf-8")
    good = P.ProbeOracle.from_dir(tmp_path)
    assert good.baseline_problems() == [
        f"{tmp_path / 'x.yaml'}:10: input probe well-formed does not probe: the reference engine "
        f"gave 'ran: {good.reference['well-formed'].split(': ')[1]}', not an input error "
        f"(InputProblem or RulesetError) whose message contains '/turn/combat_step:'"]
    (tmp_path / "x.yaml").write_text(PROBE_FILE.format(extra="").replace(
        '"/turn/combat_step:"', '"/turn/phase:"'), encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        P.ProbeOracle.from_dir(tmp_path).prepare()
    assert f"{tmp_path / 'x.yaml'}:4: input probe step-zero does not probe" in str(exc.value)


def test_declarations_of_a_probed_module_give_no_malformed_input_reason():
    """The equivalence file's header: "differs only on malformed input" is no reason once the
    module has probes (write a probe; declare only what no input can tell apart)."""
    from properties import strength as S
    probed = {p.checks.split(":")[0] for p in PROBES}
    claims = re.compile(r"malformed|loosens (a|the) check|differs only on .*input", re.I)
    bad = [f"{S.DEFAULT_EQUIVALENT}:{d.line}: {d.function}" for d in
           S.load_equivalents(S.DEFAULT_EQUIVALENT)["mutants"]
           if d.module in probed and claims.search(d.reason)]
    assert bad == []


# ---------------------------------------------------------------------------
# a malformed probe file: one line, file, line and field; nothing loaded

PROBE_FILE = """format: kodex-input-probes/1
probes:
{extra}
  - id: step-zero
    checks: model.shapes:check_step
    title: sub-phase 0
    given: {{turn: {{phase: combat, combat_step: 0}}}}
    expect: "/turn/combat_step:"
"""

POLICY_FILE = """format: kodex-input-probes/1
probes:
  - id: prefer-false
    checks: model.priority:_make_step
    title: the weak one wins
    policy_table: {policies: {p: {criteria: [{clause: P.1, attribute: strong, prefer: false}]}}}
    policy: p
    resolve:
      - {a: {strong: true}, b: {}, winner: b, clause: P.1}
      - {a: {}, b: {}, winner: none}
      - {a: {}, b: {strong: true}, winner: a}
"""


@pytest.mark.parametrize("text, where", [
    ("probes: [\n", ":2: not YAML"),
    ("format: kodex-input-probes/1\n", ":1: `probes` is required"),
    (PROBE_FILE.format(extra="").replace("/1", "/9"), ":1: format: 'kodex-input-probes/1' was expected"),
    ("format: kodex-input-probes/1\nprobes: []\n", ":2: probes: [] should be non-empty"),
    (PROBE_FILE.format(extra="").replace("    title:", "    titel:"),
     ":6: probes.0.titel: unknown field (known: checks, expect, given, id, policy, policy_table, "
     "resolve, ruleset, title, version, when)"),
    (PROBE_FILE.format(extra="").replace('    expect: "/turn/combat_step:"\n', ""),
     ":4: probes.0: `expect` is required"),
    (PROBE_FILE.format(extra="").replace("    given: {turn: {phase: combat, combat_step: 0}}\n", ""),
     ":4: probes.0: a probe has a `given`, a `when` (or both), or a `policy_table`"),
    (POLICY_FILE.replace("    policy: p\n", "    policy: p\n    given: {}\n"),
     ":3: probes.0: a policy probe (`policy_table`) has no `given`, `when`, `version` or `ruleset`"),
    (POLICY_FILE.replace("    policy: p\n", "    policy: p\n    expect: criteria\n"),
     ":3: probes.0: a policy probe (`policy_table`) has an `expect` or a `resolve`, not both"),
    (POLICY_FILE.replace("    resolve:\n", "    resolves:\n"), ":8: probes.0.resolves: unknown field"),
    (PROBE_FILE.format(extra="").replace("    title: sub-phase 0\n", "    title: sub-phase 0\n    policy: p\n"),
     ":4: probes.0: `resolve` and `policy` belong to a policy probe (one with a `policy_table`)"),
    (POLICY_FILE.replace("winner: a", "winner: A"),
     ":11: probes.0.resolve.2.winner: 'A' is not one of ['a', 'b', 'none', 'conflict']"),
    (POLICY_FILE.replace("{strong: true}", "{strength: true}"),
     ":9: probes.0.resolve.0.a.strength: unknown field"),
    (re.sub(r"policy_table: .*", "policy_table: null", POLICY_FILE),
     ":6: probes.0.policy_table: null is no table"),
    (PROBE_FILE.format(extra="").replace("id: step-zero", "id: Step Zero"),
     ":4: probes.0.id: 'Step Zero' does not match"),
    (PROBE_FILE.format(extra="").replace("model.shapes:check_step", "check_step"),
     ":5: probes.0.checks: 'check_step' does not match"),
    (PROBE_FILE.format(extra="").replace("    title: sub-phase 0\n", "    title: sub-phase 0\n    version: 3\n"),
     ":7: probes.0.version: 3 is not one of [1, 2]"),
    (PROBE_FILE.format(extra="").replace("    given:", "    given: {}\n    given:"),
     ":8: given: written twice in one mapping"),
    (PROBE_FILE.format(extra="").replace("phase: combat,", "phase: 2024-01-01,"),
     ":4: probes.0: not JSON data"),
    (PROBE_FILE.format(extra="").replace("model.shapes:check_step", "model.shapes:check_steps"),
     ":4: checks: 'model.shapes:check_steps' names no function of the code"),
])
def test_a_malformed_probe_file_is_one_line_naming_file_line_and_field(tmp_path, text, where):
    d = tmp_path / "probes"
    d.mkdir()
    (d / "a-good.yaml").write_text(PROBE_FILE.format(extra="").replace("step-zero", "fine"),
                                   encoding="utf-8")
    (d / "b-bad.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(P.ProbeError) as exc:
        P.load_probes(d)
    msg = str(exc.value)
    assert msg.startswith(f"{d / 'b-bad.yaml'}{where}") and "\n" not in msg, msg


def test_ids_are_unique_over_all_files(tmp_path):
    (tmp_path / "a.yaml").write_text(PROBE_FILE.format(extra=""), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(PROBE_FILE.format(extra=""), encoding="utf-8")
    with pytest.raises(P.ProbeError) as exc:
        P.load_probes(tmp_path)
    assert str(exc.value) == (f"{tmp_path / 'b.yaml'}:4: id: 'step-zero' is already the id of the "
                              f"probe at {tmp_path / 'a.yaml'}:4 (ids are unique over all probe files)")


def test_a_directory_without_probes_is_an_error(tmp_path):
    with pytest.raises(P.ProbeError, match="no probe file"):
        P.load_probes(tmp_path)
    with pytest.raises(P.ProbeError, match="no such directory"):
        P.load_probes(tmp_path / "nowhere")


def test_kodex_strength_refuses_a_bad_probe_file_before_running(tmp_path, capsys):
    """Exit 2, one line on stderr, no traceback, nothing written."""
    from properties import strength as S
    args = S.build_parser().parse_args([])
    assert args.probes == str(P.DEFAULT_DIR) and not args.no_probes
    (tmp_path / "bad.yaml").write_text("format: kodex-input-probes/1\nprobes: [{id: x}]\n",
                                       encoding="utf-8")
    assert S.main(["--probes", str(tmp_path), "--out", str(tmp_path / "out"), "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kodex strength: {tmp_path / 'bad.yaml'}:2: probes.0: `")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_probe_order_puts_the_likeliest_killers_first():
    from properties import strength as S
    oracle = P.ProbeOracle(PROBES)
    m = S.Mutant(file="model/shapes.py", module="model.shapes", path="", file_sha="0",
                 operator="core/X", occurrence=0, line=1, col=0, function="check_step",
                 clauses=[], mapped_by="none")
    killers = {"model/shapes.py::check_step": {"probe:lasting-without-an-id": 1, "2.1/a-case": 5,
                                               "probe:zone-scope-no-zones": 3}}
    order = S.probe_order(oracle, m, killers)
    assert order[:2] == ["zone-scope-no-zones", "lasting-without-an-id"]      # most kills first
    assert order[2:5] == ["combat-step-zero", "combat-step-eight", "combat-step-outside-the-combat"]
    assert sorted(order) == sorted(oracle.probes)
    assert S.case_order(type("O", (), {"cases": {"2.1/a-case": 1}, "clauses": {}})(), m, killers) \
        == ["2.1/a-case"]                                # a probe is never taken for a case


# ---------------------------------------------------------------------------
# a whole (tiny) run: a tiny engine with an input check, a corpus, a probe

ERRORS = '''class InputProblem(ValueError):
    """A malformed input."""
'''

ENGINE = '''"""A tiny engine: a count doubled. Clauses: 1.1."""
from dataclasses import dataclass, field

from .errors import InputProblem


@dataclass
class Result:
    state: dict
    events: list = field(default_factory=list)
    refused: dict | None = None
    result: str = "ongoing"


def check_count(n, where):
    """1.1"""
    if not isinstance(n, int) or n < 0:
        raise InputProblem(f"{where}: a count is a whole number, 0 or more")
    return n


def run_case(given, when, ruleset="kodex", version=1):
    n = check_count(given.get("count", 0), "/count")
    return Result(state={"count": n * 2})
'''

OPERATORS = ["core/ReplaceOrWithAnd",                   # `and`: a negative count passes (the probe)
             "core/ReplaceComparisonOperator_Lt_LtE"]   # `n <= 0`: 0 refused (the corpus kills it)

TINY_PROBES = """format: kodex-input-probes/1
probes:
  - id: count-negative
    checks: "{pkg}.engine:check_count"
    title: a count below 0
    given: {{count: -1}}
    expect: "/count:"
"""


class CountOracle:
    """Cases `{count: n}` → state `{count: 2n}` on ``<package>.engine``."""

    def __init__(self, root: Path, package: str, counts=(0, 3)):
        self.root, self.package, self.counts = root, package, counts

    def prepare(self) -> None:
        if str(self.root) not in sys.path:
            sys.path.insert(0, str(self.root))
        self.cases = {f"1.1/count-{n}": n for n in self.counts}
        self.digests = {cid: hashlib.sha256(cid.encode()).hexdigest() for cid in self.cases}
        self.durations = {cid: 0.0 for cid in self.cases}
        self.clauses = {cid: ["1.1"] for cid in self.cases}
        self.corpus_digest = hashlib.sha256(repr(self.counts).encode()).hexdigest()
        self.baseline_seconds, self.baseline_failures = 0.01, []

    def run(self, order):
        engine = importlib.import_module(f"{self.package}.engine")
        for cid in order:
            n = self.cases[cid]
            try:
                got = engine.run_case({"count": n}, None).state
            except Exception as exc:
                return "killed", cid, f"error: {exc}"
            if got != {"count": 2 * n}:
                return "killed", cid, f"fail: {got}"
        return "survived", None, ""


@pytest.fixture()
def tiny(tmp_path):
    pkg = f"tinyeng_{uuid.uuid4().hex[:8]}"
    d = tmp_path / pkg
    d.mkdir()
    (d / "__init__.py").write_text("", encoding="utf-8")
    (d / "errors.py").write_text(ERRORS, encoding="utf-8")
    (d / "engine.py").write_text(ENGINE, encoding="utf-8")
    probes = tmp_path / "probes"
    probes.mkdir()
    (probes / "engine.yaml").write_text(TINY_PROBES.format(pkg=pkg), encoding="utf-8")
    eq = tmp_path / "eq.yaml"
    eq.write_text("mutants: []\n", encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    yield {"root": tmp_path, "pkg": pkg, "dir": d, "probes": probes, "eq": eq,
           "cache": tmp_path / "cache"}
    for name in [k for k in sys.modules if k == pkg or k.startswith(pkg + ".")]:
        del sys.modules[name]
    sys.path.remove(str(tmp_path))


def _oracle(tiny, counts=(0, 3)) -> CountOracle:
    return CountOracle(tiny["root"], tiny["pkg"], counts)


def _probes(tiny) -> P.ProbeOracle | None:
    oracle = P.ProbeOracle(P.load_probes(tiny["probes"], root=tiny["root"]), tiny["probes"])
    oracle.package = tiny["pkg"]
    return oracle


def _run(tiny, probes=True, counts=(0, 3)):
    from properties import strength as S
    return S.run(package_dir=tiny["dir"], oracle=_oracle(tiny, counts), operators=OPERATORS,
                 cache_dir=tiny["cache"], equivalent=tiny["eq"], workers=2, mutant_timeout=20,
                 known=lambda cid: True, title_of=lambda cid: cid.split(".")[0],
                 probes=_probes(tiny) if probes else None)


def _in_check(data) -> dict[str, dict]:
    return {m["operator"].split("/")[1]: m for m in data["mutants"] if m["function"] == "check_count"
            and m["status"] != "equivalent"}


def test_a_mutant_the_corpus_lets_through_is_killed_by_a_probe_and_counted_apart(tiny, tmp_path):
    from properties import strength as S
    alone = _in_check(_run(tiny, probes=False))
    assert alone["ReplaceOrWithAnd"]["status"] == S.SURVIVED           # the corpus cannot see it
    assert alone["ReplaceComparisonOperator_Lt_LtE"]["status"] == S.KILLED
    data = _run(tiny)
    ms = _in_check(data)
    assert ms["ReplaceOrWithAnd"]["status"] == S.KILLED
    assert ms["ReplaceOrWithAnd"]["killer"] == "probe:count-negative"
    assert "input probe count-negative: ran: " in ms["ReplaceOrWithAnd"]["detail"]
    assert ms["ReplaceComparisonOperator_Lt_LtE"]["killer"] == "1.1/count-0"  # the corpus first
    o = data["overall"]
    assert (o["killed"], o["survived"], o["by_probe"], o["score"], o["corpus_score"]) == \
        (2, 0, 1, 100.0, 50.0)
    pr = data["probes"]
    assert pr["count"] == 1 and pr["kills"] == [
        {"id": ms["ReplaceOrWithAnd"]["id"], "where": f"{tiny['pkg']}.engine:check_count",
         "snippet": "if not isinstance(n, int) or n<0: → if not isinstance(n, int) and n<0:",
         "status": S.KILLED, "probe": "count-negative"}]
    md, js = S.write_reports(data, tmp_path / "out")
    text = md.read_text(encoding="utf-8")
    assert "(1 by a failing case, 0 by timeout, 1 only by an input probe: the corpus alone kills 50.0%)" in text
    assert "## Killed only by an input probe (1)" in text
    assert f"| `if not isinstance(n, int) or n<0: → if not isinstance(n, int) and n<0:` | count-negative |" in text
    assert json.loads(js.read_text(encoding="utf-8"))["schema"] == "hkk-strength/2"
    from reports.html.site import check_strength
    check_strength(json.loads(js.read_text(encoding="utf-8")))        # the HTML report takes it


def test_the_cache_keys_on_the_probes(tiny):
    from properties import strength as S
    first = _run(tiny)
    assert first["timing"]["ran"] == 2
    assert _run(tiny)["timing"]["ran"] == 0                  # a probe kill is cached like a case's
    # the probe changes: its kill is stale, the corpus's stays
    probe_file = tiny["probes"] / "engine.yaml"
    probe_file.write_text(probe_file.read_text(encoding="utf-8").replace("count: -1", "count: -2"),
                          encoding="utf-8")
    again = _run(tiny)
    assert again["timing"]["ran"] == 1
    assert _in_check(again)["ReplaceOrWithAnd"]["killer"] == "probe:count-negative"
    assert _in_check(again)["ReplaceComparisonOperator_Lt_LtE"]["cached"]
    # without probes the mutant a probe killed runs again (and survives the corpus)
    alone = _run(tiny, probes=False)
    assert alone["timing"]["ran"] == 1 and _in_check(alone)["ReplaceOrWithAnd"]["status"] == S.SURVIVED
    # a survivor recorded without probes is stale once there are probes
    assert _run(tiny)["timing"]["ran"] == 1
    # the corpus changes: a probe kill is stale (the corpus let the mutant through, maybe no more)
    assert _run(tiny, counts=(0, 3, 4))["timing"]["ran"] == 1


@pytest.mark.parametrize("entry, valid", [
    ({"status": "killed", "killer": "1.1/a", "killer_digest": "d1", "corpus": "old", "probes": None}, True),
    ({"status": "killed", "killer": "probe:p", "killer_digest": "pd", "corpus": "c", "probes": "old"}, True),
    ({"status": "killed", "killer": "probe:p", "killer_digest": "other", "corpus": "c"}, False),
    ({"status": "killed", "killer": "probe:p", "killer_digest": "pd", "corpus": "old"}, False),
    ({"status": "killed", "killer": "probe:gone", "killer_digest": "pd", "corpus": "c"}, False),
    ({"status": "survived", "killer": None, "corpus": "c", "probes": "all"}, True),
    ({"status": "survived", "killer": None, "corpus": "c", "probes": "old"}, False),
    ({"status": "survived", "killer": None, "corpus": "c"}, False),          # from before the probes
    ({"status": "timeout", "killer": None, "corpus": "c", "probes": "all"}, True),
    ({"status": "killed", "killer": None, "corpus": "c", "probes": "old"}, False),   # died: where?
])
def test_which_cached_verdicts_stand(entry, valid):
    from properties import strength as S
    oracle = type("O", (), {"cases": {"1.1/a": 1}, "digests": {"1.1/a": "d1"}, "corpus_digest": "c"})()
    probes = type("Q", (), {"digests": {"p": "pd"}, "digest": "all"})()
    assert (S.cached_result(entry, oracle, probes) is not None) is valid
    if entry.get("killer") is None and "probes" not in entry:     # a run without probes takes it
        assert S.cached_result(entry, oracle, None) is not None


def test_a_declaration_a_probe_kills_is_a_problem(tiny):
    tiny["eq"].write_text(f"""mutants:
  - function: "{tiny['pkg']}.engine:check_count"
    operator: core/ReplaceOrWithAnd
    change: "if not isinstance(n, int) or n<0: → if not isinstance(n, int) and n<0:"
    reason: loosens a check of the given data only, malformed input
""", encoding="utf-8")
    assert _in_check(_run(tiny, probes=False)) and \
        _run(tiny, probes=False)["problems"] == []            # the corpus alone: taken on trust
    data = _run(tiny)
    assert [p for p in data["problems"] if "declared equivalent" in p] == [
        f"{tiny['pkg']}/engine.py:17: declared equivalent ({tiny['pkg']}.engine:check_count: if not "
        f"isinstance(n, int) or n<0: → if not isinstance(n, int) and n<0:) but an input probe kills "
        f"it (probe:count-negative): remove it from the equivalence file"]



def test_a_probe_whose_outcome_changes_between_runs_proves_nothing(tiny):
    """An engine that keeps something between runs (here a count of the runs in the message):
    a probe's outcome on a mutant would differ anyway, so the baseline refuses it."""
    engine = tiny["dir"] / "engine.py"
    engine.write_text(ENGINE.replace('    n = check_count(', '    global RUNS\n    RUNS = RUNS + 1\n'
                                     '    n = check_count(').replace('0 or more"', '0 or more (run {RUNS})"')
                      + "\nRUNS = 0\n", encoding="utf-8")
    problems = _probes(tiny).baseline_problems()
    assert len(problems) == 1 and "input probe count-negative gives another outcome when run again" \
        in problems[0]
    engine.write_text(ENGINE, encoding="utf-8")
    for name in [k for k in sys.modules if k.startswith(tiny["pkg"] + ".")]:
        del sys.modules[name]
    assert _probes(tiny).baseline_problems() == []


# ---------------------------------------------------------------------------
# policy probes: a wrong hand-written verdict does not probe; a compiler mutant is killed

def test_a_policy_probe_with_a_wrong_verdict_or_message_does_not_probe(tmp_path, monkeypatch):
    """The reference must give exactly the verdicts written in the probe (winner, and clause
    when written), and a PolicyError containing `expect`; else the probe is named (file, line,
    the pair) and the run stops."""
    (tmp_path / "x.yaml").write_text(POLICY_FILE, encoding="utf-8")
    assert P.ProbeOracle.from_dir(tmp_path).baseline_problems() == []
    (tmp_path / "x.yaml").write_text(POLICY_FILE.replace("b: {}, winner: b", "b: {}, winner: a"),
                                     encoding="utf-8")
    assert P.ProbeOracle.from_dir(tmp_path).baseline_problems() == [
        f"{tmp_path / 'x.yaml'}:3: policy probe prefer-false does not probe: resolve.0: b by P.1 "
        f"(beats: False, True), written a by P.1"]
    (tmp_path / "x.yaml").write_text(POLICY_FILE.replace("winner: b, clause: P.1", "winner: b, clause: P.2"),
                                     encoding="utf-8")
    assert "resolve.0: b by P.1 (beats: False, True), written b by P.2" in \
        P.ProbeOracle.from_dir(tmp_path).baseline_problems()[0]
    (tmp_path / "x.yaml").write_text(POLICY_FILE.replace("{}, b: {}, winner: none", "{}, b: {}, winner: conflict"),
                                     encoding="utf-8")
    assert "resolve.1: none by None (beats: False, False), written conflict" in \
        P.ProbeOracle.from_dir(tmp_path).baseline_problems()[0]
    # Policy.beats must say what resolve says (the engine asks both)
    import model.priority as mp
    (tmp_path / "x.yaml").write_text(POLICY_FILE, encoding="utf-8")
    with monkeypatch.context() as mpc:
        mpc.setattr(mp.Policy, "beats", lambda self, a, b: False)
        assert "resolve.0: b by P.1 (beats: False, False), written b by P.1" in \
            P.ProbeOracle.from_dir(tmp_path).baseline_problems()[0]
    # a resolve probe whose table is malformed does not probe either
    (tmp_path / "x.yaml").write_text(POLICY_FILE.replace("prefer: false", "prefer: less"), encoding="utf-8")
    assert "does not probe: the table is malformed: \"raised model.priority.PolicyError: priority " \
           "policy 'p', criteria[0] (clause P.1): 'prefer: 'less'' does not fit bool" in \
        P.ProbeOracle.from_dir(tmp_path).baseline_problems()[0]
    # an expect probe: a PolicyError that does not contain the text, or no error at all
    bad = POLICY_FILE.split("    resolve:")[0] + '    expect: "criteria[0] (clause P.1): \'prefer\'"\n'
    (tmp_path / "x.yaml").write_text(bad.replace("prefer: false", "prefer: less"), encoding="utf-8")
    assert P.ProbeOracle.from_dir(tmp_path).baseline_problems() == [
        f"{tmp_path / 'x.yaml'}:3: policy probe prefer-false does not probe: the reference gave "
        "\"raised model.priority.PolicyError: priority policy 'p', criteria[0] (clause P.1): "
        "'prefer: 'less'' does not fit bool attribute 'strong' (expected true/false)\", not a "
        "PolicyError whose message contains \"criteria[0] (clause P.1): 'prefer'\""]
    (tmp_path / "x.yaml").write_text(bad, encoding="utf-8")
    assert "policy probe prefer-false does not probe: the reference gave \"compiled p; valid: ['p']\"" \
        in P.ProbeOracle.from_dir(tmp_path).baseline_problems()[0]
    with pytest.raises(SystemExit, match="policy probe prefer-false does not probe"):
        P.ProbeOracle.from_dir(tmp_path).prepare()


TINY_PRIORITY = '''"""A tiny priority language: one criterion, prefer true/false over strong. Clauses: 1.2."""
from dataclasses import dataclass


class PolicyError(ValueError):
    """A malformed table."""


@dataclass(frozen=True)
class Effect:
    strong: bool = False

    @classmethod
    def from_dict(cls, d):
        return cls(strong=bool(d.get("strong", False)))


@dataclass(frozen=True)
class Verdict:
    winner: object
    clause: object
    conflict: bool = False


@dataclass(frozen=True)
class Policy:
    name: str
    clause: str
    good: bool

    def resolve(self, a, b):
        if a.strong == b.strong:
            return Verdict(None, None)
        return Verdict("a" if a.strong == self.good else "b", self.clause)

    def beats(self, a, b):
        return self.resolve(a, b).winner == "a"


def compile_policy(name=None, *, table=None):
    c = table["policies"][name]["criteria"][0]
    if not isinstance(c.get("prefer"), bool):
        raise PolicyError(f"priority policy {name!r}, criteria[0]: prefer is true or false")
    return Policy(name, c["clause"], c["prefer"])


def _validate_table(table, where="policy table"):
    for name in table["policies"]:
        compile_policy(name, table=table)


def policy_names(table):
    return list(table["policies"])
'''

TINY_POLICY_PROBES = """format: kodex-input-probes/1
probes:
  - id: prefer-a-number
    checks: "{pkg}.priority:compile_policy"
    title: prefer 1, not true or false
    policy_table: {{policies: {{p: {{criteria: [{{clause: P.1, prefer: 1}}]}}}}}}
    policy: p
    expect: "criteria[0]: prefer is true or false"
  - id: prefer-false
    checks: "{pkg}.priority:Policy.resolve"
    title: the weak one wins
    policy_table: {{policies: {{p: {{criteria: [{{clause: P.1, prefer: false}}]}}}}}}
    policy: p
    resolve:
      - {{a: {{strong: true}}, b: {{}}, winner: b, clause: P.1}}
"""


def test_a_mutant_of_the_policy_compiler_is_killed_by_a_policy_probe(tiny):
    """The corpus never compiles another table, so it lets a loosened check of the policy
    compiler through; the policy probe `prefer-a-number` kills it (the mutant accepts the
    table), and `prefer-false` kills a mutant of the verdict."""
    from properties import strength as S
    (tiny["dir"] / "priority.py").write_text(TINY_PRIORITY, encoding="utf-8")
    (tiny["probes"] / "priority.yaml").write_text(TINY_POLICY_PROBES.format(pkg=tiny["pkg"]),
                                                  encoding="utf-8")
    assert _probes(tiny).baseline_problems() == []

    def run(probes):
        data = S.run(package_dir=tiny["dir"], oracle=_oracle(tiny),
                     operators=["core/ReplaceUnaryOperator_Delete_Not",
                                "core/ReplaceComparisonOperator_Eq_NotEq"],
                     cache_dir=None, equivalent=tiny["eq"], workers=2, mutant_timeout=20,
                     known=lambda cid: True, title_of=lambda cid: cid.split(".")[0],
                     probes=_probes(tiny) if probes else None)
        return {(m["function"], m["snippet"]): m for m in data["mutants"] if m["file"].endswith("priority.py")}

    check = ("compile_policy", "if not isinstance(c.get(\"prefer\"), bool): → "
                               "if isinstance(c.get(\"prefer\"), bool):")
    verdict = ("Policy.resolve", "return Verdict(\"a\" if a.strong==self.good else \"b\", self.clause) → "
                                 "return Verdict(\"a\" if a.strong!=self.good else \"b\", self.clause)")
    alone = run(probes=False)
    assert alone[check]["status"] == alone[verdict]["status"] == S.SURVIVED
    ms = run(probes=True)
    assert (ms[check]["status"], ms[check]["killer"]) == (S.KILLED, "probe:prefer-a-number")
    assert (ms[verdict]["status"], ms[verdict]["killer"]) == (S.KILLED, "probe:prefer-false")
    assert all(m["status"] == S.KILLED for m in ms.values()), ms
