"""Tests of reports/amendment.py (``kodex amend``): an amended copy of the Kódex built
in tmp_path (4.8.4 reworded, 96.8 deleted, 4.8.5 renumbered to 4.8.6, 4.8.7 added) and
the report's clauses, cases, code, registers, findings, outputs and exit codes."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conformance import cli
from conformance.loader import load_files
from reports import amendment

ROOT = Path(__file__).resolve().parents[1]
KODEX = ROOT / "conformance" / "kodex"
PART_II = "kodex-part-II.txt"
PART_VI = "kodex-part-VI.txt"
NBSP = "\u00a0"
OLD_484 = "A Semmiből semmilyen módon nem kerülhet ki lap."
NEW_484 = "A Semmiből csak szabálylap hatására kerülhet ki lap."
ADDED_TEXT = "A Semmibe került lapok számát bármikor meg lehet számolni."

CORPUS = """\
format: hkk-case/1
cases:
  - id: "amend/void-to-hand-refused"
    clause: "4.8.4"
    title: "Nothing leaves the Void"
    given:
      players:
        A: {void: [c1]}
      cards:
        c1: {kind: instant}
    when:
      - move: {card: c1, to: hand}
    then:
      error: {clause: "4.8.4"}
  - id: "amend/exile-again-refused"
    clause: "4.16.0"
    also: ["4.8.4"]
    title: "A card in the Void cannot be exiled again"
    given:
      players:
        A: {void: [c1]}
      cards:
        c1: {kind: instant}
    when:
      - exile: {card: c1}
    then:
      error: true
  - id: "amend/premade-to-void-removed"
    clause: "96.8"
    title: "A premade card bound for the Void leaves the game"
    given:
      players:
        A: {hand: [t1]}
      cards:
        t1: {kind: creature, premade: true, damage: 1, hp: 1}
    when:
      - move: {card: t1, to: void}
    then:
      removed: [t1]
  - id: "amend/void-is-public"
    clause: "4.8.5"
    title: "cites the clause that is renumbered"
    then: {}
  - id: "amend/unrelated"
    clause: "3.18"
    title: "Healing stops at the cap"
    given:
      players:
        A: {hp: 18}
    when:
      - heal: {target: A, amount: 5}
    then:
      players:
        A: {hp: 20}
"""


def _write(d: Path, name: str, text: str) -> None:
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(text, encoding="utf-8")


def amended_copy(d: Path) -> Path:
    """4.8.4 reworded, 4.8.5 renumbered 4.8.6, 4.8.7 added (part II); 96.8 deleted (part VI)."""
    t = (KODEX / PART_II).read_text(encoding="utf-8")
    assert t.count(OLD_484) == 1
    t = t.replace(OLD_484, NEW_484)
    assert t.count(f"4.8.5.{NBSP}") == 1
    t = t.replace(f"4.8.5.{NBSP}", f"4.8.6.{NBSP}")
    i = t.index(f"4.9.{NBSP}Asztal")
    t = t[:i] + f"4.8.7.{NBSP}\n\n{ADDED_TEXT}\n\n" + t[i:]
    _write(d, PART_II, t)
    lines = (KODEX / PART_VI).read_text(encoding="utf-8").split("\n")
    k = next(i for i, ln in enumerate(lines) if ln.startswith("96.8."))
    assert lines[k + 2].startswith("Az előre kikészített lap bekerülhet")
    del lines[k:k + 3]
    _write(d, PART_VI, "\n".join(lines))
    return d


@pytest.fixture
def corpus(tmp_path) -> Path:
    p = tmp_path / "corpus" / "amend.yaml"
    _write(p.parent, p.name, CORPUS)
    return p


@pytest.fixture
def report(tmp_path, corpus) -> tuple[int, dict, Path]:
    new = amended_copy(tmp_path / "new")
    out = tmp_path / "out"
    rc = amendment.main([str(new), "--out", str(out), "--corpus", str(corpus)])
    data = json.loads((out / "amendment.json").read_text(encoding="utf-8"))
    return rc, data, out


def _ids(rows, key="id"):
    return [r[key] for r in rows]


def test_the_amended_clauses_are_classified(report):
    rc, d, _ = report
    assert rc == 1 and d["exit"] == 1
    assert d["schema"] == "hkk-amendment/1"
    assert _ids(d["changed"]) == ["4.8.4"]
    assert _ids(d["removed"]) == ["96.8"]
    assert [(m["from"], m["to"], m["match"]) for m in d["moved"]] == [("4.8.5", "4.8.6", "exact")]
    assert _ids(d["added"]) == ["4.8.7"]
    assert d["title_changed"] == []
    s = d["summary"]
    assert (s["changed"], s["removed"], s["moved"], s["added"]) == (1, 1, 1, 1)
    files = {f["name"]: f["status"] for f in d["new"]["files"]}
    assert files[PART_II] == files[PART_VI] == "amended"
    assert files["rulebook-7th-edition-chapter-2.txt"] == "unchanged"


def test_changed_clause_has_a_word_diff_and_its_title(report):
    _, d, _ = report
    ch = d["changed"][0]
    assert ch["heading"] == "Semmi"                  # 4.8.4 has no title: its parent's
    assert ch["section_title"] == "Alapfogalmak, alapdefiníciók"
    assert ch["old"]["sha256"] != ch["new"]["sha256"]
    assert {"op": "replace", "old": "semmilyen módon nem",
            "new": "csak szabálylap hatására"} in ch["diff"]
    assert "[-semmilyen módon nem-] {+csak szabálylap hatására+}" in ch["word_diff"]


def test_impact_of_the_changed_clause(report):
    _, d, _ = report
    imp = d["changed"][0]["impact"]
    roles = {(c["id"], c["role"]) for c in imp["cases"]}
    assert roles == {("amend/void-to-hand-refused", "clause"), ("amend/exile-again-refused", "also")}
    files = {c["file"] for c in imp["code"]}
    assert "model/zones.py" in files
    assert any(c["file"] == "model/zones.py" and c["how"] == "docstring" for c in imp["code"])
    assert d["changed"][0]["needs_review"] is True


def test_impact_of_removed_and_moved_clauses(report):
    _, d, _ = report
    rm = d["removed"][0]["impact"]
    assert _ids(rm["cases"]) == ["amend/premade-to-void-removed"]
    assert "premade-bound-for-deck" in _ids(rm["conflicts"])
    assert "model/zones.py" in {c["file"] for c in rm["code"]}
    mv = d["moved"][0]["impact"]
    assert _ids(mv["cases"]) == ["amend/void-is-public"]
    # an untestable entry naming 4.8.5 must follow the renumbering: it is listed
    expected = [{"file": e["file"], "reason": e["reason"]}
                for e in amendment.load_untestable_entries() if e["clause"] == "4.8.5"]
    assert mv["untestable"] == expected


def test_added_clause_is_uncovered(report):
    _, d, _ = report
    add = d["added"][0]
    assert add["new"]["text"] == ADDED_TEXT
    assert add["uncovered"] is True and add["reuses_id"] is False


def test_review_list_and_unrelated_case(report):
    _, d, _ = report
    review = {r["id"]: r["clauses"] for r in d["review"]["cases"]}
    assert review == {"amend/void-to-hand-refused": ["4.8.4"],
                      "amend/exile-again-refused": ["4.8.4"],
                      "amend/premade-to-void-removed": ["96.8"],
                      "amend/void-is-public": ["4.8.5"]}
    assert d["summary"]["cases_to_review"] == 4
    assert any(r["file"] == "model/zones.py" for r in d["review"]["code"])
    assert {r["id"] for r in d["review"]["conflicts"]} == {"premade-bound-for-deck"}


def test_new_findings(report):
    _, d, _ = report
    new = [(f["kind"], f["clause"]) for f in d["findings"]["new"]]
    assert ("gap", "4.8.5") in new                  # 4.8.5 now missing between 4.8.4 and 4.8.6
    assert d["findings"]["resolved"] == []


def test_markdown_report(report):
    _, d, out = report
    md = (out / "amendment.md").read_text(encoding="utf-8")
    assert md.startswith("# Kódex amendment")
    assert "### 4.8.4 — ↳ Semmi" in md
    assert "~~semmilyen módon nem~~ **csak szabálylap hatására**" in md
    assert "| 4.8.5 | 4.8.6 |" in md
    assert "**96.8**" in md and "nothing covers it yet" in md
    assert "`amend/void-to-hand-refused`" in md


def test_real_corpus_cases_citing_4_8_4(tmp_path):
    """Against the project's corpus: exactly the cases citing 4.8.4 are listed."""
    new = amended_copy(tmp_path / "new")
    d = amendment.analyse(new)
    expected = {c.id for c in load_files(None, catalog=False).cases
                if c.clause == "4.8.4" or "4.8.4" in (c.also or [])}
    got = {c["id"] for c in d["changed"][0]["impact"]["cases"]}
    assert got == expected and expected
    assert "model/zones.py" in {c["file"] for c in d["changed"][0]["impact"]["code"]}


def test_cli_amend_delegates_and_writes_json(tmp_path, corpus, capsys):
    new = amended_copy(tmp_path / "new")
    js = tmp_path / "a.json"
    rc = cli.main(["amend", str(new), "--out", str(tmp_path / "o"), "--json", str(js),
                   "--corpus", str(corpus)])
    assert rc == 1
    assert json.loads(js.read_text(encoding="utf-8"))["schema"] == "hkk-amendment/1"
    outp = capsys.readouterr().out
    assert "4.8.4" in outp and "Semmi" in outp and "review needed" in outp
    assert "[-semmilyen módon nem-]" in outp          # no colours when captured: diff markup


def test_json_to_stdout(tmp_path, corpus, capsys):
    new = amended_copy(tmp_path / "new")
    rc = amendment.main([str(new), "--out", str(tmp_path / "o"), "--json", "-",
                         "--corpus", str(corpus)])
    assert rc == 1
    assert json.loads(capsys.readouterr().out)["summary"]["changed"] == 1


def test_identical_copy_changes_nothing(tmp_path, corpus):
    new = tmp_path / "new"
    new.mkdir()
    shutil.copy(KODEX / PART_II, new / PART_II)
    d = amendment.analyse(new, corpus=[corpus])
    assert d["exit"] == 0
    assert not (d["changed"] or d["moved"] or d["removed"] or d["added"] or d["title_changed"])
    assert d["findings"] == {"new": [], "resolved": []}
    assert {f["name"]: f["status"] for f in d["new"]["files"]}[PART_II] == "identical"
    rc = amendment.main([str(new), "--out", str(tmp_path / "o"), "--corpus", str(corpus)])
    assert rc == 0


def test_title_change_only_needs_no_review(tmp_path, corpus):
    t = (KODEX / PART_II).read_text(encoding="utf-8")
    assert t.count(f"4.8.{NBSP}Semmi\n") == 1
    _write(tmp_path / "new", PART_II, t.replace(f"4.8.{NBSP}Semmi\n", f"4.8.{NBSP}A Semmi\n"))
    d = amendment.analyse(tmp_path / "new", corpus=[corpus])
    assert d["title_changed"] == [{"id": "4.8", "old_title": "Semmi", "new_title": "A Semmi",
                                   "section": "4", "section_title": "Alapfogalmak, alapdefiníciók",
                                   "cases": 0}]
    assert not (d["changed"] or d["moved"] or d["removed"] or d["added"])
    assert d["exit"] == 0


def test_new_duplicate_is_a_new_finding(tmp_path, corpus):
    t = (KODEX / PART_II).read_text(encoding="utf-8")
    i = t.index(f"4.9.{NBSP}Asztal")
    t = t[:i] + f"4.8.4.{NBSP}\n\nMásodik 4.8.4 szövege.\n\n" + t[i:]
    _write(tmp_path / "new", PART_II, t)
    d = amendment.analyse(tmp_path / "new", corpus=[corpus])
    assert ("duplicate", "4.8.4") in [(f["kind"], f["clause"]) for f in d["findings"]["new"]]
    assert d["changed"] == [] and d["exit"] == 0     # the first 4.8.4 is kept, unchanged


def test_renumbered_and_reworded_is_a_similar_move(tmp_path, corpus):
    t = (KODEX / PART_II).read_text(encoding="utf-8")
    t = t.replace(f"4.8.5.{NBSP}", f"4.8.9.{NBSP}").replace(
        "bármikor szabadon átvizsgálhatók", "bármikor átvizsgálhatók")
    _write(tmp_path / "new", PART_II, t)
    d = amendment.analyse(tmp_path / "new", corpus=[corpus])
    assert [(m["from"], m["to"], m["match"]) for m in d["moved"]] == [("4.8.5", "4.8.9", "similar")]
    assert {"op": "delete", "old": "szabadon", "new": ""} in d["moved"][0]["diff"]
    assert d["removed"] == [] and d["added"] == []


def test_shifted_numbers(tmp_path, corpus):
    """A clause inserted before 4.8.4: 4.8.4 → 4.8.5 and 4.8.5 → 4.8.6; the new 4.8.4 reuses the id."""
    t = (KODEX / PART_II).read_text(encoding="utf-8")
    t = t.replace(f"4.8.5.{NBSP}", f"4.8.6.{NBSP}").replace(f"4.8.4.{NBSP}", f"4.8.5.{NBSP}")
    i = t.index(f"4.8.5.{NBSP}")
    t = t[:i] + f"4.8.4.{NBSP}\n\n{ADDED_TEXT}\n\n" + t[i:]
    _write(tmp_path / "new", PART_II, t)
    d = amendment.analyse(tmp_path / "new", corpus=[corpus])
    assert [(m["from"], m["to"]) for m in d["moved"]] == [("4.8.4", "4.8.5"), ("4.8.5", "4.8.6")]
    assert [(a["id"], a["reuses_id"]) for a in d["added"]] == [("4.8.4", True)]
    assert d["changed"] == [] and d["removed"] == []
    assert {c["id"] for c in d["moved"][0]["impact"]["cases"]} == {
        "amend/void-to-hand-refused", "amend/exile-again-refused"}
    assert d["exit"] == 1


def test_removed_clause_whose_id_is_taken(tmp_path, corpus):
    """4.8.4 deleted and 4.8.5 renumbered into its place."""
    t = (KODEX / PART_II).read_text(encoding="utf-8")
    i, j = t.index(f"4.8.4.{NBSP}"), t.index(f"4.8.5.{NBSP}")
    t = t[:i] + t[j:].replace(f"4.8.5.{NBSP}", f"4.8.4.{NBSP}", 1)
    _write(tmp_path / "new", PART_II, t)
    d = amendment.analyse(tmp_path / "new", corpus=[corpus])
    assert [(m["from"], m["to"]) for m in d["moved"]] == [("4.8.5", "4.8.4")]
    assert [(r["id"], r.get("id_taken_by")) for r in d["removed"]] == [("4.8.4", "4.8.5")]
    assert d["changed"] == [] and d["added"] == []


@pytest.mark.parametrize("setup", ["missing", "empty", "bad-base", "not-utf8", "bad-corpus"])
def test_bad_input_exits_2(tmp_path, corpus, setup, capsys):
    new = tmp_path / "new"
    argv = [str(new), "--out", str(tmp_path / "o"), "--corpus", str(corpus)]
    if setup == "empty":
        new.mkdir()
    elif setup == "bad-base":
        shutil.copytree(KODEX, new)
        argv += ["--base", str(tmp_path / "nowhere")]
    elif setup == "not-utf8":
        new.mkdir()
        (new / PART_II).write_bytes("Semmi".encode("latin-1") + b"\xe9\xff")
    elif setup == "bad-corpus":
        shutil.copytree(KODEX, new)
        argv[-1] = str(tmp_path / "no-corpus.yaml")
    assert amendment.main(argv) == 2
    assert "kodex amend:" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    assert cli.main(["amend", *argv]) == 2


def test_word_diff_helpers():
    ops = amendment.word_diff("a b c d", "a x c d e")
    assert ops == [{"op": "equal", "old": "a", "new": "a"},
                   {"op": "replace", "old": "b", "new": "x"},
                   {"op": "equal", "old": "c d", "new": "c d"},
                   {"op": "insert", "old": "", "new": "e"}]
    assert amendment.word_diff_text(ops) == "a [-b-] {+x+} c d {+e+}"
    long = " ".join(f"w{i}" for i in range(30))
    text = amendment.word_diff_text(amendment.word_diff(long, long + " z"), context=3)
    assert text == "… w27 w28 w29 {+z+}"


def test_an_amended_text_under_another_name_is_matched_by_content(tmp_path, corpus):
    """Part VI amended (96.8 deleted) and saved as `kodex-VI-2027.txt`: the change is reported,
    never "0 changed … nothing cited changed" with exit 0."""
    lines = (KODEX / PART_VI).read_text(encoding="utf-8").split("\n")
    k = next(i for i, ln in enumerate(lines) if ln.startswith("96.8."))
    del lines[k:k + 3]
    _write(tmp_path / "new", "kodex-VI-2027.txt", "\n".join(lines))
    out = tmp_path / "out"
    rc = amendment.main([str(tmp_path / "new"), "--out", str(out), "--corpus", str(corpus)])
    d = json.loads((out / "amendment.json").read_text(encoding="utf-8"))
    assert rc == 1 and [r["id"] for r in d["removed"]] == ["96.8"]
    (row,) = [f for f in d["new"]["files"] if f["name"] == "kodex-VI-2027.txt"]
    assert row["matches"] == PART_VI and row["status"] == "amended"
    assert row["source_id"] == "000_1a9e2c8ab29223d6.txt"
    assert d["removed"][0]["old"]["source"] == PART_VI


def test_a_document_that_matches_no_vendored_text_is_refused(tmp_path, corpus, capsys):
    _write(tmp_path / "new", "notes.txt", "Ez csak egy jegyzet, nem a Kódex.\n")
    rc = amendment.main([str(tmp_path / "new"), "--out", str(tmp_path / "o"), "--corpus", str(corpus)])
    err = capsys.readouterr().err
    assert rc == 2 and "notes.txt: matches no vendored text" in err
    assert not (tmp_path / "o").exists()
    # two amended copies of one text: which one counts is not guessed
    shutil.copy(KODEX / PART_II, tmp_path / "new" / "a.txt")
    shutil.copy(KODEX / PART_II, tmp_path / "new" / "b.txt")
    (tmp_path / "new" / "notes.txt").unlink()
    rc = amendment.main([str(tmp_path / "new"), "--out", str(tmp_path / "o"), "--corpus", str(corpus)])
    assert rc == 2 and "b.txt: Kódex part II again (already a.txt)" in capsys.readouterr().err


def test_a_number_that_changes_flags_the_ruleset_and_the_source_still_saying_it(tmp_path, corpus):
    """136.7 amended from 4 to 5 Ép: the ruleset's `regeneration_per_turn: 4  # 136.7` and the
    rulebook's "max. 4 ÉP" (cited with 136.7 by the engine) are flagged, with a suggested
    conflicts-register entry and the next steps."""
    import yaml
    t = (KODEX / PART_VI).read_text(encoding="utf-8")
    old = "legfeljebb 4 Ép-t lehet így gyógyítani"
    assert t.count(old) == 1
    _write(tmp_path / "new", "vi.txt", t.replace(old, "legfeljebb 5 Ép-t lehet így gyógyítani"))
    d = amendment.analyse(tmp_path / "new", corpus=[corpus])
    assert d["exit"] == 1 and [r["id"] for r in d["changed"]] == ["136.7"]
    (num,) = d["numbers"]
    assert (num["file"], num["key"], num["was"], num["now"]) == (
        "model/rulesets/kodex.yaml", "regeneration_per_turn", ["4"], ["5"])
    (old_rule,) = d["still_old"]
    assert old_rule["clause"] == "rb7:regeneralodas" and "max. 4 ÉP-t regenerálhatsz" in old_rule["says"]
    (entry,) = yaml.safe_load(old_rule["suggested_conflict"])
    assert entry["clauses"] == ["136.7", "rb7:regeneralodas"] and entry["default"] == "amended"
    assert entry["readings"]["earlier"]["text"] == old_rule["says"]
    steps = "\n".join(d["next_steps"])
    assert "model/rulesets/kodex.yaml:" in steps and "regeneration_per_turn" in steps
    assert "rb7:regeneralodas" in steps and "conformance/conflicts.yaml" in steps
    assert "copy vi.txt over conformance/kodex/kodex-part-VI.txt" in steps
    md = amendment.to_markdown(d)
    assert "## Sources still stating the old rule" in md and "## Next steps" in md
    # a number not in any ruleset (4.8.4 has none): nothing flagged
    d = amendment.analyse(amended_copy(tmp_path / "other"), corpus=[corpus])
    assert d["numbers"] == [] and d["still_old"] == []


def test_an_added_clause_no_case_covers_is_a_finding(tmp_path, corpus):
    t = (KODEX / PART_II).read_text(encoding="utf-8")
    i = t.index(f"4.9.{NBSP}Asztal")
    _write(tmp_path / "new", PART_II, t[:i] + f"4.8.7.{NBSP}\n\n{ADDED_TEXT}\n\n" + t[i:])
    d = amendment.analyse(tmp_path / "new", corpus=[corpus])
    assert [a["id"] for a in d["added"]] == ["4.8.7"] and d["summary"]["uncovered_added"] == 1
    assert d["exit"] == 1 and d["summary"]["needs_review"]
    assert any("Write a case for each added clause" in s and "4.8.7" in s for s in d["next_steps"])


def test_apply_rewrites_clause_and_also_after_a_renumbering(tmp_path, corpus, capsys):
    """4.8.4 → 4.8.5 and 4.8.5 → 4.8.6 (a clause inserted before them): --apply rewrites the
    cases' clause and also, nothing else; the then that names 4.8.4 is listed, not rewritten."""
    t = (KODEX / PART_II).read_text(encoding="utf-8")
    t = t.replace(f"4.8.5.{NBSP}", f"4.8.6.{NBSP}").replace(f"4.8.4.{NBSP}", f"4.8.5.{NBSP}")
    i = t.index(f"4.8.5.{NBSP}")
    _write(tmp_path / "new", PART_II, t[:i] + f"4.8.4.{NBSP}\n\n{ADDED_TEXT}\n\n" + t[i:])
    before = corpus.read_text(encoding="utf-8")
    out = tmp_path / "out"
    rc = amendment.main([str(tmp_path / "new"), "--out", str(out), "--corpus", str(corpus)])
    assert rc == 1 and corpus.read_text(encoding="utf-8") == before     # without --apply: untouched
    d = json.loads((out / "amendment.json").read_text(encoding="utf-8"))
    assert any("--apply" in s for s in d["next_steps"])
    assert {(r["case"], r["at"], r["clause"]) for r in d["then_references"]} == {
        ("amend/void-to-hand-refused", "/then/error/clause", "4.8.4")}
    rc = amendment.main([str(tmp_path / "new"), "--out", str(out), "--corpus", str(corpus),
                         "--apply"])
    after = corpus.read_text(encoding="utf-8")
    assert rc == 1
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines()) if a != b]
    assert changed == [('    clause: "4.8.4"', '    clause: "4.8.5"'),
                       ('    also: ["4.8.4"]', '    also: ["4.8.5"]'),
                       ('    clause: "4.8.5"', '    clause: "4.8.6"')]
    cases = {c.id: c for c in load_files([corpus], catalog=False).cases}
    assert cases["amend/void-to-hand-refused"].clause == "4.8.5"
    assert cases["amend/void-to-hand-refused"].then["error"]["clause"] == "4.8.4"
    assert cases["amend/void-is-public"].clause == "4.8.6"
    d = json.loads((out / "amendment.json").read_text(encoding="utf-8"))
    assert len(d["applied"]) == 3 and "rewritten" in capsys.readouterr().out
