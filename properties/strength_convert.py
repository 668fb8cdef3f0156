"""One-off: convert properties/strength_equivalent.yaml from keys by file, line and exact source
text to keys by function and normalised snippet (issue 29). Run once:

    .venv/bin/python -m properties.strength_convert [FILE]

Each old entry (``file``, ``line`` and/or ``function``, ``change`` as the old report printed it,
``operator``, ``reason``) is matched the old way against the mutants cosmic-ray makes of model/
today; a match becomes ``function: module:Class.function``, ``operator``, ``change`` (the
mutant's normalised snippet) and the same reason. Entries that matched several mutants keep
matching them (``count``); one keyed by a line that moved is matched by its text, when one
function holds it; entries of one new key are merged when their reasons agree. An entry
matching no mutant (stale already) is converted from its own text and listed on stderr: the next
``kodex strength`` reports it as stale. Where the same change
stands elsewhere in the function too, the entry names its ``block`` (the statement heading the
block it lies in). The rules and the reasons are kept word for word.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

from conformance.loader import Loader
from properties import strength as S

HEADER_END = "rules:"


def _old_norm(change: str) -> str:
    return re.sub(r"\s+", " ", change.replace("->", "→")).strip()


def _text_snippet(change: str) -> str:
    """An old change text split at its arrow and each side normalised (for a stale entry)."""
    before, _, after = change.partition(" → ")
    b = S.normal_source([before]) if before != "(nothing)" else before
    a = S.normal_source([after]) if after != "(removed)" else after
    return f"{b or '(nothing)'} → {a or '(removed)'}"


def convert(path: Path) -> tuple[list[dict], list[str]]:
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)  # noqa: S506 - safe
    old = data.get("mutants") or []
    mutants = S.enumerate_mutants(S.DEFAULT_MODEL, S.operator_names(), rel_to=S.ROOT)
    by_file_op: dict[tuple[str, str], list[S.Mutant]] = {}
    for m in mutants:
        by_file_op.setdefault((m.file, m.operator), []).append(m)
    sources: dict[str, str] = {}
    made: dict[tuple[str, str, int], tuple[str, str]] = {}

    def change_of(m: S.Mutant) -> tuple[str, str]:
        k = (m.file, m.operator, m.occurrence)
        if k not in made:
            src = sources.setdefault(m.path, Path(m.path).read_text(encoding="utf-8"))
            mutated = S.mutate_source(src, m.operator, m.occurrence)
            made[k] = ((S.describe_change(src, mutated), S.change_snippet(src, mutated))
                       if mutated else ("", ""))
        return made[k]

    groups: dict[tuple[str, str, str], dict] = {}     # new key → its old entries' mutants, reasons
    stale: list[str] = []
    for e in old:
        hits = [m for m in by_file_op.get((e["file"], e.get("operator")), [])
                if e.get("line", m.line) == m.line and e.get("function", m.function) == m.function]
        hits = [m for m in hits if _old_norm(change_of(m)[0]) == _old_norm(e["change"])]
        if not hits and "line" in e:       # the line moved: the same text in one function
            anywhere = [m for m in by_file_op.get((e["file"], e.get("operator")), [])
                        if _old_norm(change_of(m)[0]) == _old_norm(e["change"])]
            if len({m.where for m in anywhere}) == 1:
                hits = anywhere
        if hits:
            key = (hits[0].where, e["operator"], change_of(hits[0])[1])
            assert all((m.where, change_of(m)[1]) == key[::2] for m in hits), e
        else:
            module = e["file"][:-3].replace("/", ".")
            function = e.get("function")
            if function is None:
                cmap = S.ClauseMap(Path(S.ROOT / e["file"]).read_text(encoding="utf-8"))
                function = cmap.lookup(e["line"])[2]
            key = (f"{module}:{function or S.MODULE_LEVEL}", e["operator"], _text_snippet(e["change"]))
            stale.append(f"{e['file']}:{e.get('line', e.get('function'))}: {e['change'][:100]}")
        g = groups.setdefault(key, {"hits": {}, "reasons": []})
        for m in hits:
            g["hits"][(m.file, m.operator, m.occurrence)] = (m, e["reason"])
        if e["reason"] not in g["reasons"]:
            g["reasons"].append(e["reason"])
    out = []
    for key, g in groups.items():
        hits = list(g["hits"].values())
        siblings = [m for m in by_file_op.get((key[0].split(":")[0].replace(".", "/") + ".py", key[1]), [])
                    if m.where == key[0] and change_of(m)[1] == key[2]]
        parts: list[tuple[str | None, list]] = [(None, hits)]
        if hits and len(siblings) > len(hits):  # the same change elsewhere in the function: its block
            by_block: dict[str, list] = {}
            for h in hits:
                by_block.setdefault(h[0].context, []).append(h)
            if all(len([m for m in siblings if m.context == b]) == len(hs) for b, hs in by_block.items()):
                parts = list(by_block.items())
        for block, hs in parts:
            reasons = list(dict.fromkeys(r for _, r in hs)) if hs else g["reasons"]
            entry = {"function": key[0], "operator": key[1], "change": key[2]}
            if block is not None:
                entry["block"] = block
            if len(hs) > 1:
                entry["count"] = len(hs)
            entry["reason"] = " — ".join(reasons)
            out.append(entry)
    out.sort(key=lambda d: (d["function"].split(":")[0], d["function"], d["operator"], d["change"]))
    return out, stale


def entry_yaml(e: dict) -> str:
    """One declaration: its key on one line each (greppable), the reason folded."""
    key = {k: e[k] for k in ("function", "operator", "change", "block", "count", "unused") if k in e}
    head = yaml.dump([key], allow_unicode=True, sort_keys=False, width=1 << 20)
    reason = yaml.dump({"reason": e["reason"]}, allow_unicode=True, width=96)
    return head + "".join(f"  {line}\n" for line in reason.splitlines())


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    path = Path(argv[0]) if argv else S.DEFAULT_EQUIVALENT
    text = path.read_text(encoding="utf-8")
    head, rest = text.split("\nrules:", 1)
    rules = rest.split("\nmutants:", 1)[0]
    entries, stale = convert(path)
    body = "".join(entry_yaml(e) for e in entries)
    path.write_text(f"{head}\nrules:{rules}\nmutants:\n{body}", encoding="utf-8")
    for s in stale:
        print(f"stale (converted from its text): {s}", file=sys.stderr)
    print(f"{path}: {len(entries)} declarations ({len(stale)} stale)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
