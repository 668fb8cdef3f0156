"""Text from outside made safe for a terminal.

Covers :func:`safe_text`: a case id, title, message, implementation name or file name read
from a case file, a reply or a results file is printed with its control characters escaped
(``\\x1b``, ``\\n``: no terminal escape sequence from outside ever reaches the terminal, no
line is forged), the bidirectional overrides escaped, a lone surrogate (which no terminal
encoding can carry) escaped as ``\\udXXX``, and at most ``limit`` characters, the rest
counted. ``kodex run``, ``diff``, ``coverage`` and ``merge`` print outside text through it.
"""
from __future__ import annotations

MAX_SHOWN = 300          # characters of an outside text (title, id, message) printed


def safe_text(value, limit: int = MAX_SHOWN) -> str:
    """An outside text made safe for a terminal (module docstring)."""
    s = str(value)
    cut = len(s) > limit
    head = s[:limit]
    out = []
    for ch in head:
        o = ord(ch)
        if ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif o < 0x20 or 0x7F <= o < 0xA0 or o in (0x2028, 0x2029) or 0x202A <= o <= 0x202E \
                or 0x2066 <= o <= 0x2069:
            out.append(f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}")
        elif 0xD800 <= o <= 0xDFFF:
            out.append(f"\\u{o:04x}")
        else:
            out.append(ch)
    text = "".join(out)
    if cut:
        text += f"… ({len(s) - limit} more characters)"
    return text
