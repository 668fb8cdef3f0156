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

A file written while it grows (the NDJSON stream, an implementation's standard error log)
is opened with :func:`open_new`: a new file of the run's own, created exclusively
(``O_EXCL``, never through a symbolic link: ``O_NOFOLLOW``) beside the target and renamed
over it (:meth:`NewFile.publish`): a file or link already at the target is replaced, never
written through or truncated while another run holds it.

When a file cannot be written (a full disk, a read-only mount, a file where a directory
should be, a file-size limit), :class:`OutputError` says which and why, in one line, and
nothing is left half-written (the temporary file is removed). ``kodex`` reports it and exits
with :data:`EXIT_OUTPUT` (5), a status no command uses for anything else
(docs/spec/hkk-results.md, "An output that cannot be written").

JSON is written strictly (:func:`json_text`, ``conformance.strictjson``): never ``NaN`` or
``Infinity``, a lone surrogate as U+FFFD.
"""
from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

__all__ = ["write_text", "write_bytes", "write_json", "write_pair", "json_text", "digest",
           "OutputError", "EXIT_OUTPUT", "open_new", "NewFile", "writing"]

EXIT_OUTPUT = 5     # an output that cannot be written (no command uses 5 for anything else)


class OutputError(Exception):
    """An output file that cannot be written: ``path`` and ``reason`` (one line). Not an
    ``OSError``, so that no handler of input errors takes it for one."""

    def __init__(self, path: str | os.PathLike, reason: str):
        super().__init__(f"cannot write {path}: {reason}")
        self.path = str(path)
        self.reason = reason


@contextlib.contextmanager
def writing(path: str | os.PathLike):
    """A block that writes ``path`` (or into it) by other means than this module's (a page of
    the HTML site, a scratch copy): an ``OSError`` in it — a full disk, a read-only place, a
    file-size limit, no permission — becomes :class:`OutputError` naming ``path``."""
    try:
        yield
    except OSError as exc:
        raise OutputError(path, _reason(exc)) from None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, FileExistsError) and exc.filename is not None \
            and not os.path.isdir(exc.filename):    # mkdir where a file is
        return f"Not a directory ({os.fsdecode(exc.filename)})"
    if isinstance(exc, OSError):
        text = exc.strerror or str(exc)
        if exc.filename is not None and exc.errno is not None:
            where = os.fsdecode(exc.filename)
            return f"{text} ({where})"
        return text
    return f"{type(exc).__name__}: {exc}"


def _tmp_for(path: Path) -> tuple[int, str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile          # (imported when a file is written: kodex --help imports this module)
    return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))


def _prepare(path: Path, data: bytes) -> str:
    try:
        fd, tmp = _tmp_for(path)
    except OSError as exc:
        raise OutputError(path, _reason(exc)) from None
    with _removed_on_failure(tmp, path):
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
    return tmp


@contextlib.contextmanager
def _removed_on_failure(tmp: str, target: Path):
    """``tmp`` is removed when the block fails; an ``OSError`` becomes :class:`OutputError`
    naming ``target``."""
    try:
        yield
    except OSError as exc:
        _unlink(tmp)
        raise OutputError(target, _reason(exc)) from None
    except BaseException:
        _unlink(tmp)
        raise


def _replace(tmp: str, target: Path) -> None:
    with _removed_on_failure(tmp, target):
        os.replace(tmp, target)


def _unlink(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temporary file, fsync, rename)."""
    target = Path(path)
    _replace(_prepare(target, data), target)
    return target


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    return write_bytes(path, text.encode("utf-8"))


def json_text(data: Any) -> str:
    """The kit's JSON layout for files: strict JSON (``conformance.strictjson.dumps``),
    UTF-8, indented, newline at the end."""
    from conformance.strictjson import dumps
    return dumps(data, indent=2, default=str) + "\n"


def digest(text: str) -> str:
    import hashlib
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
        _replace(tmp_js, jsp)
    except BaseException:
        _unlink(tmp_md)
        raise
    _replace(tmp_md, mdp)
    return mdp, jsp


class NewFile:
    """A file of this run's own that is written while it grows (:func:`open_new`)."""

    def __init__(self, target: Path, fd: int, tmp: str):
        self.target = target
        self.fd = fd
        self.tmp = tmp                    # None once published
        self._ino = os.fstat(fd).st_ino

    def write(self, data: bytes) -> None:
        """Write all of ``data``; :class:`OutputError` when it cannot be."""
        view = memoryview(data)
        try:
            while view:
                n = os.write(self.fd, view)
                view = view[n:]
        except OSError as exc:
            raise OutputError(self.target, _reason(exc)) from None

    def publish(self) -> None:
        """Rename the file over its target (a file or link there is replaced, not followed)."""
        if self.tmp is not None:
            tmp, self.tmp = self.tmp, None
            _replace(tmp, self.target)

    def close(self, publish: bool = True) -> None:
        """Close it; ``publish``: rename it over its target first (if not done yet),
        else remove what was written."""
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            try:
                os.close(fd)
            except OSError:
                pass
        if publish:
            self.publish()
        else:
            self.discard()

    def discard(self) -> None:
        """Remove the file (its temporary name, or the target when it is still this one)."""
        if self.tmp is not None:
            _unlink(self.tmp)
            self.tmp = None
            return
        try:
            if os.lstat(self.target).st_ino == self._ino:
                os.unlink(self.target)
        except OSError:
            pass


def open_new(path: str | os.PathLike, *, publish: bool = False) -> NewFile:
    """A new, empty file of this run's own for ``path``: created exclusively beside it
    (``O_CREAT | O_EXCL | O_NOFOLLOW``, mode 0644), renamed over ``path`` now when
    ``publish`` (a stream read while it is written), else by :meth:`NewFile.close`.
    :class:`OutputError` when it cannot be created."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        for _attempt in range(100):
            tmp = str(target.parent / f".{target.name}.{os.urandom(6).hex()}.tmp")
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                             | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0),
                             0o644)
                break
            except FileExistsError:
                continue
        else:  # pragma: no cover - 100 random names taken
            raise FileExistsError(f"no free temporary name beside {target}")
    except OSError as exc:
        raise OutputError(target, _reason(exc)) from None
    new = NewFile(target, fd, tmp)
    if publish:
        try:
            new.publish()
        except BaseException:
            os.close(fd)
            raise
    return new
