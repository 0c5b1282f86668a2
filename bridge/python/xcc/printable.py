"""Text from outside a trust boundary made safe to print or log: one line, no control characters.

The rule is the RT side's (``org.rtdroid.runtime.text.Printable``), held to it by
``bridge/vectors/printable.txt``: a backslash is doubled; newline, carriage return and tab are
``\\n``, ``\\r``, ``\\t``; every other C0 or C1 control character and DEL is ``\\xNN``; the Unicode
line and paragraph separators, the bidirectional embedding, override and isolate controls and lone
surrogates are ``\\uNNNN``. Everything else is kept. Text so escaped can never begin or end a line,
so it can never forge a line the host reads as a marker (``RTCELL READY``).
"""
from __future__ import annotations

_SHORT = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(c: str) -> str | None:
    o = ord(c)
    if c in _SHORT:
        return _SHORT[c]
    if o < 0x20 or 0x7F <= o < 0xA0:
        return f"\\x{o:02x}"
    if o in (0x2028, 0x2029) or 0x202A <= o <= 0x202E or 0x2066 <= o <= 0x2069 or 0xD800 <= o <= 0xDFFF:
        return f"\\u{o:04x}"
    return None


def escape(text: str | None) -> str:
    """``text`` escaped by the rule above ("None" stays "null", as on the RT side)."""
    if text is None:
        return "null"
    out = []
    for c in text:
        e = _escaped(c)
        out.append(c if e is None else e)
    return "".join(out)


def one_line(text: str | None) -> str:
    """``text`` as one line for a console or a log: the rule above, except that a backslash stays as
    it is (text the other side escaped reads the same). What the host applies to every string a cell
    sends it (answers, reasons, causes) before printing it."""
    if text is None:
        return "null"
    return "".join(c if c == "\\" or _escaped(c) is None else _escaped(c) for c in text)


def quote(text: str | None) -> str:
    """``'text'``, escaped: how a message quotes a value it did not write itself."""
    return "'" + escape(text) + "'"
