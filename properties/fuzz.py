"""``kodex fuzz``: property-based fuzzing of the reference engine, and of another implementation.

Usage::

    kodex fuzz --examples N [--impl COMMAND] [--seed S] [--out DIR]
               [--profile thorough|quick] [--verbs V,V] [--invariant NAME] [--games K]
               [--steps M] [--no-machine] [--no-shrink] [--json FILE]

Without ``--impl`` three things run on the reference engine, every invariant of
properties/invariants.py checked after every step:

1. the random legal-play driver (properties/driver.py): ``--games`` whole games
   from seeds S, S+1, … (no Hypothesis);
1b. ``--random-cases`` random cases from the same generator as the property,
   drawn from seeded ``random.Random`` (reproducible; a failure is shrunk by
   greedy step deletion);
2. a Hypothesis property over random cases (properties/strategies.py,
   ``cases``): given + steps, each step checked, then the run replayed
   (determinism);
3. the state machine (properties/machine.py).

With ``--impl COMMAND`` the same random cases (a refused step only as the last
step, as ``run_case`` reads a case) also run on the implementation through
``conformance.protocol.ProtocolClient``; its reply is matched with
``conformance.matching.first_difference`` against the reference's full state
(plus ``result`` and ``error``) as the expectation, and its state is checked
with ``check_dict``. A difference is raised as a failure, so Hypothesis shrinks
it; the smallest case is written to ``--out`` (default ``reports/fuzz/``) as an
``hkk-case/1`` YAML file whose ``then`` is the reference's result.

Settings profiles: ``quick`` (50 examples, derandomized: the test suite) and
``thorough`` (``max_examples=N``, seeded with ``--seed``); deadline None in
both. ``--seed`` also seeds the driver and the seeded random cases. ``--invariant`` makes
only that invariant fail the property (the others are still listed): used by
tests/test_invariant_mutations.py. Exit status 1 on any violation or difference.
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import yaml
from hypothesis import HealthCheck, Phase, Verbosity, given, seed as hseed, settings

from conformance.atomicio import write_text

from .invariants import INVARIANTS, Violation, check_dict, check_step, check_steps, replay_differs

__all__ = ["main", "Finding", "fuzz_properties", "fuzz_machine", "fuzz_driver", "fuzz_random_cases",
           "shrink_steps", "expectation",
           "compare_reply", "write_case", "declared", "within_profile", "QUICK", "thorough"]

DEFAULT_OUT = Path("reports") / "fuzz"
_SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
             HealthCheck.large_base_example]

settings.register_profile("quick", max_examples=50, deadline=None, derandomize=True, database=None,
                          suppress_health_check=_SUPPRESS, stateful_step_count=20,
                          report_multiple_bugs=False, print_blob=False)
QUICK = settings.get_profile("quick")


def thorough(examples: int) -> settings:
    """The thorough profile (registered under that name) with max_examples=examples."""
    settings.register_profile("thorough", max_examples=examples, deadline=None, database=None,
                              suppress_health_check=_SUPPRESS, stateful_step_count=40,
                              verbosity=Verbosity.quiet, report_multiple_bugs=False, print_blob=False)
    return settings.get_profile("thorough")


# the clause a written case cites, by the verb of its last step
VERB_CLAUSE = {
    "damage": "4.25.0", "heal": "4.26", "draw": "4.12.0", "discard": "4.17.0", "mill": "4.18.0",
    "move": "4.14.1", "exile": "4.16.0", "sacrifice": "104.0", "sacrifice_hp": "103.1",
    "sacrifice_max_hp": "103.1", "change_max_hp": "3.19", "change_max_vp": "3.19",
    "gain_vp": "3.13", "gain_components": "3.13", "steal": "5.6.2", "create": "96.6",
    "put_counter": "117.0", "remove_counter": "117.0", "passivate": "5.5.7.1",
    "activate_card": "4.9.3", "search": "4.13.0", "shuffle": "4.15.0", "advance": "4.11.1",
    "exchange": "5.4.1", "play": "4.21.0", "choose": "4.23.5",
}


@dataclass
class Finding:
    kind: str                                   # "violation" | "difference"
    source: str                                 # "driver", "property", "machine"
    given: dict[str, Any]
    when: list[dict[str, Any]]
    violations: list[Violation] = field(default_factory=list)
    difference: dict[str, Any] | None = None
    then: dict[str, Any] | None = None
    path: str | None = None                     # the written case file

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "source": self.source, "given": self.given, "when": self.when,
                "violations": [v.to_dict() for v in self.violations],
                "difference": self.difference, "path": self.path}


class _Failed(AssertionError):
    pass


def _keep(violations: list[Violation], only: set[str] | None) -> list[Violation]:
    return [v for v in violations if only is None or v.invariant in only]


# ---------------------------------------------------------------------------
# the reference's result as an expectation, and an implementation's reply
# ---------------------------------------------------------------------------

_CARD_DEFAULTS = {"premade": False, "standalone_token": False}


def expectation(res: Any) -> dict[str, Any]:
    """`then` from a reference RunResult: the full state (spec fields), result and error."""
    st = res.state
    then: dict[str, Any] = {}
    if res.refused is not None:
        then["error"] = {"step": res.refused["step"], "clause": res.refused["clause"]}
    then["turn"] = copy.deepcopy(st.get("turn"))
    then["players"] = copy.deepcopy(st.get("players"))
    cards = {}
    for cid, c in (st.get("cards") or {}).items():
        d = {k: copy.deepcopy(v) for k, v in c.items()
             if k != "player" and not (k in _CARD_DEFAULTS and v == _CARD_DEFAULTS[k])
             and not (k == "counters" and not v)}
        cards[cid] = d
    then["cards"] = cards
    then["removed"] = list(st.get("removed") or [])
    if st.get("pending"):
        then["pending"] = copy.deepcopy(st["pending"])
    then["result"] = copy.deepcopy(res.result)
    return then


def compare_reply(then: dict[str, Any], reply: dict[str, Any], n_steps: int
                  ) -> tuple[dict[str, Any] | None, list[Violation]]:
    """(the first difference as a dict or None, the invariant violations of the reply's state)."""
    from conformance.matching import first_difference, observed_view
    from conformance.protocol import interpret_reply
    outcome, data = interpret_reply(reply)
    if outcome != "observed":
        return {"path": "/", "expected": "a state", "actual": outcome,
                "message": str(data.get("message", ""))}, []
    observed = observed_view(data.get("state"), data.get("events"), data.get("result"),
                             data.get("refused"))
    diff = first_difference(then, observed, n_steps)
    viol = check_dict(data.get("state") or {}, ruleset="kodex")
    return (diff.to_dict() if diff is not None else None), viol


def declared(client: Any, given_: dict, when: list) -> bool:
    """Whether a random case uses only what the implementation declared in its ``hello``: its
    verbs (protocol 1 ``verbs``) and its features (``features``; docs/spec/hkk-profiles.md). A
    case beyond them is not sent: a difference there would be no finding."""
    from conformance.features import missing, needs
    verbs = getattr(client, "verbs", None)
    if verbs is not None and any(next(iter(step)) not in verbs for step in when):
        return False
    if getattr(client, "features_declared", False):
        return not missing(needs(given_, when, None), client.features)
    return True


# state fields that only a feature brings (docs/spec/hkk-effects.md): not compared when the
# implementation does not declare it
_FEATURE_FIELDS = {"combat_steps": ("turn", "combat_step"), "windows": ("card", "just_damaged"),
                   "decisions": ("state", "pending")}
_FEATURE_PLAYER_FIELDS = {"continuous": ("base_max_hp", "base_max_vp"),
                          "lasting": ("base_max_hp", "base_max_vp")}


def within_profile(then: dict[str, Any], client: Any) -> dict[str, Any]:
    """The reference's expectation cut to what the implementation declared: the observations of
    its ``profile`` and the state fields of its ``features`` (docs/spec/hkk-profiles.md); what it
    does not report is not compared."""
    then = copy.deepcopy(then)
    if getattr(client, "features_declared", False):
        have = set(client.features)
        for feature, (where, name) in _FEATURE_FIELDS.items():
            if feature in have:
                continue
            if where == "turn" and isinstance(then.get("turn"), dict):
                then["turn"].pop(name, None)
            elif where == "card":
                for c in (then.get("cards") or {}).values():
                    c.pop(name, None)
            else:
                then.pop(name, None)
        if not have & set(_FEATURE_PLAYER_FIELDS):
            for p in (then.get("players") or {}).values():
                for name in _FEATURE_PLAYER_FIELDS["continuous"]:
                    p.pop(name, None)
    if not getattr(client, "profile_declared", False):
        return then
    profile = set(client.profile)
    if "refusal" not in profile:
        then.pop("error", None)
    elif "refusal_clause" not in profile and isinstance(then.get("error"), dict):
        then["error"].pop("clause", None)
    if "pending" not in profile:
        then.pop("pending", None)
    if "state" not in profile:
        for key in ("turn", "players", "removed", "result"):
            then.pop(key, None)
    cards = then.get("cards") or {}
    for cid, c in list(cards.items()):
        keep = {k: v for k, v in c.items()
                if (k in ("damage", "hp", "max_hp") and "computed" in profile)
                or (k not in ("damage", "hp", "max_hp") and "state" in profile)}
        cards[cid] = keep
    return then


def _slug(text: str) -> str:
    import re
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "impl"


def write_case(out_dir: Path | str, finding: Finding, impl_name: str = "implementation") -> Path:
    """Write a difference as an hkk-case/1 file (then = the reference's result)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    blob = json.dumps([finding.given, finding.when], sort_keys=True).encode()
    digest = hashlib.sha1(blob).hexdigest()[:10]
    then = finding.then or {}
    err = then.get("error")
    last_verb = next(iter(finding.when[-1])) if finding.when else None
    clause = (err or {}).get("clause") if isinstance(err, dict) else None
    if not clause or clause == "hkk-case/1":
        clause = VERB_CLAUSE.get(last_verb or "", "4.5.2")
    diff = finding.difference or {}
    case = {
        "id": f"fuzz/{_slug(impl_name)}-{digest}",
        "clause": clause,
        "title": f"{impl_name} differs from the reference engine at {diff.get('path') or '/'} "
                 f"(found by kodex fuzz)",
        "rulesets": ["kodex"],
        "tags": ["fuzz"],
        "given": finding.given,
        "when": finding.when,
        "then": then,
        "x-difference": {k: diff.get(k) for k in ("path", "expected", "actual", "message")},
    }
    path = out_dir / f"fuzz-{_slug(impl_name)}-{digest}.yaml"
    text = ("# Found by `kodex fuzz --impl`: the smallest case Hypothesis shrank the difference to.\n"
            "# `then` is the reference engine's result (docs/spec/hkk-case-format.md).\n"
            + yaml.safe_dump({"format": "hkk-case/1", "cases": [case]}, sort_keys=False,
                             allow_unicode=True, default_flow_style=None, width=100))
    write_text(path, text)                  # atomically (conformance.atomicio)
    finding.path = str(path)
    return path


# ---------------------------------------------------------------------------
# the three runners
# ---------------------------------------------------------------------------

def _run_hypothesis(test, cfg: settings, seed_value: int | None) -> None:
    test = settings(cfg)(test)
    if seed_value is not None:
        test = hseed(seed_value)(test)
    test()


def fuzz_properties(cfg: settings = QUICK, *, verbs: Sequence[str] | None = None,
                    only: set[str] | None = None, client: Any = None, max_steps: int = 12,
                    seed_value: int | None = None, stats: dict | None = None,
                    min_deck: int = 0) -> Finding | None:
    """The Hypothesis property over random cases; with `client`, compared with that implementation."""
    from model.engine import run_case

    from .strategies import cases
    box: dict[str, Finding] = {}
    stats = stats if stats is not None else {}
    stats.setdefault("examples", 0)
    stats.setdefault("steps", 0)

    @given(cases(verbs=verbs, max_steps=max_steps, min_deck=min_deck,
                 refused="last" if client is not None else "keep"))
    def prop(case):
        given_, when = case
        stats["examples"] += 1
        stats["steps"] += len(when)
        rep = check_steps(given_, when, stop_at_refusal=client is not None)
        bad = _keep(rep.violations, only)
        if bad:
            box["last"] = Finding("violation", "property", given_, when, violations=bad)
            raise _Failed("; ".join(map(str, bad[:3])))
        if client is None:
            return
        if not declared(client, given_, when):
            stats["not_declared"] = stats.get("not_declared", 0) + 1
            return
        res = run_case(given_, when)
        then = within_profile(expectation(res), client)
        reply = client.run(f"fuzz-{stats['examples']}", "kodex", copy.deepcopy(given_), copy.deepcopy(when))
        diff, viol = compare_reply(then, reply, len(when))
        viol = _keep(viol, only)
        if diff is not None or viol:
            kind = "difference" if diff is not None else "violation"
            box["last"] = Finding(kind, "property", given_, when, violations=viol, difference=diff,
                                  then=then)
            raise _Failed(str(diff or viol))

    try:
        _run_hypothesis(prop, cfg, seed_value)
    except _Failed:
        return box.get("last")
    return None


def _still_fails(given_: dict, when: list, target: set[str]) -> bool:
    rep = check_steps(given_, when)
    if any(v.invariant == "engine_error" and "malformed" in v.message for v in rep.violations):
        return False
    return any(v.invariant in target for v in rep.violations)


def shrink_steps(given_: dict, when: list, target: set[str]) -> list:
    """Greedy step deletion while an invariant of `target` still fails (for unshrunk finds)."""
    when = list(when)
    i = len(when) - 1
    while i >= 0:
        trial = when[:i] + when[i + 1:]
        if _still_fails(given_, trial, target):
            when = trial
        i -= 1
    return when


def fuzz_random_cases(n: int, seed_value: int = 0, *, verbs: Sequence[str] | None = None,
                      only: set[str] | None = None, max_steps: int = 12, min_deck: int = 0,
                      stats: dict | None = None, shrink: bool = True, limit: int = 3) -> list[Finding]:
    """Random cases from a seeded random.Random (no Hypothesis): fixed seeds, reproducible.
    Findings (at most `limit`) have their steps shrunk by greedy deletion."""
    from .strategies import RandomChooser, build_case
    findings: list[Finding] = []
    stats = stats if stats is not None else {}
    stats.setdefault("cases", 0)
    stats.setdefault("steps", 0)
    for i in range(n):
        ch = RandomChooser(random.Random(f"{seed_value}/{i}"))
        given_, when = build_case(ch, verbs=verbs, max_steps=max_steps, min_deck=min_deck)
        stats["cases"] += 1
        stats["steps"] += len(when)
        bad = _keep(check_steps(given_, when).violations, only)
        if not bad:
            continue
        if shrink:
            target = {bad[0].invariant}
            when = shrink_steps(given_, when, target)
            bad = _keep(check_steps(given_, when).violations, only) or bad
        findings.append(Finding("violation", f"random case {seed_value}/{i}", given_, when,
                                violations=bad))
        if len(findings) >= limit:
            break
    return findings


def fuzz_machine(cfg: settings = QUICK, *, only: set[str] | None = None,
                 seed_value: int | None = None) -> Finding | None:
    """The state machine; the shrunk failing run as a Finding."""
    from hypothesis.stateful import run_state_machine_as_test

    from .machine import InvariantBroken, machine_class
    cls = machine_class(only)

    def test():
        run_state_machine_as_test(cls, settings=cfg)
    if seed_value is not None:
        test = hseed(seed_value)(test)
    try:
        test()
    except InvariantBroken as exc:
        return Finding("violation", "machine", exc.given, exc.when, violations=exc.violations)
    return None


def fuzz_driver(games: int, steps: int = 150, seed_value: int = 0, *, only: set[str] | None = None,
                stats: dict | None = None, versions: Sequence[int] = (1, 2)) -> list[Finding]:
    """Whole random games; every step checked; each game replayed (determinism). The games take
    the case format `versions` in turn: hkk-case/2's have reaction cards, plays waiting on the
    reaction queue and automatic abilities (properties/driver.py)."""
    from model.ruleset import load_ruleset
    from model.view import to_dict

    from .driver import drive
    rules = load_ruleset()
    findings: list[Finding] = []
    stats = stats if stats is not None else {}
    stats.setdefault("games", 0)
    stats.setdefault("steps", 0)
    for g in range(games):
        found: list[Violation] = []
        trace: list[Any] = []
        origins: dict[str, tuple[str, str]] = {}
        version = versions[g % len(versions)]

        def stepper(state, step, rules_, i):
            out, viol = check_step(state, copy.deepcopy(step), rules_, i, origins)
            found.extend(viol)
            if out is not None and out.refusal is None:
                trace.append((None, out.events))
            return out

        given_, when, states = drive(seed_value + g, steps, stepper=stepper, keep_states=False,
                                     version=version)
        stats["games"] += 1
        stats["steps"] += len(when)
        if len(trace) == len(when):
            v = replay_differs(given_, when, rules, to_dict(states[-1], rules), trace,
                               version=version)
            if v is not None:
                found.append(v)
        bad = _keep(found, only)
        if bad:
            findings.append(Finding("violation", f"driver seed {seed_value + g}", given_, when,
                                    violations=bad))
    return findings


# ---------------------------------------------------------------------------
# the command line
# ---------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kodex fuzz", description=__doc__.split("\n\n")[0])
    p.add_argument("--examples", type=int, default=200, help="Hypothesis examples (max_examples)")
    p.add_argument("--impl", metavar="COMMAND", help="also run the cases on this implementation")
    p.add_argument("--seed", type=int, help="seed (Hypothesis and the driver); default: random")
    p.add_argument("--out", default=str(DEFAULT_OUT), help="where difference cases are written")
    p.add_argument("--profile", choices=("thorough", "quick"), default="thorough",
                   help="quick: derandomized (the same examples whatever the seed), shorter state-machine "
                        "runs (20 steps instead of 40); default: thorough")
    p.add_argument("--verbs", help="comma-separated verbs the random steps use (default: all)")
    p.add_argument("--invariant", action="append", choices=sorted(INVARIANTS),
                   help="only this invariant fails the run (repeatable)")
    p.add_argument("--games", type=int, help="random legal-play games (default: examples // 10)")
    p.add_argument("--random-cases", type=int,
                   help="random cases from fixed seeds, no Hypothesis (default: examples)")
    p.add_argument("--steps", type=int, default=12, help="at most this many steps per random case")
    p.add_argument("--min-deck", type=int, default=0, help="every random state has this many more deck cards")
    p.add_argument("--game-steps", type=int, default=150, help="at most this many steps per game")
    p.add_argument("--no-machine", action="store_true", help="skip the state machine")
    p.add_argument("--no-property", action="store_true", help="skip the random-case property")
    p.add_argument("--no-shrink", action="store_true", help="report the first failure unshrunk")
    p.add_argument("--timeout", type=float, default=5.0, help="per-case deadline for --impl")
    p.add_argument("--json", metavar="FILE", help="write the findings as JSON")
    p.add_argument("--stderr", metavar="FILE", help="the implementation's stderr log "
                                                    "(default reports/runs/<name>.stderr.log)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    p.epilog = ("examples:\n  kodex fuzz --examples 2000          random play against the invariants\n"
                "  kodex fuzz --examples 500 --impl \"./my-engine --stdio\"   differences from the "
                "reference, shrunk to a case file in reports/fuzz/\n"
                "exit status: 0 nothing found; 1 a violation or a difference; 2 bad usage or an "
                "implementation that cannot be started.\n"
                "Each phase is said on stderr as it starts and every few seconds while it runs "
                "(-q: not).")
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    return p


def _summary(console, rows: list[tuple[str, str, str]], findings: list[Finding], elapsed: float) -> None:
    from rich.table import Table
    t = Table(title="kodex fuzz", show_lines=False)
    t.add_column("run")
    t.add_column("size", justify="right")
    t.add_column("result")
    for r in rows:
        t.add_row(*r)
    console.print(t)
    for f in findings:
        head = f"[red]{f.kind}[/red] ({f.source}, {len(f.when)} step(s))"
        console.print(head)
        for v in f.violations[:5]:
            console.print(f"  {v}", markup=False)
        if f.difference:
            d = f.difference
            console.print(f"  {d.get('path')}: expected {d.get('expected')!r}, got {d.get('actual')!r}"
                          f" {d.get('message') or ''}", markup=False)
        if f.path:
            console.print(f"  written: {f.path}", markup=False)
        elif f.when is not None:
            console.print("  " + json.dumps({"given": f.given, "when": f.when})[:600], markup=False)
    console.print(f"{len(findings)} finding(s) in {elapsed:.1f} s")


def main(argv: Sequence[str] | None = None) -> int:
    from rich.console import Console
    from rich.markup import escape
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    console = Console(stderr=False, quiet=args.quiet)
    seed_value = args.seed if args.seed is not None else random.randrange(1 << 30)
    if args.profile == "quick":
        cfg = settings(QUICK, max_examples=args.examples)     # derandomized whatever the seed
    else:
        cfg = thorough(args.examples)
    cfg = settings(cfg, verbosity=Verbosity.quiet)          # the summary says what was found
    if args.no_shrink:
        cfg = settings(cfg, phases=[Phase.explicit, Phase.reuse, Phase.generate])
    hyp_seed = None if cfg.derandomize else seed_value
    only = set(args.invariant) if args.invariant else None
    from .strategies import ALL_VERBS
    verbs = [v.strip() for v in args.verbs.split(",")] if args.verbs else None
    if verbs:
        unknown = [v for v in verbs if v not in ALL_VERBS]
        if unknown:
            console.print(f"[red]kodex fuzz: unknown verb(s) {', '.join(unknown)}; "
                          f"known: {', '.join(ALL_VERBS)}[/red]")
            return 2
    games = args.games if args.games is not None else max(1, args.examples // 10)
    from .progress import Progress
    progress = Progress("fuzz", enabled=not args.quiet)
    started = time.monotonic()
    findings: list[Finding] = []
    rows: list[tuple[str, str, str]] = []
    if not args.quiet:
        console.print(f"kodex fuzz: seed {seed_value}, profile {args.profile}, "
                      f"{args.examples} example(s)" + (f", implementation {args.impl}" if args.impl else ""))

    if args.impl:
        from conformance.protocol import ProtocolClient, ProtocolError
        try:
            client = ProtocolClient(args.impl, timeout=args.timeout, stderr_path=args.stderr)
        except ProtocolError as exc:
            console.print(f"[red]kodex fuzz: {exc}[/red]")
            return 2
        offered = list(verbs or ALL_VERBS)
        if client.verbs is not None:                  # only what the implementation announced
            verbs = [v for v in offered if v in client.verbs]
            if not verbs:
                client.close()
                console.print(f"[red]kodex fuzz: {escape(client.name)} announces none of the verbs "
                              f"the random cases use ({', '.join(offered)})[/red]")
                return 2
        if not args.quiet:
            console.print("kodex fuzz: only the verbs, features and observations the "
                          f"implementation declared: verbs {', '.join(verbs or offered)}"
                          + (f"; features {', '.join(client.features) or 'none'}"
                             if client.features_declared else "")
                          + (f"; profile {', '.join(client.profile)}"
                             if client.profile_declared else ""))
        try:
            stats: dict = {}
            with progress.phase(f"random cases against {args.impl}",
                                lambda: f"{stats.get('examples', 0)} cases"):
                f = fuzz_properties(cfg, verbs=verbs, only=only, client=client,
                                    max_steps=args.steps, seed_value=hyp_seed, stats=stats,
                                    min_deck=args.min_deck)
            name = client.name
        finally:
            client.close()
        if f is not None:
            if f.kind == "difference":
                write_case(args.out, f, name)
            findings.append(f)
        skipped = stats.get("not_declared", 0)
        rows.append((f"cases vs {name}", f"{stats.get('examples', 0)} cases / {stats.get('steps', 0)} steps"
                     + (f" ({skipped} beyond what it declared, not sent)" if skipped else ""),
                     "difference" if f is not None else "same"))
    else:
        if games:
            dstats: dict = {}
            with progress.phase(f"the legal-play driver, {games} games",
                                lambda: f"{dstats.get('games', 0)} games"):
                fs = fuzz_driver(games, args.game_steps, seed_value, only=only, stats=dstats)
            findings.extend(fs)
            rows.append(("legal-play driver", f"{dstats['games']} games / {dstats['steps']} steps",
                         f"{len(fs)} violation(s)" if fs else "ok"))
        n_random = args.random_cases if args.random_cases is not None else args.examples
        if n_random:
            rstats: dict = {}
            with progress.phase(f"{n_random} random cases (seeded)",
                                lambda: f"{rstats.get('cases', 0)} cases"):
                fs = fuzz_random_cases(n_random, seed_value, verbs=verbs, only=only,
                                       max_steps=args.steps, min_deck=args.min_deck, stats=rstats,
                                       shrink=not args.no_shrink)
            findings.extend(fs)
            rows.append(("random cases (seeded)", f"{rstats['cases']} cases / {rstats['steps']} steps",
                         f"{len(fs)} violation(s)" if fs else "ok"))
        if not args.no_property:
            pstats: dict = {}
            with progress.phase(f"random cases (Hypothesis, up to {cfg.max_examples})",
                                lambda: f"{pstats.get('examples', 0)} cases"):
                f = fuzz_properties(cfg, verbs=verbs, only=only, max_steps=args.steps,
                                    seed_value=hyp_seed, stats=pstats, min_deck=args.min_deck)
            if f is not None:
                findings.append(f)
            rows.append(("random cases (Hypothesis)",
                         f"{pstats.get('examples', 0)} cases / {pstats.get('steps', 0)} steps",
                         "violation" if f else "ok"))
        if not args.no_machine:
            mcfg = settings(cfg, max_examples=max(1, cfg.max_examples // 2))
            with progress.phase(f"the state machine, {mcfg.max_examples} runs"):
                f = fuzz_machine(mcfg, only=only, seed_value=hyp_seed)
            if f is not None:
                findings.append(f)
            rows.append(("state machine", f"{mcfg.max_examples} runs", "violation" if f else "ok"))
    elapsed = time.monotonic() - started
    if not args.quiet:
        _summary(console, rows, findings, elapsed)
    if args.json:
        report = {"schema": "hkk-fuzz/1", "seed": seed_value, "profile": args.profile,
                  "examples": args.examples, "impl": args.impl, "elapsed_s": round(elapsed, 3),
                  "violated": sorted({v.invariant for f in findings for v in f.violations}),
                  "differences": sum(1 for f in findings if f.kind == "difference"),
                  "findings": [f.to_dict() for f in findings]}
        write_text(args.json, json.dumps(report, indent=1, ensure_ascii=False, default=str) + "\n")
    return 1 if findings else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
