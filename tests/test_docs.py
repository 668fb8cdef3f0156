"""The project's documentation (issue 29): every link of every page resolves, to a file and a
heading inside the repository, and no path points outside it; the command table is the one the
argument parsers give (docs/commands.md, conformance/command_docs.py); the README stays a
newcomer's ten-minute read, names the two set-up commands CI runs, and the glossary keeps the
Hungarian words of the Kódex."""
from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = sorted([README, ROOT / "CHANGELOG.md", *(ROOT / "docs").rglob("*.md"),
                *(ROOT / "benchmarks").glob("*.md"), *(ROOT / "examples").glob("*/README.md")])

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
UP = re.compile(r"(?:\.\./)+[^\s`'\")\]#]*")     # a path that climbs: ../x, ../../docs/spec


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    s = heading.strip().lower()
    s = "".join(ch for ch in s if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return s.replace(" ", "-")


def anchors(md: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", md.read_text(encoding="utf-8"), flags=re.S)
    return {slug(h) for h in re.findall(r"^#+\s+(.*)$", text, flags=re.M)}


def problems(page: Path) -> list[str]:
    """Links that lead nowhere or out of the repository, and paths that climb out of it."""
    raw = page.read_text(encoding="utf-8")
    bad = []
    for target in LINK.findall(re.sub(r"```.*?```", "", raw, flags=re.S)):
        if re.match(r"^[a-z]+:", target) and not target.startswith("file:"):   # http:, mailto:
            continue
        path, _, frag = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if path.startswith(("/", "~", "file:")) or not dest.is_relative_to(ROOT):
            bad.append(f"{target}: outside the repository")
        elif not dest.exists():
            bad.append(f"{target}: no such file")
        elif frag and dest.suffix == ".md" and frag not in anchors(dest):
            bad.append(f"{target}: no heading #{frag}")
    for path in UP.findall(raw):                      # in links, code and text alike
        dest = (page.parent / path).resolve()
        if not dest.is_relative_to(ROOT):
            bad.append(f"{path}: outside the repository")
        elif not dest.exists():                       # ../shared/… written from the root
            bad.append(f"{path}: no such file in the repository")
    return bad


def test_the_pages_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in PAGES}
    assert {"README.md", "CHANGELOG.md", "benchmarks/README.md", "docs/commands.md",
            "docs/engine-semantics.md", "docs/glossary.md", "docs/spec/hkk-rules.md",
            "examples/hkk-node/README.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_links_resolve_inside_the_repository(page):
    assert problems(page) == []


def test_the_checker_finds_what_it_must(tmp_path, monkeypatch):
    page = tmp_path / "docs" / "p.md"
    page.parent.mkdir()
    (tmp_path / "docs" / "q.md").write_text("# Q\n", encoding="utf-8")
    page.write_text("# Title\n[a](missing.md) [b](#title) [c](#nope) [d](q.md#q) "
                    "[e](../../elsewhere.md) [f](/etc/passwd) [g](https://example.org)\n"
                    "see `../../shared/spec/x.md`, `../shared/y.md`; ../docs/q.md is fine\n",
                    encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert problems(page) == ["missing.md: no such file", "#nope: no heading #nope",
                              "../../elsewhere.md: outside the repository",
                              "/etc/passwd: outside the repository",
                              "../../elsewhere.md: outside the repository",
                              "../../shared/spec/x.md: outside the repository",
                              "../shared/y.md: no such file in the repository"]
    assert slug("`moved.cause`") == "movedcause"
    assert slug("Penalty and compensation (135.2–135.5)") == "penalty-and-compensation-13521355"


def test_the_command_table_is_the_parsers():
    from conformance import command_docs
    assert command_docs.PAGE.read_text(encoding="utf-8") == command_docs.render(), \
        "docs/commands.md is out of date: run python -m conformance.command_docs"


def test_the_command_table_names_every_command_and_option():
    """What the page is generated from is what kodex parses: each command of the parser and
    each option it shows in --help is on the page."""
    from conformance import command_docs
    page = command_docs.PAGE.read_text(encoding="utf-8")
    for name, _, parser in command_docs.parsers():
        section = page.split(f"\n## `kodex {name}`\n", 1)[1].split("\n## ", 1)[0]
        for action in parser._actions:
            if action.help == argparse.SUPPRESS or "-h" in action.option_strings:
                continue
            for flag in action.option_strings:
                assert f"`{flag}" in section or f", {flag}" in section, (name, flag)


def test_the_readme_is_short_and_names_the_two_commands_ci_runs():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines (at most 150)"
    setup = "\n".join(lines)
    assert re.search(r"^make run\b", setup, flags=re.M) and re.search(r"^make test\b", setup, flags=re.M)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^make test$", ci, flags=re.M), "CI runs the README's test command"


GLOSSARY = {"Ép": "hp", "VP": "vp", "Semmi": "void", "gyűjtő": "graveyard",
            "tartalék": "reserve", "őrposzt": "guard_post", "szörnykomponens": "components",
            "előre kikészített lap": "premade", "önálló jelző": "standalone"}


def test_the_glossary_keeps_the_kodex_words():
    rows = re.findall(r"^\| *([^|]+?) *\| *([^|]+?) *\|$",
                      (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8"), flags=re.M)
    for hungarian, code in GLOSSARY.items():
        assert any(h.startswith(hungarian) and code in c for h, c in rows), hungarian
    assert "docs/glossary.md" in README.read_text(encoding="utf-8")
