"""Finding things from the command line: clause text search, ids as the Kódex writes them,
did-you-mean for commands, clause ids, fields and rulesets, help with examples and exit codes,
and `kodex run --compare-rulesets` (the cases whose outcome depends on the reading)."""
from __future__ import annotations

import json

import pytest

from conformance import cli


def _run(argv, capsys):
    rc = cli.main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_grep_finds_136_8_by_its_hungarian_word_accents_or_not(capsys):
    for word in ("regenerálódás", "regeneralodas", "regenerálodas"):
        rc, out, _ = _run(["clauses", "--grep", word, "--json"], capsys)
        assert rc == 0
        ids = [c["id"] for c in json.loads(out)]
        assert "136.8" in ids and "rb7:regeneralodas" in ids, (word, ids)
        assert "4.8.4" not in ids
    rc, out, _ = _run(["clauses", "--grep", "regenerálódás"], capsys)
    assert rc == 0 and "136.8" in out and "clauses containing 'regenerálódás'" in out


def test_grep_with_a_capital_is_case_sensitive_and_nothing_found_is_exit_1(capsys):
    rc, out, _ = _run(["clauses", "--grep", "Semmi", "--json"], capsys)
    ids = {c["id"] for c in json.loads(out)}
    rc, out, _ = _run(["clauses", "--grep", "semmi", "--json"], capsys)
    lower = {c["id"] for c in json.loads(out)}
    assert "4.8.4" in ids and ids < lower           # "semmilyen" only in the lower-case search
    rc, _out, err = _run(["clauses", "--grep", "xyzzy-nincs-ilyen"], capsys)
    assert rc == 1 and "no clause" in err


def test_a_clause_as_the_kodex_writes_it(capsys):
    rc, plain, _ = _run(["clause", "136.8"], capsys)
    rc2, dotted, _ = _run(["clause", "136.8."], capsys)
    assert rc == rc2 == 0 and plain == dotted
    rc, out, _ = _run(["clause", "mk:5.11.b"], capsys)
    assert rc == 0 and out.startswith("mk:5.11.B")
    rc, out, _ = _run(["clause", "regenerálódás"], capsys)
    assert rc == 2 and "unknown clause" in out and "136.8" in out and "--grep" in out


def test_did_you_mean_for_a_command(capsys):
    rc, _out, err = _run(["rnu"], capsys)
    assert rc == 2 and "did you mean 'kodex run'?" in err and "explain" in err


def test_an_unknown_ruleset_is_exit_2_with_the_list(capsys):
    rc, _out, err = _run(["run", "--ruleset", "nope", "-k", "4.8.4"], capsys)
    assert rc == 2 and "unknown ruleset 'nope'" in err and "kodex-mk" in err
    rc, _out, err = _run(["run", "--ruleset", "kodx", "-k", "4.8.4"], capsys)
    assert rc == 2 and "did you mean 'kodex'?" in err


def test_did_you_mean_for_a_field(capsys, tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text('format: hkk-case/1\ncases:\n  - id: x/1\n    clause: "4.8.4"\n    titel: t\n'
                 '    then: {}\n', encoding="utf-8")
    rc, out, _ = _run(["check", str(f)], capsys)
    assert rc == 2 and "unknown field 'titel' (did you mean 'title'?)" in out
    assert cli.with_suggestion("x: unknown field 'zzz'; known: a, b") == "x: unknown field 'zzz'; known: a, b"


@pytest.mark.parametrize("command", ["clauses", "clause", "check", "run", "explain", "serve",
                                     "coverage", "diff", "merge", "report", "amend", "prove",
                                     "fuzz", "strength"])
def test_help_has_examples_and_exit_codes(command, capsys):
    try:
        rc = cli.main([command, "--help"])
    except SystemExit as exc:            # prove, fuzz and strength: their own parsers exit
        rc = exc.code
    assert rc == 0
    out = capsys.readouterr().out
    assert "exit status" in out and ("example" in out), command


@pytest.mark.parametrize("command", ["run", "coverage", "report", "merge", "diff", "amend"])
def test_the_help_of_a_command_that_writes_says_exit_5(command, capsys):
    """No --help named exit 5 (an output that cannot be written), which each of these gives."""
    from conformance.atomicio import EXIT_OUTPUT
    assert cli.main([command, "--help"]) == 0
    statuses = capsys.readouterr().out.split("exit status:\n", 1)[1]
    assert f"\n  {EXIT_OUTPUT}  an output cannot be written (a full disk" in "\n" + statuses


def test_every_help_lists_the_statuses_of_the_one_table(capsys):
    """Each command's exit statuses are written from cli.EXIT_STATUSES, every row of it; a command
    that writes (cli.WRITES) has the status of an output that cannot be written, and only those."""
    for command, rows in cli.EXIT_STATUSES.items():
        assert cli.main([command, "--help"]) == 0
        help_text = capsys.readouterr().out
        statuses = help_text.split("exit status:\n", 1)[1]
        for code, text in rows:
            first = text.split()[0]
            assert ("  " if code is None else f"  {code}  ") + first in statuses, (command, code)
    writers = {c for c, rows in cli.EXIT_STATUSES.items() if cli.OUTPUT_STATUS in rows}
    assert writers == set(cli.WRITES) == {"run", "coverage", "report", "merge", "diff", "amend"}


def test_compare_rulesets_lists_the_reading_dependent_cases(capsys, tmp_path):
    out_json = tmp_path / "cmp.json"
    rc, out, _ = _run(["run", "--compare-rulesets", "-k", "4.15.1", "--json", str(out_json)], capsys)
    assert rc == 0
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data["schema"] == "hkk-ruleset-comparison/1"
    dep = {r["case_id"]: r for r in data["depends"]}
    row = dep["4.15.1/b3-premade-shuffle-into-deck-removed"]
    assert row["outcomes"]["kodex"] == "pass" and row["outcomes"]["kodex-4.15.1"] == "fail"
    assert data["same"] + len(data["depends"]) + len(data["skipped_everywhere"]) == data["cases"]
    assert "depend on the reading" in out and "kodex-4.15.1: readings.premade-bound-for-deck = void" in out
    rc, _out, _err = _run(["run", "--compare-rulesets", "--ruleset", "kodex-mk"], capsys)
    assert rc == 2


def test_the_pytest_plugin_refuses_an_unknown_ruleset(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    corpus = root / "conformance" / "corpus" / "kodex-03-jatek-celja.yaml"
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(corpus),
                        "--kodex-ruleset", "nope", "-k", "3.18"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(root)))
    assert p.returncode == 4, p.stdout + p.stderr                  # pytest's usage error
    assert "unknown ruleset 'nope'" in p.stderr and "kodex-mk" in p.stderr
