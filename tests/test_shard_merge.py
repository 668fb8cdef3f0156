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
    for key in ("features", "features_declared", "verdicts", "skip_reasons"):   # issue 24's
        assert data[key] == base[key], key
    assert list(data) == list(base)                     # the fields kodex run writes, in its order


def _results(tmp_path, name, **changes) -> Path:
    data = {"schema": "hkk-results/2", "kit": {"name": "hkk-kodex", "version": "0.1.0"},
            "implementation": {"name": "x"}, "profile": ["state"], "profile_declared": False,
            "features": ["continuous", "lasting"], "features_declared": True, "ruleset": "kodex",
            "started": "2024-01-01T00:00:00+00:00",
            "finished": "2024-01-01T00:00:01+00:00", "duration_ms": 5.0, "gave_up": None,
            "unavailable": None, "cases": [], "totals": {}, "profiles": {}}
    data.update(changes)
    data["totals"] = runner.tally(c["outcome"] for c in data["cases"])
    data["verdicts"] = runner.verdict_count(data["totals"])
    data["skip_reasons"] = runner.skip_reasons(data["cases"])
    data["profiles"] = runner.profile_tallies(data["cases"])
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _case(cid: str, outcome: str, unsupported: tuple = ()) -> dict:
    return {"case_id": cid, "clause": "3.18", "title": "t", "file": "f.yaml", "line": 1,
            "outcome": outcome, "difference": None, "message": "", "ruleset": "kodex",
            "duration_ms": 1.0, "also": [], "traceback": None, "observes": ["state"],
            "unsupported": list(unsupported)}


def test_merge_refuses_overlap(tmp_path, capsys):
    a = _results(tmp_path, "a.json", cases=[_case("c/1", "pass")])
    b = _results(tmp_path, "b.json", cases=[_case("c/1", "pass"), _case("c/2", "pass")])
    out = tmp_path / "m.json"
    assert cli.main(["merge", str(a), str(b), "--json", str(out)]) == 2
    assert "overlapping" in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("field, value", [
    ("implementation", {"name": "other"}), ("ruleset", "other"),
    ("kit", {"name": "hkk-kodex", "version": "9"}), ("profile", ["events"]),
    ("features", ["continuous"]), ("features_declared", False),
])
def test_merge_refuses_inconsistent_inputs(tmp_path, capsys, field, value):
    """Shards run with other declared features were merged without a word (issue 24's
    fields were not compared): each field of _MERGE_SAME is refused alike, in one line."""
    a = _results(tmp_path, "a.json", cases=[_case("c/1", "pass")])
    b = _results(tmp_path, "b.json", cases=[_case("c/2", "pass")], **{field: value})
    out = tmp_path / "m.json"
    assert cli.main(["merge", str(a), str(b), "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kodex merge: cannot merge:\n  {b}: {field} differs from {a}'s (")
    assert len(err.strip().splitlines()) == 2 and not out.exists()


def test_merge_keeps_the_declared_features_and_sums_verdicts_and_skip_reasons(tmp_path, capsys):
    """The merged file had no features, features_declared, verdicts or skip_reasons: a merged
    run that skipped work no longer said why."""
    a = _results(tmp_path, "a.json", cases=[
        _case("c/1", "pass"), _case("c/2", "skip", ["feature:priority"]),
        _case("c/3", "skip", ["feature:priority", "verb:attack"])])
    b = _results(tmp_path, "b.json", cases=[
        _case("c/4", "fail"), _case("c/5", "skip", ["verb:attack"]), _case("c/6", "skip"),
        _case("c/7", "xfail")])
    out = tmp_path / "m.json"
    assert cli.main(["merge", str(a), str(b), "--json", str(out)]) == 1
    data = results_io.read_results(out)                  # valid, and its counts agree
    inputs = [json.loads(p.read_text(encoding="utf-8")) for p in (a, b)]
    assert data["features"] == ["continuous", "lasting"] and data["features_declared"] is True
    assert data["verdicts"] == 2 == sum(d["verdicts"] for d in inputs)
    assert data["skip_reasons"] == {"feature:priority": 2, "verb:attack": 2, "unstated": 1}
    assert list(data["skip_reasons"].values()) == [2, 2, 1]           # the largest first
    err = capsys.readouterr().err
    assert "7 cases: 1 passed, 1 failed, 4 skipped, 1 xfailed (28.6% with a verdict)" in err
    assert "skipped, by reason: feature:priority 2, verb:attack 2, unstated 1" in err


def test_files_written_before_the_features_merge_as_they_were(tmp_path, capsys):
    """An hkk-results/2 file from before issue 24 has no features, verdicts or skip reasons:
    its merge has none either (the schema allows them absent, never null)."""
    paths = []
    for name, cid in (("a.json", "c/1"), ("b.json", "c/2")):
        path = _results(tmp_path, name, cases=[_case(cid, "pass")])
        data = json.loads(path.read_text(encoding="utf-8"))
        for key in ("features", "features_declared", "verdicts", "skip_reasons"):
            del data[key]
        path.write_text(json.dumps(data), encoding="utf-8")
        paths.append(path)
    out = tmp_path / "m.json"
    assert cli.main(["merge", *map(str, paths), "--json", str(out)]) == 0
    data = results_io.read_results(out)
    assert not {"features", "features_declared", "verdicts", "skip_reasons"} & set(data)


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
