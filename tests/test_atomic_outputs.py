"""The files `kodex amend`, `kodex prove` and `kodex fuzz` write go through
conformance.atomicio: an interrupt while writing leaves the previous files whole (no
empty or half-written file, no temporary file left behind), an md + json pair is
renamed together and names the JSON's SHA-256, and the default output directory is
the working directory's `reports/`, never the installed package's."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from properties import fuzz, prove
from reports import amendment

DATA = {"schema": "test/1", "text": "új"}


def _fake_prove(monkeypatch) -> None:
    """run_prove without the solver: the writing is what is tested here."""
    monkeypatch.setattr(prove, "collect", lambda *a, **k: {"exit_code": 0})
    monkeypatch.setattr(prove, "_print_table", lambda report, console=None: None)
    monkeypatch.setattr(prove, "to_json", lambda report: dict(DATA))
    monkeypatch.setattr(prove, "to_markdown", lambda report: "# prove\n")


def _fake_amendment(monkeypatch) -> None:
    monkeypatch.setattr(amendment, "to_markdown", lambda d: "# amendment\n")


def _write_prove(out: Path) -> None:
    assert prove.run_prove(out, json_path=out / "extra.json") == 0


def _write_amendment(out: Path) -> None:
    amendment.write_reports(dict(DATA), out)


WRITERS = {
    "prove": (_fake_prove, _write_prove, ("prove.md", "prove.json", "extra.json")),
    "amendment": (_fake_amendment, _write_amendment, ("amendment.md", "amendment.json")),
}


@pytest.mark.parametrize("which", sorted(WRITERS))
def test_pair_is_written_together_and_names_the_json(tmp_path, monkeypatch, which):
    fake, write, names = WRITERS[which]
    fake(monkeypatch)
    write(tmp_path)
    md_text = (tmp_path / names[0]).read_text(encoding="utf-8")
    js_text = (tmp_path / names[1]).read_text(encoding="utf-8")
    assert json.loads(js_text) == DATA
    assert f"json-sha256: {hashlib.sha256(js_text.encode()).hexdigest()}" in md_text
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)


@pytest.mark.parametrize("where", ["os.replace", "os.fsync"])
@pytest.mark.parametrize("which", sorted(WRITERS))
def test_interrupt_keeps_the_previous_files(tmp_path, monkeypatch, which, where):
    fake, write, names = WRITERS[which]
    fake(monkeypatch)
    for name in names:
        (tmp_path / name).write_text(f"previous {name}\n", encoding="utf-8")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, where.split(".")[1], interrupted)
    with pytest.raises(KeyboardInterrupt):
        write(tmp_path)
    monkeypatch.undo()
    for name in names:
        assert (tmp_path / name).read_text(encoding="utf-8") == f"previous {name}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names), "a temporary file is left"


@pytest.mark.parametrize("which", sorted(WRITERS))
def test_default_output_is_the_working_directory(tmp_path, monkeypatch, which):
    fake, _write, names = WRITERS[which]
    fake(monkeypatch)
    monkeypatch.chdir(tmp_path)
    if which == "prove":
        assert prove.main([]) == 0
    else:
        amendment.write_reports(dict(DATA))
    for name in names[:2]:
        assert json.loads((tmp_path / "reports" / names[1]).read_text(encoding="utf-8")) == DATA
        assert (tmp_path / "reports" / name).is_file()


def _finding() -> fuzz.Finding:
    return fuzz.Finding(kind="difference", source="property", given={"players": {}},
                        when=[{"pass": {}}], then={"result": "ongoing"},
                        difference={"path": "/result", "expected": "ongoing", "actual": "won"})


def test_fuzz_case_file_is_atomic(tmp_path, monkeypatch):
    first = fuzz.write_case(tmp_path, _finding(), "impl")
    before = first.read_text(encoding="utf-8")
    assert "format: hkk-case/1" in before

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fuzz.write_case(tmp_path, _finding(), "impl")
    monkeypatch.undo()
    assert first.read_text(encoding="utf-8") == before
    assert [p.name for p in tmp_path.iterdir()] == [first.name]


def test_fuzz_json_is_atomic(tmp_path, monkeypatch):
    out = tmp_path / "fuzz.json"
    argv = ["--examples", "1", "--games", "0", "--random-cases", "0", "--no-property",
            "--no-machine", "--seed", "1", "-q", "--json", str(out)]
    assert fuzz.main(argv) == 0
    assert json.loads(out.read_text(encoding="utf-8"))["schema"] == "hkk-fuzz/1"
    out.write_text("previous\n", encoding="utf-8")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fuzz.main(argv)
    monkeypatch.undo()
    assert out.read_text(encoding="utf-8") == "previous\n"
    assert [p.name for p in tmp_path.iterdir()] == ["fuzz.json"]
