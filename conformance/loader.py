"""Loading and validating `hkk-case/1` case files.

Implements docs/spec/hkk-case-format.md, "A file" and "A case" (and the card
id rule of "The state"), with the kit's additions of docs/spec/hkk-verbs.md
(extra verbs, arguments and state fields, via ``conformance/verbs.py`` and
``conformance/schema/hkk-case-1.schema.json``).

* YAML is read with the safe loader only (``yaml.CSafeLoader`` where present).
  The node tree is composed first, so that every node keeps its line; tags
  that would construct objects (``!!python/...``, custom ``!tags``) and
  non-JSON values (dates, sets, binary) are input errors, and the node is
  neutralised before the safe constructor runs.
* Bounded time and memory whatever the file: a regular file only (a FIFO or a
  device is opened without blocking and refused unread: ``conformance.infile``), at
  most ``MAX_FILE_BYTES`` (checked before reading), ``MAX_NODES`` nodes (counted while
  composing, so composition stops early; and again with aliases expanded: an alias
  bomb), ``MAX_DEPTH`` levels of nesting (the composer does not recurse; a deeper value
  is an error of its case) and integers within ±``MAX_INT`` (a longer literal is never
  converted; Python stops at 4,300 digits). See docs/spec/hkk-protocol-additions.md,
  "Limits".
* Every problem is an :class:`InputError` with file, line and JSON pointer.
  An invalid case is dropped whole; the other cases of its file still load.
  A problem outside any case (syntax, ``format``, the shape of ``cases``)
  drops the file.
* Checks: YAML syntax; duplicate mapping keys and non-string keys; ``format``;
  the JSON Schema; unknown verbs and malformed steps; undefined card ids (in
  zones, ``attached_to``, card-valued step arguments, ``then.cards``,
  ``then.removed`` and ``then`` zones; a ``create`` step, and a ``copy`` step
  with its ``id``, define that id from that step on); a card listed in two zones or twice; ``then.error.step``
  beyond the steps; duplicate case ids across all files; clause ids
  (``clause``, ``also``) missing from the Kódex catalog; the closed
  vocabularies of ``conformance/vocabulary.py`` (keywords, counters, card
  kinds, events and fields, with a did-you-mean).

* A content-keyed cache (:func:`cache_dir`) keeps what one file's parse and
  checks found (its valid cases as plain JSON data, its input errors, the
  lines of its ids and clauses), keyed by the file's name and bytes and a
  fingerprint of everything that decides the checks (the kit's version, the
  JSON Schema, the sources of this loader, of ``conformance/verbs.py``,
  ``conformance/vocabulary.py`` and of the ``model/state.py`` it reads, the
  PyYAML, jsonschema and jsonschema-rs versions). The checks across files (duplicate ids, the
  Kódex catalog) always run, so the errors are the same with or without the
  cache. The directory is ``$KODEX_CACHE_DIR``, else
  ``$XDG_CACHE_HOME/hkk-kodex``, else ``~/.cache/hkk-kodex``;
  ``KODEX_NO_CACHE=1`` turns it off. Entries are JSON written atomically
  (``conformance.atomicio``); one that is unreadable, too large, of another
  key or of the wrong shape is ignored and rebuilt; a cache that cannot be
  written is skipped. The limits above apply before the cache is consulted.
  The cache is trusted only when it is the user's own: the directory and each
  one below it (created with mode 0700) a directory, not a link, owned by the
  user and writable by no one else, each opened relative to the one before;
  an entry a regular file (a FIFO would hang the run) owned by the user and
  writable by no one else. Otherwise it is not used, and one line on stderr
  says which directory and why: a planted entry cannot turn a failing case
  into a passing one.

* A directory stands for every ``*.yaml`` / ``*.yml`` file under it (:func:`case_files`:
  iteration, not recursion, so a tree of any depth; links to directories not followed).

API: :func:`load_files`, :func:`load_text`, :func:`case_files`, :class:`Case`,
:class:`InputError`, :class:`LoadResult`, :func:`cache_dir`.
"""
from __future__ import annotations

import gc
import hashlib
import json
import os
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from yaml.events import (AliasEvent, MappingEndEvent, MappingStartEvent, ScalarEvent,
                         SequenceEndEvent, SequenceStartEvent, StreamEndEvent)

from conformance.infile import NotRegularFile, TooLarge, read_upto
from conformance.safe_yaml import Loader  # re-exported: the kit's one safe loader
from conformance.verbs import ALL_VERBS, CARD_TYPES, FORMATS, PLAYERS, ZONES, version_of

FORMAT = "hkk-case/1"                # the first format; FORMATS lists every one a file may name
CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "hkk-case-1.schema.json"
SCHEMA_PATHS = {n + 1: Path(__file__).resolve().parent / "schema" / f"hkk-case-{n + 1}.schema.json"
                for n in range(len(FORMATS))}

_YAML = "tag:yaml.org,2002:"
SAFE_TAGS = frozenset(_YAML + t for t in ("null", "bool", "int", "float", "str", "seq", "map"))
MERGE_TAG = _YAML + "merge"

# Limits on one case file: a file beyond them is an input error naming the limit, found
# in bounded time and memory (docs/spec/hkk-protocol-additions.md, "Limits"). The corpus today:
# largest file ~60 KB and ~8,000 nodes, nesting depth 13, integers up to 25.
MAX_FILE_BYTES = 1024 * 1024   # checked before the file is read (~17x the largest corpus file)
MAX_NODES = 200_000            # YAML nodes, counted while composing and again with aliases
                               # expanded (a 1 MiB file of corpus density has ~130,000)
MAX_DEPTH = 64                 # nested sequences/mappings, aliases followed
MAX_INT = 2 ** 53 - 1          # integer magnitude: what every JSON implementation holds exactly
MAX_NUMBER_CHARS = 64          # a longer integer literal is not converted (Python's
                               # int-from-string is quadratic and stops at 4,300 digits)
_TOO_DEEP_TAG = "tag:kodex,2024:too-deep"   # placeholder for a subtree beyond MAX_DEPTH

# the loaded-file cache (module docstring)
CACHE_FORMAT = "kodex-load-cache/2"
MAX_CACHE_ENTRY_BYTES = 64 * 1024 * 1024    # a larger entry is not read (and rebuilt)


# --------------------------------------------------------------------------
# data

@dataclass
class Case:
    id: str
    clause: str
    also: list = field(default_factory=list)
    title: str = ""
    rulesets: list = field(default_factory=list)
    tags: list = field(default_factory=list)
    given: dict = field(default_factory=dict)
    when: list = field(default_factory=list)
    then: dict = field(default_factory=dict)
    file: str = "<string>"
    line: int = 0
    index: int = 0
    format: str = FORMAT            # the file's case format (hkk-case/N)

    @property
    def version(self) -> int:
        return version_of(self.format)


@dataclass(frozen=True)
class InputError:
    file: str
    line: int
    pointer: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.pointer}: {self.message}"


@dataclass
class LoadResult:
    cases: list[Case] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


# --------------------------------------------------------------------------
# JSON pointers

def escape(segment: Any) -> str:
    return str(segment).replace("~", "~0").replace("/", "~1")


def unescape(segment: str) -> str:
    return segment.replace("~1", "/").replace("~0", "~")


def pointer(*segments: Any) -> str:
    return "".join("/" + escape(s) for s in segments)


def join(ptr: str, *segments: Any) -> str:
    return ptr + pointer(*segments)


def last_segment(ptr: str) -> str:
    return unescape(ptr.rsplit("/", 1)[-1]) if ptr else ""


_CASE_RE = re.compile(r"^/cases/(\d+)(?:/|$)")


def case_index(ptr: str) -> int | None:
    m = _CASE_RE.match(ptr)
    return int(m.group(1)) if m else None


# --------------------------------------------------------------------------
# one parsed file

class _File:
    """Parse state of one file: its name, line map and errors."""

    def __init__(self, name: str):
        self.name = name
        self.version = 1                     # the format version the file names
        self.lines: dict[str, int] = {}
        self.errors: list[InputError] = []
        self.neutralised: set[str] = set()   # nodes replaced after an error

    def line_of(self, ptr: str) -> int:
        """The line of the node at ptr, or of its nearest existing ancestor."""
        p = ptr
        while True:
            if p in self.lines:
                return self.lines[p]
            if not p:
                return 1
            p = p.rsplit("/", 1)[0]

    def error(self, ptr: str, message: str, line: int | None = None) -> None:
        self.errors.append(InputError(self.name, line if line is not None else self.line_of(ptr),
                                      ptr, last_segment(ptr), message))


def _line(node: Node) -> int:
    return node.start_mark.line + 1


def _scalar_key(node: Node) -> str:
    if isinstance(node, ScalarNode):
        return str(node.value)
    return "<" + type(node).__name__.replace("Node", "").lower() + ">"


_SCALARS = yaml.constructor.SafeConstructor()     # to read numbers without a document


def _bad_number(node: Node) -> str | None:
    """A YAML integer or float that no JSON implementation would carry: too long to
    convert, beyond ±MAX_INT, or not finite."""
    if not isinstance(node, ScalarNode):
        return None
    if node.tag == _YAML + "int":
        if len(node.value) > MAX_NUMBER_CHARS:
            return (f"an integer of {len(node.value)} characters: integers are limited to "
                    f"±{MAX_INT} (MAX_INT)")
        try:
            value = _SCALARS.construct_yaml_int(node)
        except (ValueError, yaml.YAMLError):   # pragma: no cover - the resolver's pattern
            return f"{node.value!r} is not a valid integer"
        if abs(value) > MAX_INT:
            return f"the integer {value} is beyond the limit ±{MAX_INT} (MAX_INT)"
    elif node.tag == _YAML + "float":
        try:
            value = _SCALARS.construct_yaml_float(node)
        except (ValueError, yaml.YAMLError):   # pragma: no cover - the resolver's pattern
            return f"{_short(node.value)!r} is not a valid number"
        if value != value or value in (float("inf"), float("-inf")):
            return (f"{_short(node.value)!r} is not a finite number (JSON has no "
                    "infinity or NaN)")
    return None


def _too_deep(node: Node, depth: int) -> str | None:
    """``depth``: the depth ``node`` would have (the root collection is 1)."""
    if isinstance(node, (SequenceNode, MappingNode)) and depth > MAX_DEPTH:
        return (f"nested deeper than {MAX_DEPTH} levels (MAX_DEPTH), counting the levels "
                "that aliases bring in")
    return None


def _check_nodes(root: Node, f: _File) -> None:
    """Before construction: reject unsafe tags, duplicate and non-string keys, numbers
    JSON cannot carry, and what is too deep or, with aliases expanded, too large.

    Offending nodes are replaced by harmless ones (a null, a string key), so
    the document can still be constructed and the other cases survive.
    """
    null = lambda n: ScalarNode(_YAML + "null", "", n.start_mark, n.end_mark)  # noqa: E731
    count = 0
    on_path: set[int] = set()

    def bad_tag(node: Node) -> str | None:
        tag = node.tag
        if tag in SAFE_TAGS:
            return None
        if tag == _TOO_DEEP_TAG:
            return f"nested deeper than {MAX_DEPTH} levels (MAX_DEPTH)"
        if tag == _YAML + "timestamp" and isinstance(node, ScalarNode) and not node.style:
            return (f"{_short(node.value)!r} reads as a date/time in YAML; quote it to make it "
                    "a string")
        if tag.startswith(_YAML + "python/"):
            return f"tag !!{tag[len(_YAML):]} is not allowed: YAML is read with a safe loader only"
        short = "!!" + tag[len(_YAML):] if tag.startswith(_YAML) else tag
        return (f"tag {_short(short)} is not allowed: only plain YAML scalars, sequences and "
                "mappings (JSON values)")

    def bad(node: Node, depth: int) -> str | None:
        return bad_tag(node) or _bad_number(node) or _too_deep(node, depth)

    def walk(node: Node, ptr: str, depth: int) -> None:
        nonlocal count
        count += 1
        if count > MAX_NODES:
            raise _TooLarge("aliases", node.start_mark)
        if id(node) in on_path:
            f.error(ptr, "a recursive alias (a structure that contains itself)", _line(node))
            return
        on_path.add(id(node))
        try:
            if isinstance(node, SequenceNode):
                for i, item in enumerate(node.value):
                    msg = bad(item, depth + 1)
                    if msg:
                        f.error(join(ptr, i), msg, _line(item))
                        node.value[i] = null(item)
                        f.neutralised.add(join(ptr, i))
                    elif id(item) in on_path:
                        f.error(join(ptr, i), "a recursive alias", _line(item))
                        node.value[i] = null(item)
                        f.neutralised.add(join(ptr, i))
                    else:
                        walk(item, join(ptr, i), depth + 1)
            elif isinstance(node, MappingNode):
                seen: dict[str, int] = {}
                for j, (k, v) in enumerate(node.value):
                    if k.tag == MERGE_TAG:
                        if isinstance(v, MappingNode) or (
                                isinstance(v, SequenceNode)
                                and all(isinstance(x, MappingNode) for x in v.value)):
                            msg = (bad_tag(v) if v.tag not in SAFE_TAGS else None) \
                                or _too_deep(v, depth + 1)
                            if msg:
                                f.error(ptr, msg, _line(v))
                                node.value[j] = (k, MappingNode(_YAML + "map", [], v.start_mark,
                                                                v.end_mark))
                            elif id(v) not in on_path:
                                walk(v, ptr, depth + 1)
                            continue
                        f.error(ptr, "a merge key (<<) needs a mapping or a list of mappings",
                                _line(k))
                        node.value[j] = (ScalarNode(_YAML + "str", "<<", k.start_mark,
                                                    k.end_mark), null(v))
                        continue
                    key = _scalar_key(k)
                    kptr = join(ptr, key)
                    if not isinstance(k, ScalarNode) or k.tag != _YAML + "str":
                        if isinstance(k, ScalarNode) and k.tag in SAFE_TAGS:
                            what = k.tag[len(_YAML):]
                            msg = (f"the key {_short(k.value)!r} reads as a {what}; mapping "
                                   "keys must be strings (quote it)")
                        else:
                            msg = bad_tag(k) or "mapping keys must be strings"
                        f.error(kptr, msg, _line(k))
                        k = ScalarNode(_YAML + "str", key, k.start_mark, k.end_mark)
                        node.value[j] = (k, v)
                    if key in seen:
                        f.error(kptr, f"duplicate key {_short(key)!r} (first on line "
                                      f"{seen[key]})", _line(k))
                    else:
                        seen[key] = _line(k)
                    msg = bad(v, depth + 1)
                    if msg:
                        f.error(kptr, msg, _line(v))
                        node.value[j] = (k, null(v))
                        f.neutralised.add(kptr)
                    elif id(v) in on_path:
                        f.error(kptr, "a recursive alias", _line(v))
                        node.value[j] = (k, null(v))
                        f.neutralised.add(kptr)
                    else:
                        walk(v, kptr, depth + 1)
        finally:
            on_path.discard(id(node))

    msg = bad_tag(root) or _bad_number(root)
    if msg:
        f.error("", msg, _line(root))
        raise _Unusable()
    walk(root, "", 1)


class _TooLarge(Exception):
    """More than MAX_NODES nodes; ``args[0]``: "nodes" (as written) or "aliases" (expanded)."""


class _Unusable(Exception):
    pass


def _map_lines(root: Node, f: _File) -> None:
    """After construction (merge keys flattened): JSON pointer -> line.

    A mapping member maps to the line of its key, a list item to its start.
    """
    stack: list[tuple[Node, str, int]] = [(root, "", _line(root))]
    lines = f.lines
    while stack:
        node, ptr, line = stack.pop()
        if ptr not in lines or lines[ptr] != line:
            lines[ptr] = line
        if isinstance(node, SequenceNode):
            for i, item in enumerate(node.value):
                stack.append((item, join(ptr, i), _line(item)))
        elif isinstance(node, MappingNode):
            for k, v in node.value:
                if k.tag == MERGE_TAG:
                    continue
                stack.append((v, join(ptr, _scalar_key(k)), _line(k)))
        if len(lines) > MAX_NODES:
            raise _TooLarge("aliases", node.start_mark)


def _short(text: Any, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters for a message."""
    text = str(text)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"


def _compose(loader) -> Node | None:
    """The node tree of the single document, composed from the (C) parser's events
    without recursion, counting nodes and depth as it goes.

    More than MAX_NODES nodes stops it (:class:`_TooLarge`); a sequence or mapping
    deeper than MAX_DEPTH is skipped and stands as a ``_TOO_DEEP_TAG`` scalar, which
    :func:`_check_nodes` reports and neutralises (only that case is lost). Otherwise
    the same tree as ``yaml.composer.Composer`` (same errors for undefined aliases,
    duplicate anchors, several documents).
    """
    from yaml.composer import ComposerError
    get, check, resolve = loader.get_event, loader.check_event, loader.resolve
    get()                                       # StreamStartEvent
    if check(StreamEndEvent):
        get()
        return None
    get()                                       # DocumentStartEvent
    anchors: dict[str, Node] = {}
    stack: list[list] = []                      # open collections: [node, pending key or None]
    count = 0
    root: Node | None = None
    while root is None:
        event = get()
        kind = type(event)
        node: Node
        if kind is SequenceEndEvent or kind is MappingEndEvent:
            node = stack.pop()[0]
            node.end_mark = event.end_mark
        else:
            count += 1
            if count > MAX_NODES:
                raise _TooLarge("nodes", event.start_mark)
            anchor = event.anchor
            if kind is AliasEvent:
                if anchor not in anchors:
                    raise ComposerError(None, None, f"found undefined alias {anchor!r}",
                                        event.start_mark)
                node = anchors[anchor]
            else:
                if anchor is not None and anchor in anchors:
                    raise ComposerError(f"found duplicate anchor {anchor!r}; first occurrence",
                                        anchors[anchor].start_mark, "second occurrence",
                                        event.start_mark)
                tag = event.tag
                if kind is ScalarEvent:
                    if tag is None or tag == "!":
                        tag = resolve(ScalarNode, event.value, event.implicit)
                    node = ScalarNode(tag, event.value, event.start_mark, event.end_mark,
                                      style=event.style)
                elif len(stack) >= MAX_DEPTH:
                    node = ScalarNode(_TOO_DEEP_TAG, "", event.start_mark, event.start_mark)
                    level = 1
                    while level:                # skip the subtree: events only, no nodes
                        inner = get()
                        ikind = type(inner)
                        if ikind is SequenceEndEvent or ikind is MappingEndEvent:
                            level -= 1
                            continue
                        if ikind is SequenceStartEvent or ikind is MappingStartEvent:
                            level += 1
                        if ikind is not AliasEvent and inner.anchor is not None:
                            anchors[inner.anchor] = node     # its aliases are too deep too
                else:
                    cls = SequenceNode if kind is SequenceStartEvent else MappingNode
                    if tag is None or tag == "!":
                        tag = resolve(cls, None, event.implicit)
                    node = cls(tag, [], event.start_mark, None, flow_style=event.flow_style)
                    if anchor is not None:
                        anchors[anchor] = node
                    stack.append([node, None])
                    continue
                if anchor is not None:
                    anchors[anchor] = node
        if not stack:
            root = node
        else:
            top = stack[-1]
            parent = top[0]
            if type(parent) is SequenceNode:
                parent.value.append(node)
            elif top[1] is None:
                top[1] = node
            else:
                parent.value.append((top[1], node))
                top[1] = None
    get()                                       # DocumentEndEvent
    if not check(StreamEndEvent):
        event = get()
        raise ComposerError("expected a single document in the stream", root.start_mark,
                            "but found another document", event.start_mark)
    get()                                       # StreamEndEvent
    return root


def _parse(text: str, f: _File) -> Any:
    """YAML text -> data (or raises _Unusable after recording the error)."""
    loader = Loader(text)
    try:
        try:
            root = _compose(loader)
        except yaml.MarkedYAMLError as e:
            mark = e.problem_mark or e.context_mark
            line = mark.line + 1 if mark is not None else 1
            problem = " ".join(x for x in (e.context, e.problem) if x) or str(e)
            f.error("", f"YAML syntax error: {problem}", line)
            raise _Unusable()
        except yaml.YAMLError as e:
            f.error("", f"YAML error: {e}", 1)
            raise _Unusable()
        except _TooLarge as e:
            f.error("", f"the document has more than {MAX_NODES} nodes (MAX_NODES); "
                        "split it into several files", e.args[1].line + 1)
            raise _Unusable()
        if root is None:
            f.error("", f"empty file: expected a mapping with format: {FORMAT} and cases", 1)
            raise _Unusable()
        try:
            _check_nodes(root, f)
            data = loader.construct_document(root)
            _map_lines(root, f)
        except _TooLarge as e:
            f.error("", f"aliases expand the document to more than {MAX_NODES} nodes "
                        "(MAX_NODES; an alias bomb?)", e.args[1].line + 1)
            raise _Unusable()
        except yaml.MarkedYAMLError as e:   # should not happen after _check_nodes
            mark = e.problem_mark or e.context_mark
            f.error("", f"YAML error: {e.problem or e}", mark.line + 1 if mark else 1)
            raise _Unusable()
        except RecursionError:              # should not happen after _check_nodes
            f.error("", f"the document is nested too deeply (MAX_DEPTH is {MAX_DEPTH})", 1)
            raise _Unusable()
        return data
    finally:
        loader.dispose()


def _too_big(size: int | None) -> str:
    """``size``: None where the file was read only up to the limit."""
    has = f"{size} bytes, more than" if size is not None else "more than"
    return (f"the file has {has} the limit of {MAX_FILE_BYTES} bytes "
            "(MAX_FILE_BYTES); split it into several files")


# --------------------------------------------------------------------------
# schema

@lru_cache(maxsize=None)
def load_schema(version: int = 1) -> dict:
    return json.loads(SCHEMA_PATHS[version].read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _validator(version: int = 1):
    from jsonschema import Draft202012Validator
    return Draft202012Validator(load_schema(version))


@lru_cache(maxsize=None)
def _fast_validator(version: int = 1):
    """The same schema compiled by jsonschema-rs, or None where it is not installed or
    refuses the schema. It only ever says "valid": a document it does not accept goes to
    :func:`_validator`, whose verdict and messages are the ones reported
    (tests/test_schema_fast_path.py checks that the two agree)."""
    try:
        import jsonschema_rs
        return jsonschema_rs.validator_for(load_schema(version))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:   # noqa: BLE001 - also a Rust panic (not an Exception): jsonschema decides
        return None


def _fast_valid(data: Any, version: int = 1) -> bool:
    fast = _fast_validator(version)
    if fast is None:
        return False
    try:
        return bool(fast.is_valid(data))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:   # noqa: BLE001 - data it cannot take (a huge int), even a Rust panic
        return False       # (not an Exception): jsonschema decides


def _schema_errors(data: Any, f: _File) -> list[tuple[str, str]]:
    """(pointer, message) for every schema violation, the most relevant per error. A
    document jsonschema-rs accepts has none (:func:`_fast_validator`); any other goes through
    jsonschema, which decides and words what is wrong."""
    from jsonschema.exceptions import best_match

    out: list[tuple[str, str]] = []
    if _fast_valid(data, f.version):
        return out
    for err in _validator(f.version).iter_errors(data):
        err = best_match([err]) or err
        ptr = pointer(*err.absolute_path)
        msg = _short(err.message, 300)     # it quotes the instance, which may be huge
        v = err.validator
        if v in ("additionalProperties", "unevaluatedProperties") and isinstance(err.instance, dict):
            schema = err.schema if isinstance(err.schema, dict) else {}
            known = set(schema.get("properties", {}))
            pats = [re.compile(p) for p in schema.get("patternProperties", {})]
            extra = [k for k in err.instance
                     if k not in known and not any(p.search(str(k)) for p in pats)]
            if extra:
                ptr = join(ptr, extra[0])
                where = _where(err.absolute_path)
                hint = f"; known: {', '.join(sorted(known))}" if known and len(known) <= 30 else ""
                msg = f"unknown field {extra[0]!r}{where}{hint}"
        elif v == "required":
            m = re.match(r"^'([^']*)' is a required property$", msg)
            if m:
                ptr = join(ptr, m.group(1))
                msg = f"missing required field {m.group(1)!r}"
        elif "propertyNames" in err.schema_path:
            # reported at the mapping; the instance is the offending key
            ptr = join(ptr, err.instance)
            msg = f"key {err.instance!r}: {msg}"
        elif v == "type" and isinstance(err.instance, (int, float)) \
                and not isinstance(err.instance, bool) and "string" in str(err.validator_value):
            msg += f" (quote it in YAML: \"{err.instance}\")"
        elif v == "pattern" and last_segment(ptr) in ("clause",) or (
                v == "pattern" and len(err.absolute_path) >= 2
                and err.absolute_path[-2] == "also"):
            msg = (f"{err.instance!r} is not a clause id (a Kódex number like \"4.24.3.1\", "
                   "rb7:<term> or mk:<point>)")
        out.append((ptr, msg))
    return out


def _where(path) -> str:
    p = list(path)
    if len(p) == 2 and p[0] == "cases":
        return " in the case"
    if p and p[-1] in ("given", "then"):
        return f" in {p[-1]}"
    return ""


# --------------------------------------------------------------------------
# semantic checks of one case

def _check_case(case: Any, cptr: str, f: _File) -> set[str]:
    """Checks beyond the schema. Returns the pointers of malformed steps (their
    schema errors are redundant)."""
    bad_steps: set[str] = set()
    if not isinstance(case, dict):
        return bad_steps
    given = case.get("given") if isinstance(case.get("given"), dict) else {}
    cards = given.get("cards") if isinstance(given.get("cards"), dict) else {}
    defined: set[str] = {k for k in cards if isinstance(k, str)}
    gptr = join(cptr, "given")

    # zones: defined ids, no card twice
    players = given.get("players") if isinstance(given.get("players"), dict) else {}
    placed: dict[str, str] = {}
    for p in PLAYERS:
        pl = players.get(p)
        if not isinstance(pl, dict):
            continue
        for zone in ZONES:
            items = pl.get(zone)
            if not isinstance(items, list):
                continue
            for i, cid in enumerate(items):
                if not isinstance(cid, str):
                    continue
                zptr = join(gptr, "players", p, zone, i)
                if cid not in defined:
                    f.error(zptr, f"undefined card id {cid!r}: not under given.cards")
                if cid in placed:
                    first = placed[cid]
                    f.error(zptr, f"card {cid!r} is listed twice: already at "
                                  f"{first[len(gptr):]} (line {f.line_of(first)})")
                else:
                    placed[cid] = zptr
    for cid, card in cards.items():
        if isinstance(card, dict) and isinstance(card.get("attached_to"), str) \
                and card["attached_to"] not in defined:
            f.error(join(gptr, "cards", cid, "attached_to"),
                    f"undefined card id {card['attached_to']!r}")

    # steps
    when = case.get("when")
    n_steps = len(when) if isinstance(when, list) else 0
    if isinstance(when, list):
        for i, step in enumerate(when):
            sptr = join(cptr, "when", i)
            if not isinstance(step, dict) or len(step) != 1:
                what = ("an empty mapping" if step == {} else
                        f"a mapping with {len(step)} keys ({', '.join(map(str, step))})"
                        if isinstance(step, dict) else f"a {type(step).__name__}")
                f.error(sptr, f"a step must be a one-key mapping {{verb: {{arguments}}}}, "
                              f"not {what}")
                bad_steps.add(sptr)
                continue
            (verb, args), = step.items()
            vptr = join(sptr, verb)
            if verb not in ALL_VERBS:
                f.error(vptr, f"unknown verb {verb!r}" + _suggest(verb, ALL_VERBS))
                bad_steps.add(sptr)
                continue
            if not isinstance(args, dict):
                continue            # the schema reports it
            spec = ALL_VERBS[verb]
            for name, value in args.items():
                arg = spec.arg(name)
                if arg is None:
                    continue        # the schema reports it
                for sub, cid in _card_refs(arg.type, value):
                    if cid not in defined:
                        f.error(join(vptr, name, *sub),
                                f"undefined card id {cid!r}" + (
                                    " (created by a later step)" if _created_later(
                                        when, i, cid) else ""))
            new, at = None, ()
            if verb == "create" and isinstance(args.get("card"), dict):
                new, at = args["card"].get("id"), ("card", "id")
            elif verb == "copy":
                new, at = args.get("id"), ("id",)
            if isinstance(new, str):
                if new in defined:
                    f.error(join(vptr, *at), f"card id {new!r} is already defined")
                defined.add(new)

    # then
    then = case.get("then")
    if isinstance(then, dict):
        tptr = join(cptr, "then")
        tcards = then.get("cards")
        if isinstance(tcards, dict):
            for cid in tcards:
                if cid not in defined:
                    f.error(join(tptr, "cards", cid), f"undefined card id {cid!r}")
        removed = then.get("removed")
        if isinstance(removed, list):
            for j, cid in enumerate(removed):
                if isinstance(cid, str) and cid not in defined:
                    f.error(join(tptr, "removed", j), f"undefined card id {cid!r}")
        tplayers = then.get("players")
        if isinstance(tplayers, dict):
            for p, pl in tplayers.items():
                if not isinstance(pl, dict):
                    continue
                for zone in ZONES:
                    if isinstance(pl.get(zone), list):
                        for j, cid in enumerate(pl[zone]):
                            if isinstance(cid, str) and cid not in defined:
                                f.error(join(tptr, "players", p, zone, j),
                                        f"undefined card id {cid!r}")
        err = then.get("error")
        if err is not None and err is not False:
            step = err.get("step") if isinstance(err, dict) else None
            if n_steps == 0:
                f.error(join(tptr, "error"), "then.error expects a refused step, but the case "
                                             "has no steps")
            elif isinstance(step, int) and not isinstance(step, bool) and step >= n_steps:
                f.error(join(tptr, "error", "step"),
                        f"step {step} does not exist: the case has {n_steps} step(s), "
                        f"0..{n_steps - 1}")
    return bad_steps


def _check_vocabulary(case: Any, cptr: str, f: _File) -> set[str]:
    """The closed vocabularies (conformance/vocabulary.py, docs/spec/hkk-vocabulary.md):
    unknown keywords, counters, card kinds, events, event/card/player fields and
    keyword aliases, each with a did-you-mean. Returns the pointers under which
    the schema's own errors are redundant."""
    from conformance.vocabulary import check_case
    suppress: set[str] = set()
    for ptr, msg, under in check_case(case, cptr, f.version):
        if any(ptr == n or ptr.startswith(n + "/") for n in f.neutralised):
            continue                # already reported as an unsafe or recursive node
        f.error(ptr, msg)
        suppress.add(under)
    return suppress


def _card_refs(kind: str, value: Any) -> Iterable[tuple[tuple, str]]:
    """(sub-pointer segments, card id) for every card id in an argument value."""
    if kind not in CARD_TYPES:
        return
    if kind == "card":
        if isinstance(value, str):
            yield (), value
    elif kind == "cards":
        if isinstance(value, list):
            for i, v in enumerate(value):
                if isinstance(v, str):
                    yield (i,), v
    elif kind == "card_or_player":
        if isinstance(value, str) and value not in PLAYERS:
            yield (), value
    elif kind == "attacks":
        if isinstance(value, list):
            for i, att in enumerate(value):
                if isinstance(att, dict):
                    if isinstance(att.get("attacker"), str):
                        yield (i, "attacker"), att["attacker"]
                    t = att.get("target")
                    if isinstance(t, str) and t not in PLAYERS:
                        yield (i, "target"), t


def _created_later(when: list, i: int, cid: str) -> bool:
    for step in when[i + 1:]:
        if isinstance(step, dict) and isinstance(step.get("create"), dict):
            c = step["create"].get("card")
            if isinstance(c, dict) and c.get("id") == cid:
                return True
        if isinstance(step, dict) and isinstance(step.get("copy"), dict) and step["copy"].get("id") == cid:
            return True
    return False


def _suggest(word: str, options: Iterable[str]) -> str:
    import difflib
    close = difflib.get_close_matches(str(word), list(options), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


# --------------------------------------------------------------------------
# one file

def _load_one(text: str, name: str) -> tuple[list[tuple[int, dict]], _File, list]:
    """Parse and check one file: (valid (index, case) pairs, parse state,
    (index, id, line) of every case that has a string id)."""
    f = _File(name)
    try:
        data = _parse(text, f)
    except _Unusable:
        return [], f, []

    if not isinstance(data, dict):
        f.error("", f"expected a mapping with format: {FORMAT} and cases, "
                    f"not a {type(data).__name__}")
        return [], f, []
    fmt = data.get("format")
    if fmt not in FORMATS:
        if "format" not in data:
            f.error("/format", f"missing format: this is not a {FORMAT} file", 1)
        else:
            f.error("/format", f"unsupported format {fmt!r}: expected one of {', '.join(FORMATS)}")
        return [], f, []
    f.version = version_of(fmt)

    cases = data.get("cases")
    bad_steps: set[str] = set()
    if isinstance(cases, list):
        for i, case in enumerate(cases):
            bad_steps |= _check_case(case, join("/cases", i), f)
            bad_steps |= _check_vocabulary(case, join("/cases", i), f)
    for ptr, msg in _schema_errors(data, f):
        if any(ptr == b or ptr.startswith(b + "/") for b in bad_steps | f.neutralised):
            continue
        f.error(ptr, msg)

    # deduplicate (e.g. the same pointer from two sources), keep order
    seen, unique = set(), []
    for e in f.errors:
        if (e.pointer, e.message) not in seen:
            seen.add((e.pointer, e.message))
            unique.append(e)
    f.errors = unique

    if not isinstance(cases, list):
        return [], f, []
    every = [(i, c["id"], f.lines.get(join("/cases", i, "id"), 1)) for i, c in enumerate(cases)
             if isinstance(c, dict) and isinstance(c.get("id"), str)]
    bad_cases: set[int] = set()
    fatal = False
    for e in f.errors:
        idx = case_index(e.pointer)
        if idx is None:
            fatal = True
        else:
            bad_cases.add(idx)
    if fatal:
        return [], f, every
    return [(i, c) for i, c in enumerate(cases) if i not in bad_cases], f, every


def _default_catalog():
    try:
        from conformance.catalog import load_catalog
    except ImportError:
        return None
    return load_catalog()


class _Collector:
    """Cross-file state: duplicate ids, the catalog, the result."""

    def __init__(self, catalog):
        if catalog is None:
            catalog = _default_catalog()
        self.catalog = catalog if catalog is not False else None
        self.ids: dict[str, tuple[str, int]] = {}
        self.result = LoadResult()

    def add(self, text: str, name: str, raw: bytes | None = None) -> None:
        """Add one file's cases. ``raw``: the file's bytes, when it came from a
        file (then the cache is consulted)."""
        size = len(text)
        if size * 4 > MAX_FILE_BYTES:       # a character is at most 4 bytes in UTF-8
            size = len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_FILE_BYTES:
            self.result.errors.append(InputError(name, 1, "", "", _too_big(size)))
            return
        fr = _cached_file(text, name, raw) if raw is not None else _analyse(text, name)
        errors = list(fr.errors)
        keep: list[tuple[int, dict, tuple]] = []
        # every case with a string id claims it, valid or not, in file order
        for i, cid, line in fr.every:
            cptr = join("/cases", i)
            problems: list[InputError] = []
            if cid in self.ids:
                ffile, fline = self.ids[cid]
                problems.append(InputError(name, line, join(cptr, "id"), "id",
                                           f"duplicate case id {cid!r}: first defined at "
                                           f"{ffile}:{fline}"))
            else:
                self.ids[cid] = (name, line)
            valid = fr.valid.get(i)
            if valid is None:
                errors.extend(problems)
                continue
            c, (_id_line, clause_line, also_lines) = valid
            if self.catalog is not None:
                for sub, clause, cline in [(("clause",), c["clause"], clause_line)] + [
                        (("also", j), a, also_lines[j])
                        for j, a in enumerate(c.get("also") or [])]:
                    if clause not in self.catalog:
                        ptr = join(cptr, *sub)
                        problems.append(InputError(name, cline, ptr, str(sub[-1]),
                                                   f"clause {clause!r} is not in the Kódex "
                                                   "catalog"))
            if problems:
                errors.extend(problems)
            else:
                keep.append((i, c, valid[1]))
        errors.sort(key=lambda e: e.line)
        self.result.errors.extend(errors)
        self.result.cases.extend(_case_of(i, c, name, lines[0], fr.format) for i, c, lines in keep)


# --------------------------------------------------------------------------
# what one file holds (computed, or read back from the cache)

@dataclass
class _FileResult:
    """One file's parse and checks, without the checks across files.

    ``valid``: {index: (case, (line of id, line of clause, [line of each also]))};
    ``every``: (index, id, line) of every case with a string id; ``errors``."""
    errors: list
    every: list
    valid: dict
    format: str = FORMAT


def _analyse(text: str, name: str) -> _FileResult:
    valid, f, every = _load_one(text, name)
    out: dict[int, tuple[dict, tuple]] = {}
    for i, c in valid:
        cptr = join("/cases", i)
        out[i] = (c, (f.lines.get(join(cptr, "id"), f.line_of(cptr)),
                      f.line_of(join(cptr, "clause")),
                      [f.line_of(join(cptr, "also", j)) for j in range(len(c.get("also") or []))]))
    return _FileResult(list(f.errors), list(every), out, FORMATS[f.version - 1])


def _case_of(i: int, c: dict, name: str, line: int, fmt: str = FORMAT) -> Case:
    return Case(
        id=c["id"], clause=c["clause"], also=list(c.get("also") or []),
        title=c.get("title", ""), rulesets=list(c.get("rulesets") or []),
        tags=list(c.get("tags") or []), given=c.get("given") or {},
        when=list(c.get("when") or []), then=c.get("then") or {},
        file=name, line=line, index=i, format=fmt)


def cache_dir() -> Path | None:
    """Where loaded files are cached: ``$KODEX_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/hkk-kodex``, else ``~/.cache/hkk-kodex``; None when
    ``KODEX_NO_CACHE`` is set (to anything but ``0`` or empty)."""
    if os.environ.get("KODEX_NO_CACHE", "") not in ("", "0"):
        return None
    explicit = os.environ.get("KODEX_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    try:
        base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    except RuntimeError:                     # no home directory
        return None
    return base / "hkk-kodex"


def _version_of(dist: str) -> str:
    try:
        from importlib.metadata import version
        return version(dist)
    except Exception:   # noqa: BLE001 - no version: the sources hashed below still decide
        return "?"


@lru_cache(maxsize=1)
def _fingerprint() -> str:
    """What decides a file's checks besides its bytes (module docstring)."""
    h = hashlib.sha256(CACHE_FORMAT.encode())
    h.update(f"{_version_of('hkk-kodex')} {yaml.__version__} {_version_of('jsonschema')} "
             f"{_version_of('jsonschema-rs')} {sys.version_info[:2]} {Loader.__name__}".encode())
    import conformance.vocabulary  # noqa: F401 - imports model.state
    for mod in ("conformance.loader", "conformance.verbs", "conformance.vocabulary",
                "model.state"):
        path = getattr(sys.modules.get(mod), "__file__", None)
        h.update(mod.encode())
        h.update(Path(path).read_bytes() if path else b"<none>")
    for path in SCHEMA_PATHS.values():
        h.update(path.read_bytes())
    return h.hexdigest()


def _entry_key(name: str, raw: bytes) -> str:
    h = hashlib.sha256(_fingerprint().encode())
    h.update(b"\0" + name.encode("utf-8", "surrogatepass") + b"\0")
    h.update(raw)
    return h.hexdigest()


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _from_entry(data: Any, key: str, name: str) -> _FileResult:
    """The entry's contents; raises (ValueError, …) on anything unexpected."""
    if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT \
            or data.get("key") != key or data.get("name") != name:
        raise ValueError("another entry")
    errors = []
    for e in data["errors"]:
        file, line, ptr, fld, msg = e
        if not (isinstance(file, str) and _is_int(line) and isinstance(ptr, str)
                and isinstance(fld, str) and isinstance(msg, str)):
            raise ValueError("an error of the wrong shape")
        errors.append(InputError(file, line, ptr, fld, msg))
    every = []
    for i, cid, line in data["every"]:
        if not (_is_int(i) and isinstance(cid, str) and _is_int(line)):
            raise ValueError("an id of the wrong shape")
        every.append((i, cid, line))
    valid: dict[int, tuple[dict, tuple]] = {}
    for i, c, id_line, clause_line, also_lines in data["valid"]:
        also = c.get("also") if isinstance(c, dict) else None
        if not (_is_int(i) and isinstance(c, dict) and isinstance(c.get("id"), str)
                and isinstance(c.get("clause"), str) and _is_int(id_line)
                and _is_int(clause_line) and isinstance(also_lines, list)
                and all(_is_int(x) for x in also_lines)
                and len(also_lines) == len(also or [])
                and (also is None or isinstance(also, list))):
            raise ValueError("a case of the wrong shape")
        valid[i] = (c, (id_line, clause_line, also_lines))
    fmt = data.get("case_format")
    if fmt not in FORMATS:
        raise ValueError("an unknown case format")
    return _FileResult(errors, every, valid, fmt)


_WARNED: set[str] = set()
_DIR_FLAGS = (os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
              | getattr(os, "O_CLOEXEC", 0))


def _distrust(info: os.stat_result, kind: str) -> str | None:
    """Why a cache directory or entry (``kind``) is not to be trusted, or None: it must be
    one (not a link, not a FIFO), owned by the user, and writable by no one else."""
    import stat as _stat
    if kind == "directory" and not _stat.S_ISDIR(info.st_mode):
        return "not a directory"
    if kind == "entry" and not _stat.S_ISREG(info.st_mode):
        return "not a regular file"
    euid = os.geteuid() if hasattr(os, "geteuid") else None
    if euid is not None and info.st_uid != euid:
        return f"owned by another user (uid {info.st_uid}; you are {euid})"
    if info.st_mode & 0o022:
        return f"writable by others (mode {info.st_mode & 0o777:o})"
    return None


def _warn(path: Path, why: str) -> None:
    """Say once per process that the cache is not used, and why."""
    if str(path) in _WARNED:
        return
    _WARNED.add(str(path))
    try:
        sys.stderr.write(f"kodex: the cache {path} is not used: {why}; the cases are read "
                         f"without it (make it yours and not writable by others, e.g. "
                         f"`chmod go-w`, or remove it; KODEX_NO_CACHE=1: no cache)\n")
    except (OSError, ValueError):
        pass


def _cache_dir_fd(where: Path, parts: tuple[str, ...], create: bool) -> int | None:
    """A descriptor of ``where/parts…`` when every directory of it is trusted (:func:`_distrust`;
    each opened relative to the one before, never through a link, so nothing can be swapped
    in between), created (mode 0700) when ``create``; None otherwise."""
    if os.open not in os.supports_dir_fd:           # pragma: no cover - not on Linux/macOS
        return None
    try:
        if create:
            where.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.mkdir(where, 0o700)
            except FileExistsError:
                pass
        fd = os.open(where, _DIR_FLAGS)
    except OSError as exc:
        if os.path.lexists(where) and not os.path.isdir(where) or os.path.islink(where):
            _warn(where, f"{exc.strerror or exc} (a link or not a directory)")
        return None
    here = where
    try:
        why = _distrust(os.fstat(fd), "directory")
        for part in parts:
            if why:
                break
            if create:
                try:
                    os.mkdir(part, 0o700, dir_fd=fd)
                except FileExistsError:
                    pass
            here = here / part
            nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nfd
            why = _distrust(os.fstat(fd), "directory")
    except OSError as exc:
        os.close(fd)
        if not isinstance(exc, FileNotFoundError):
            _warn(here, exc.strerror or str(exc))
        return None
    if why:
        os.close(fd)
        _warn(here, why)
        return None
    return fd


def _read_entry(where: Path, key: str) -> bytes | None:
    """The bytes of the cache entry of ``key``, or None (missing, untrusted, not a regular
    file — a FIFO there would hang the run —, or larger than MAX_CACHE_ENTRY_BYTES)."""
    dfd = _cache_dir_fd(where, ("load", key[:2]), create=False)
    if dfd is None:
        return None
    try:
        fd = os.open(f"{key}.json", os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0), dir_fd=dfd)
    except OSError:
        return None
    finally:
        os.close(dfd)
    try:
        info = os.fstat(fd)
        why = _distrust(info, "entry")
        if why:
            _warn(where / "load" / key[:2] / f"{key}.json", why)
            return None
        if info.st_size > MAX_CACHE_ENTRY_BYTES:
            return None
        data = os.read(fd, info.st_size + 1)     # bounded: a larger entry is not read
        return data if len(data) <= MAX_CACHE_ENTRY_BYTES else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _cached_file(text: str, name: str, raw: bytes) -> _FileResult:
    """:func:`_analyse`, through the cache when there is one and it is trusted."""
    where = cache_dir()
    if where is None:
        return _analyse(text, name)
    try:
        key = _entry_key(name, raw)
    except Exception:   # noqa: BLE001 - a source that cannot be read: no cache
        return _analyse(text, name)
    try:
        data = _read_entry(where, key)
        if data is not None:
            return _from_entry(json.loads(data), key, name)
    except Exception:   # noqa: BLE001 - corrupt or foreign: rebuild
        pass
    fr = _analyse(text, name)
    try:
        dfd = _cache_dir_fd(where, ("load", key[:2]), create=True)
        if dfd is None:
            return fr
        os.close(dfd)
        from conformance import atomicio
        payload = {"format": CACHE_FORMAT, "key": key, "name": name,
                   "errors": [[e.file, e.line, e.pointer, e.field, e.message] for e in fr.errors],
                   "every": [list(x) for x in fr.every],
                   "valid": [[i, c, lines[0], lines[1], lines[2]]
                             for i, (c, lines) in sorted(fr.valid.items())],
                   "case_format": fr.format}
        atomicio.write_text(where / "load" / key[:2] / f"{key}.json",
                            json.dumps(payload, ensure_ascii=True, separators=(",", ":")))
        # the entry is what later runs read: hand out the same (JSON) data now
        fr = _from_entry(json.loads(json.dumps(payload)), key, name)
    except Exception:   # noqa: BLE001 - a cache that cannot be written is skipped
        pass
    return fr


def load_text(text: str, name: str = "<string>", catalog=None) -> LoadResult:
    """Load cases from YAML text (for tests). ``catalog``: an object supporting
    ``clause_id in catalog``; None loads the project's catalog when it exists;
    False skips the clause check."""
    col = _Collector(catalog)
    col.add(text, name)
    return col.result


def case_files(directory: Path | str) -> list[Path]:
    """Every ``*.yaml`` / ``*.yml`` file under ``directory``, sorted: found by iteration, not
    recursion (a tree of any depth), links to directories not followed (no loop), links to
    files followed, anything but a regular file (a FIFO, a device, a dangling link) left out,
    a directory that cannot be read skipped."""
    found: list[Path] = []
    stack = [os.fspath(directory)]
    while stack:
        here = stack.pop()
        try:
            with os.scandir(here) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.name.endswith((".yaml", ".yml")) and entry.is_file():
                    found.append(Path(entry.path))
            except OSError:
                continue
    return sorted(found)


def _expand(paths: Iterable[Path | str]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out.extend(case_files(p))
        else:
            out.append(p)
    return out


def load_files(paths: list[Path] | None = None, catalog=None) -> LoadResult:
    """Load every case file under ``paths`` (files, or directories searched
    recursively for ``*.yaml``/``*.yml``, sorted; default: the corpus).

    Returns the valid cases, the input errors, and the files read. Duplicate
    case ids are checked across all the files, in order.
    """
    if paths is None:
        paths = [CORPUS_DIR]
    col = _Collector(catalog)
    # After each file the cases loaded so far leave the cycle collector's view (its permanent
    # generation; the file's own garbage, young, is collected first), so a full collection does
    # not walk them all again for every file: that made a cold `kodex run -q` cost 1.06x per case
    # at 10x the corpus and 1.10x at 30x (now 0.89x and 0.94x, bench_engine.py --corpus-scaling).
    # At the end they are handed back. Not done when the caller froze objects itself.
    freeze = gc.get_freeze_count() == 0
    try:
        for path in _expand(paths):
            _load_path(col, path)
            if freeze:
                gc.collect(1)
                gc.freeze()
    finally:
        if freeze:
            gc.unfreeze()
    return col.result


def _load_path(col: "_Collector", path: Path) -> None:
    """Read one file (bounded) and add it to ``col``, or record why it cannot be read."""
    col.result.files.append(path)
    name = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:       # not read at all
            col.result.errors.append(InputError(name, 1, "", "", _too_big(size)))
            return
        raw = read_upto(path, MAX_FILE_BYTES)
    except NotRegularFile as e:     # a FIFO nobody writes to hung the command
        col.result.errors.append(InputError(name, 1, "", "", f"{e}; a case file must be a "
                                            "regular file"))
        return
    except TooLarge as e:
        col.result.errors.append(InputError(name, 1, "", "", _too_big(e.size)))
        return
    except OSError as e:
        col.result.errors.append(InputError(name, 1, "", "", f"cannot read: {e.strerror or e}"))
        return
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        col.result.errors.append(InputError(name, line, "", "",
                                            f"not UTF-8: byte {raw[e.start]:#04x} at "
                                            f"offset {e.start}"))
        return
    col.add(text, name, raw)
