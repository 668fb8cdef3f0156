"""Reading a file from outside without trusting it: regular files only, bounded.

Covers docs/spec/hkk-protocol-additions.md, "Limits on what the harness reads and keeps":
every file a command takes from its user (case files, results files, the expected-failures
file, ``--prove`` / ``--amendment`` / ``--strength`` files) is opened without blocking and
looked at before it is read (:func:`read_regular`): a FIFO, a device (``/dev/zero``), a
socket or a directory is refused at once, never read (a FIFO could hang the command, a
device stream without end); a regular file larger than the limit is refused before it is
read, and reading stops at the limit should the file grow meanwhile. Each refusal is one
line naming the file (:class:`InputFileError`, a ``ValueError``).
"""
from __future__ import annotations

import os
import stat


class InputFileError(ValueError):
    """A file from outside that cannot be used: one line naming the file, the JSON pointer
    or line when there is one, and what is wrong."""


class NotRegularFile(Exception):
    """The path is no regular file: the message says what it is."""


class TooLarge(Exception):
    """A regular file larger than the limit, unread: ``size`` bytes (None: it grew past the
    limit while it was read)."""

    def __init__(self, size: int | None):
        super().__init__(size)
        self.size = size


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_upto(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit``: :class:`TooLarge` beyond
    (its size checked before reading, and the reading stops at the limit should the file
    grow), :class:`NotRegularFile` for anything else (opened without blocking, never read),
    ``OSError`` when it cannot be read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(_kind(info.st_mode))
        if info.st_size > limit:
            raise TooLarge(info.st_size)
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise TooLarge(None)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_regular(path: str | os.PathLike, what: str, limit: int) -> bytes:
    """The bytes of the regular file at ``path`` (a link to one is followed), at most
    ``limit`` of them; :class:`InputFileError` otherwise (``what``: what the file should
    have been, for the message)."""
    try:
        return read_upto(path, limit)
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such file ({what})") from None
    except NotRegularFile as exc:
        raise InputFileError(f"{path}: {exc}; the {what} must be a regular file") from None
    except TooLarge as exc:
        has = f"{exc.size:,} bytes" if exc.size is not None else f"more than {limit:,} bytes"
        raise InputFileError(f"{path}: {has}; the {what} may have at most {limit:,} "
                             "(the limit)") from None
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None
