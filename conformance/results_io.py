"""Reading results files (``hkk-results/1`` and ``/2``) and other JSON files from outside.

Covers docs/spec/hkk-results.md, "Reading a results file": every command that takes a
results file (``kodex diff``, ``kodex coverage --results``, ``kodex merge``, ``kodex report``)
reads it with :func:`read_results`, which refuses, with one line naming the file, the JSON
pointer and what is wrong (``conformance.infile.InputFileError``, a ``ValueError``):

* a path that is not a regular file (a FIFO, a device, a directory: never read, so it
  cannot hang or stream without end), a file larger than ``MAX_RESULTS_BYTES`` (checked
  before it is read, and again while reading: ``conformance.infile``);
* text that is not UTF-8 or not strict JSON (``conformance.strictjson``: no ``NaN`` /
  ``Infinity``, no lone surrogate, at most ``MAX_RESULTS_DEPTH`` levels of nesting);
* a document that breaks the JSON Schema (``conformance/schema/hkk-results-2.schema.json``;
  an ``hkk-results/1`` file against the same schema with its own ``schema`` value and
  without ``not_run`` in ``totals``): types, outcomes, required fields, the lengths the
  harness keeps (``conformance.bounds``);
* an ``implementation`` beyond the limits of a ``hello`` (``conformance.bounds``);
* a case id twice (a failure followed by a pass of the same id would hide the failure);
* ``totals``, ``verdicts`` or ``skip_reasons`` that disagree with the outcomes of the cases
  (each is a count of them: ``conformance.runner``).

:func:`read_json_file` is the bounded, strict reader for the other JSON files the commands
take (``--prove``, ``--amendment``, ``--strength``): the same rules without the schema.
"""
from __future__ import annotations

import copy
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from conformance import bounds, strictjson
from conformance.infile import InputFileError, read_regular
from conformance.runner import (READ_SCHEMAS, RESULTS_SCHEMA, skip_reasons, tally,
                                verdict_count)

SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "hkk-results-2.schema.json"
MAX_RESULTS_BYTES = 64 * 1024 * 1024     # a results file (a corpus run writes ~1.3 MB)
MAX_RESULTS_DEPTH = 64                   # nesting of a results file
MAX_SIDE_FILE_BYTES = 64 * 1024 * 1024   # --prove / --amendment / --strength files
MAX_SIDE_FILE_DEPTH = 64
_MESSAGE_CHARS = 300                     # of a validator's message (it quotes the value)


def read_json_file(path: str | os.PathLike, what: str, *, limit: int = MAX_SIDE_FILE_BYTES,
                   max_depth: int = MAX_SIDE_FILE_DEPTH) -> Any:
    """The strict JSON value of the file at ``path`` (a regular file of at most ``limit``
    bytes, UTF-8, ``conformance.strictjson``), or :class:`InputFileError` naming ``what``
    it should have been."""
    raw = read_regular(path, what, limit)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{path}: not UTF-8 (byte {raw[exc.start]:#04x} at offset "
                             f"{exc.start}); expected a {what}") from None
    try:
        return strictjson.loads(text, max_depth=max_depth)
    except strictjson.StrictJSONError as exc:
        raise InputFileError(f"{path}: {exc}; expected a {what}") from None


def read_results(path: str | os.PathLike) -> dict:
    """A results file (module docstring), checked before any command uses it."""
    data = read_json_file(path, "results file (kodex run --json)", limit=MAX_RESULTS_BYTES,
                          max_depth=MAX_RESULTS_DEPTH)
    problem = results_problem(data)
    if problem:
        raise InputFileError(f"{path}: {problem}")
    return data


@lru_cache(maxsize=1)
def _schemas() -> dict[str, dict]:
    v2 = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    v1 = copy.deepcopy(v2)        # written before the schema file: checked as leniently
    v1["properties"]["schema"] = {"const": "hkk-results/1"}
    v1["required"] = ["schema", "cases"]
    v1["properties"]["totals"]["required"] = []
    return {RESULTS_SCHEMA: v2, "hkk-results/1": v1}


@lru_cache(maxsize=4)
def _validator(schema: str):
    """(jsonschema-rs validator or None, jsonschema validator) for one results schema."""
    import jsonschema
    doc = _schemas()[schema]
    try:
        import jsonschema_rs
        fast = jsonschema_rs.validator_for(doc)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:   # noqa: BLE001 - not installed, or it refuses the schema (even a panic)
        fast = None
    return fast, jsonschema.Draft202012Validator(doc)


def _pointer(path) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path) or "/"


def _short(text: str, limit: int = _MESSAGE_CHARS) -> str:
    text = strictjson.surrogate_free(" ".join(str(text).split()))
    return text if len(text) <= limit else text[:limit] + "…"


def schema_problem(data: Any) -> str | None:
    """The first way ``data`` breaks its results schema (``/pointer: message``), or None."""
    if not isinstance(data, dict):
        return "/: a results file is a JSON object"
    if data.get("schema") not in READ_SCHEMAS:
        return (f"/schema: {_short(json.dumps(data.get('schema'), ensure_ascii=False), 80)} is "
                f"not a results schema (expected {' or '.join(READ_SCHEMAS)})")
    fast, slow = _validator(data["schema"])
    if fast is not None:
        try:
            err = next(iter(fast.iter_errors(data)), None)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:   # noqa: BLE001 - data it cannot take: jsonschema decides
            err = False
        if err is None:
            return None
        if err is not False:
            return f"{_pointer(err.instance_path)}: {_short(err.message)}"
    err = next(iter(slow.iter_errors(data)), None)
    if err is None:
        return None
    return f"{_pointer(err.absolute_path)}: {_short(err.message)}"


def results_problem(data: Any) -> str | None:
    """The first problem of a results document (module docstring) as ``/pointer: message``,
    or None when every command may use it."""
    problem = schema_problem(data)
    if problem:
        return problem
    impl = bounds.implementation_problem(data.get("implementation"))
    if impl:
        return f"/implementation: {impl}"
    cases = data["cases"]
    seen: dict[str, int] = {}
    for i, case in enumerate(cases):
        cid = case["case_id"]
        if cid in seen:
            return (f"/cases/{i}/case_id: the case id {_short(cid, 120)!r} is also at "
                    f"/cases/{seen[cid]} (a case is reported once)")
        seen[cid] = i
    counted = tally(c["outcome"] for c in cases)
    totals = data.get("totals")            # (an hkk-results/1 file may have none)
    for key, declared in (totals or {}).items():
        if declared != counted.get(key, 0):
            return (f"/totals/{key}: {declared}, but {counted.get(key, 0)} of the cases have "
                    f"the outcome {key}")
    for key, n in counted.items():
        if totals is not None and n and key not in totals:
            return f"/totals: no {key!r}, but {n} of the cases have that outcome"
    if "verdicts" in data and data["verdicts"] != verdict_count(counted):
        return (f"/verdicts: {data['verdicts']}, but {verdict_count(counted)} of the cases got "
                "a verdict")
    if "skip_reasons" in data:
        reasons = skip_reasons(cases)
        for key in sorted(set(data["skip_reasons"]) | set(reasons)):
            declared, n = data["skip_reasons"].get(key, 0), reasons.get(key, 0)
            if declared != n:
                return (f"/skip_reasons/{_pointer([key])[1:]}: {declared}, but {n} of the "
                        f"skipped cases name {_short(key, 120)!r}")
    return None
