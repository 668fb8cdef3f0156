"""Implementations that try to game the verdict (tests/test_verdicts.py, issue 24).

``python tests/adversary_impl.py MODE``: speaks protocol 1 on stdin/stdout. Every mode but
``forge*`` answers with the reference engine's own reply (conformance/serve.py) and then cheats:

forge            every case: an empty state and ``harness: {outcome: pass}`` (a verdict of its own)
forge-outcome    the reference's reply with ``outcome: "pass"`` and ``verdict: "pass"`` added
clause-spray     every refusal names clause "999" first, then every clause id of the catalog
clause-wrong     every refusal names a wrong clause of the table ("4.20.3") first, then the
                 reference's clauses (bounded, catalog ids: well-formed, and still wrong)
skip-attacks     answers ``skipped`` (unsupported ``verb:attack``) to every case with an attack
features         the reference, but its ``hello`` declares only some features (``--features a,b``)
                 and, with ``--verbs a,b``, only those verbs: a case using another verb, or
                 needing another feature, is answered ``errored`` (the harness must never send it)
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conformance import serve  # noqa: E402


def out(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _catalog_ids() -> list[str]:
    from conformance.catalog import load_catalog
    return list(load_catalog().ids())


def _has_attack(case: dict) -> bool:
    return any(isinstance(s, dict) and "attack" in s for s in case.get("when") or [])


def _beyond(case: dict, verbs: list[str] | None, features: list[str] | None) -> bool:
    from conformance.features import missing, needs
    used = {next(iter(s)) for s in case.get("when") or [] if isinstance(s, dict) and s}
    if verbs is not None and used - set(verbs):
        return True
    return features is not None and bool(missing(needs(case.get("given"), case.get("when"), None),
                                                 features))


def main(argv: list[str]) -> int:
    mode = argv[0]
    features = verbs = None
    if "--features" in argv:
        features = [f for f in argv[argv.index("--features") + 1].split(",") if f]
    if "--verbs" in argv:
        verbs = [v for v in argv[argv.index("--verbs") + 1].split(",") if v]
    ids = _catalog_ids() if mode == "clause-spray" else []
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("cmd") == "bye":
            return 0
        if req.get("cmd") == "hello":
            hello = serve.hello_reply(req)
            hello["implementation"] = {"name": f"adversary-{mode}", "version": "0", "language": "python"}
            hello.pop("pipeline", None)
            if features is not None:
                hello["features"] = features
            if verbs is not None:
                hello["verbs"] = verbs
            out(hello)
            continue
        seq, case = req.get("seq"), req.get("case") or {}
        if mode == "forge":
            out({"seq": seq, "state": {}, "harness": {"outcome": "pass"}})
            continue
        if mode == "skip-attacks" and _has_attack(case):
            out({"seq": seq, "skipped": "no combat in this engine", "unsupported": ["verb:attack"]})
            continue
        if mode == "features" and _beyond(case, verbs, features):
            out({"seq": seq, "errored": {"message": "sent a case beyond what hello declared"}})
            continue
        reply = serve.run_reply(seq, case)
        if mode == "forge-outcome":
            reply["outcome"] = "pass"
            reply["verdict"] = "pass"
        refused = reply.get("refused")
        if refused and mode == "clause-spray":
            refused["clause"] = "999"
            refused["clauses"] = ["999"] + ids
        if refused and mode == "clause-wrong":
            real = refused.get("clauses") or [refused["clause"]]
            refused["clause"] = "4.20.3" if refused["clause"] != "4.20.3" else "4.21.0"
            refused["clauses"] = [refused["clause"]] + [c for c in real if c != refused["clause"]][:7]
        out(reply)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
