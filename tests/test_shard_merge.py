"""`kodex run --shard K/N` and `kodex merge` (issue 10): stable slices by case
id that cover a selection exactly once, and a merge that recomputes totals and
refuses overlapping or inconsistent inputs. Writes only under tmp_path."""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from conformance import cli, results_io, runner

CASES = """\
format: hkk-case/1
cases:
""" + "".join(f"""\
  - id: "sh/heal-{i}"
    clause: "3.18"
    title: "Healing stops at the maximum ({i})"
    given: {{players: {{A: {{hp: 18}}}}}}
    when: [{{heal: {{target: A, amount: {i + 2}}}}}]
    then: {{players: {{A: {{hp: {20 if i != 7 else 19}}}}}}}
""" for i in range(12))


@pytest.fixture
def corpus(tmp_path) -> Path:
    f = tmp_path / "cases.yaml"
    f.write_text(CASES, encoding="utf-8")
    return f


def _ids(path: Path) -> list[str]:
    return [c["case_id"] for c in json.loads(path.read_text(encoding="utf-8"))["cases"]]


def test_shards_are_stable_and_partition_the_cases():
    ids = [f"x/{i}" for i in range(200)]
    cases = [SimpleNamespace(id=i) for i in ids]
    slices = [runner.select_shard(cases, k, 4) for k in range(1, 5)]
    got = [c.id for s in slices for c in s]
    assert sorted(got) == sorted(ids) and len(got) == len(ids)
    assert all(slices), "200 ids spread over 4 shards leave none empty"
    # adding unrelated cases moves no case to another shard
    more = cases + [SimpleNamespace(id=f"new/{i}") for i in range(50)]
    for k in range(1, 5):
        kept = [c.id for c in runner.select_shard(more, k, 4) if c.id.startswith("x/")]
        assert kept == [c.id for c in slices[k - 1]]
    assert runner.shard_of("x/1", 1) == 1
    with pytest.raises(ValueError):
        runner.select_shard(cases, 0, 4)


@pytest.mark.parametrize("bad", ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", "1/20000"])
def test_bad_shard_is_a_usage_error(corpus, capsys, bad):
    assert cli.main(["run", "-q", str(corpus), "--shard", bad]) == 2
    assert "--shard" in capsys.readouterr().err


def test_shards_then_merge_equal_the_whole_run(corpus, tmp_path, capsys):
    whole = tmp_path / "whole.json"
    assert cli.main(["run", "-q", str(corpus), "--json", str(whole)]) == 1   # one failing case
    parts = []
    for k in (1, 2, 3):
        out = tmp_path / f"part{k}.json"
        rc = cli.main(["run", "-q", str(corpus), "--shard", f"{k}/3", "--json", str(out)])
        assert rc in (0, 1, 2)
        if out.exists():
            parts.append(out)
    assert sorted(i for p in parts for i in _ids(p)) == sorted(_ids(whole))
    merged = tmp_path / "merged.json"
    rc = cli.main(["merge", *map(str, parts), "--json", str(merged)])
    assert rc == 1                                      # the failing case is still a fail
    data = results_io.read_results(merged)                  # schema-valid hkk-results/2
    base = json.loads(whole.read_text(encoding="utf-8"))
    assert data["totals"] == base["totals"]
    assert data["profiles"] == base["profiles"]
    assert sorted(_ids(merged)) == sorted(_ids(whole))


def _results(tmp_path, name, **changes) -> Path:
    data = {"schema": "hkk-results/2", "kit": {"name": "hkk-kodex", "version": "0.1.0"},
            "implementation": {"name": "x"}, "profile": ["state"], "profile_declared": False,
            "ruleset": "kodex", "started": "2024-01-01T00:00:00+00:00",
            "finished": "2024-01-01T00:00:01+00:00", "duration_ms": 5.0, "gave_up": None,
            "unavailable": None, "cases": [], "totals": {}, "profiles": {}}
    data.update(changes)
    data["totals"] = runner.tally(c["outcome"] for c in data["cases"])
    data["profiles"] = runner.profile_tallies(data["cases"])
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _case(cid: str, outcome: str) -> dict:
    return {"case_id": cid, "clause": "3.18", "title": "t", "file": "f.yaml", "line": 1,
            "outcome": outcome, "difference": None, "message": "", "ruleset": "kodex",
            "duration_ms": 1.0, "also": [], "traceback": None, "observes": ["state"],
            "unsupported": []}


def test_merge_refuses_overlap(tmp_path, capsys):
    a = _results(tmp_path, "a.json", cases=[_case("c/1", "pass")])
    b = _results(tmp_path, "b.json", cases=[_case("c/1", "pass"), _case("c/2", "pass")])
    out = tmp_path / "m.json"
    assert cli.main(["merge", str(a), str(b), "--json", str(out)]) == 2
    assert "overlapping" in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("field, value", [
    ("implementation", {"name": "other"}), ("ruleset", "other"),
    ("kit", {"name": "hkk-kodex", "version": "9"}), ("profile", ["events"]),
])
def test_merge_refuses_inconsistent_inputs(tmp_path, capsys, field, value):
    a = _results(tmp_path, "a.json", cases=[_case("c/1", "pass")])
    b = _results(tmp_path, "b.json", cases=[_case("c/2", "pass")], **{field: value})
    out = tmp_path / "m.json"
    assert cli.main(["merge", str(a), str(b), "--json", str(out)]) == 2
    assert field in capsys.readouterr().err and not out.exists()


def test_merge_refuses_totals_that_disagree_and_unreadable_files(tmp_path, capsys):
    a = _results(tmp_path, "a.json", cases=[_case("c/1", "pass")])
    data = json.loads(a.read_text(encoding="utf-8"))
    data["totals"]["pass"] = 7
    a.write_text(json.dumps(data), encoding="utf-8")
    b = _results(tmp_path, "b.json", cases=[_case("c/2", "pass")])
    out = tmp_path / "m.json"
    assert cli.main(["merge", str(a), str(b), "--json", str(out)]) == 2
    assert "/totals/pass: 7, but 1 of the cases" in capsys.readouterr().err
    junk = tmp_path / "junk.json"
    junk.write_text("{", encoding="utf-8")
    assert cli.main(["merge", str(b), str(junk), "--json", str(out)]) == 2
    assert cli.main(["merge", str(b), str(tmp_path / "missing.json"), "--json", str(out)]) == 2
    assert not out.exists()


@pytest.mark.parametrize("outcomes, extra, status", [
    (["pass", "pass"], {}, 0),
    (["pass", "xfail"], {}, 0),
    (["pass", "fail"], {}, 1),
    (["pass", "xpass"], {}, 1),
    (["skip", "skip"], {}, 4),
    (["pass", "not_run"], {"gave_up": {"reason": "crashes", "after_case": "c/1"}}, 3),
    (["not_run", "not_run"], {"unavailable": "implementation unavailable: x"}, 3),
])
def test_merge_exit_status_and_recomputed_totals(tmp_path, capsys, outcomes, extra, status):
    a = _results(tmp_path, "a.json", cases=[_case("c/1", outcomes[0])])
    b = _results(tmp_path, "b.json", cases=[_case("c/2", outcomes[1])], **extra)
    out = tmp_path / "m.json"
    assert cli.main(["merge", str(a), str(b), "--json", str(out)]) == status
    data = results_io.read_results(out)
    assert data["totals"] == runner.tally(outcomes)
    assert data["duration_ms"] == 10.0
    assert data["profiles"]["state"]["cases"] == 2
    if extra.get("gave_up"):
        assert data["gave_up"]["file"] == str(b)
    if extra.get("unavailable"):
        assert str(b) in data["unavailable"]
