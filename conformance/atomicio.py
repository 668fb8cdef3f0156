"""Atomic writing of report and results files.

Every file the kit writes for a user (results JSON, coverage, prove,
amendment, HTML pages, JUnit, ...) goes through this module: the content is
written to a temporary file in the same directory, flushed to disk and
renamed over the target. An interrupt therefore leaves either the previous
file or the new one, never an empty or half-written one.

A pair of files that must agree (``coverage.md`` + ``coverage.json``) is
written with :func:`write_pair`: both are prepared as temporary files first and
renamed only when both are complete; each member names the SHA-256 of the
JSON it was produced with, so a reader can tell a mismatched pair.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["write_text", "write_bytes", "write_json", "write_pair", "json_text", "digest"]


def _tmp_for(path: Path) -> tuple[int, str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))


def _prepare(path: Path, data: bytes) -> str:
    fd, tmp = _tmp_for(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def _unlink(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temporary file, fsync, rename)."""
    target = Path(path)
    tmp = _prepare(target, data)
    try:
        os.replace(tmp, target)
    except BaseException:
        _unlink(tmp)
        raise
    return target


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    return write_bytes(path, text.encode("utf-8"))


def json_text(data: Any) -> str:
    """The kit's JSON layout for files: UTF-8, indented, newline at the end."""
    return json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_json(path: str | os.PathLike, data: Any) -> Path:
    """Write ``data`` as JSON to ``path`` atomically."""
    return write_text(path, json_text(data))


def write_pair(md_path: str | os.PathLike, md_text: str,
               json_path: str | os.PathLike, data: Any) -> tuple[Path, Path]:
    """Write a Markdown + JSON pair so that the two never disagree.

    Both files are fully written to temporary files before either is renamed;
    the Markdown ends with a comment naming the SHA-256 of the JSON text.
    """
    js = json_text(data)
    md = md_text.rstrip("\n") + f"\n\n<!-- json-sha256: {digest(js)} -->\n"
    mdp, jsp = Path(md_path), Path(json_path)
    tmp_js = _prepare(jsp, js.encode("utf-8"))
    try:
        tmp_md = _prepare(mdp, md.encode("utf-8"))
    except BaseException:
        _unlink(tmp_js)
        raise
    try:
        os.replace(tmp_js, jsp)
        os.replace(tmp_md, mdp)
    except BaseException:
        _unlink(tmp_js)
        _unlink(tmp_md)
        raise
    return mdp, jsp
