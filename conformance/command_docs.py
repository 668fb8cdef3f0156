"""docs/commands.md, generated from the argument parsers of the ``kodex`` command line.

``python -m conformance.command_docs`` writes the page; tests/test_docs.py checks that it is
current, so the page lists exactly the commands and options the parsers have. The commands
are those of :func:`conformance.cli.build_parser`; the ones carried out by ``properties``
(``prove``, ``fuzz``, ``strength``: conformance/extras.py) are read from their modules'
``build_parser``, so generating the page needs every extra installed (``make`` installs them).
Options hidden from ``--help`` (``argparse.SUPPRESS``) are left out here too.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from conformance import extras
from conformance.cli import DELEGATED, build_parser

PAGE = Path(__file__).resolve().parents[1] / "docs" / "commands.md"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _help(action: argparse.Action, prog: str) -> str:
    text = action.help or ""
    if "%(" in text:
        text = text % dict(vars(action), prog=prog)
    return _cell(text)


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return action.metavar if isinstance(action.metavar, str) else " ".join(action.metavar)
    if action.choices is not None:
        return "{" + ",".join(map(str, action.choices)) + "}"
    return action.dest if not action.option_strings else action.dest.upper()


def _spelling(action: argparse.Action) -> str:
    """How the option or argument is written: ``--json FILE``, ``-q, --quiet``, ``paths …``."""
    if not action.option_strings:
        name = _metavar(action)
        return {"*": f"[{name} …]", "+": f"{name} …", "?": f"[{name}]"}.get(action.nargs, name)
    takes = action.nargs != 0
    value = f" {_metavar(action)}" if takes else ""
    if action.nargs == "?":
        value = f" [{_metavar(action)}]"
    return ", ".join(f"{flag}{value}" for flag in action.option_strings)


def _shown(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions
            if a.help is not argparse.SUPPRESS and not isinstance(a, argparse._HelpAction)
            and a.nargs is not argparse.REMAINDER]


def parsers() -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(command, its one-line help, its parser) in the order ``kodex --help`` lists them."""
    top = build_parser()
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help for a in sub._choices_actions}
    out = []
    for name, parser in sub.choices.items():
        if name in DELEGATED:
            parser = importlib.import_module(f"properties.{name}").build_parser()
        out.append((name, helps[name], parser))
    return out


def render() -> str:
    cmds = parsers()
    lines = [
        "# The `kodex` command line",
        "",
        "Generated from the argument parsers (`python -m conformance.command_docs` writes this",
        "page; `tests/test_docs.py` checks it is current). `kodex COMMAND --help` says the same;",
        "a mistyped command gets the nearest one (`kodex rnu` → `kodex run`), exit 2. Any",
        "command whose output cannot be written exits 5 ([hkk-results.md](spec/hkk-results.md)).",
        "",
        "| command | what it does | installed by |",
        "|---|---|---|",
    ]
    for name, help_text, _ in cmds:
        extra = extras.NEEDS.get(name)
        where = f"the extra `[{extra[0]}]`" if extra else "`pip install hkk-kodex`"
        lines.append(f"| [`kodex {name}`](#kodex-{name}) | {_cell(help_text)} | {where} |")
    for name, help_text, parser in cmds:
        lines += ["", f"## `kodex {name}`", ""]
        description = parser.description or help_text
        lines.append(_cell(description))
        extra = extras.NEEDS.get(name)
        if extra:
            lines += ["", f"Needs the extra `[{extra[0]}]`: `pip install '{extras.DISTRIBUTION}"
                          f"[{extra[0]}]'`."]
        shown = _shown(parser)
        if shown:
            lines += ["", "| argument or option | meaning |", "|---|---|"]
            for action in shown:
                lines.append(f"| `{_spelling(action)}` | {_help(action, parser.prog)} |")
        if parser.epilog:
            lines += ["", "```text", parser.epilog.rstrip(), "```"]
    return "\n".join(lines) + "\n"


def main() -> int:
    PAGE.write_text(render(), encoding="utf-8")
    print(f"written: {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
