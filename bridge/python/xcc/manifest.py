"""The values of an RT manifest, by the one strict rule of the runtime's schema.

``rtdroid-runtime/src/main/resources/org/rtdroid/runtime/manifest/manifest.xsd`` is the rule; the
RT cell agent and ``rtdroid validate`` apply it in Java (``manifest.Units``), and every host-side
reader of a manifest (``rtdroid bundle``, tools that read periods) applies it here: numbers are
ASCII digits only (no sign, no space, no other script's digits), sizes and durations a number and a
unit exactly as the schema spells them, application names as the runtime's reader allows them.
``tests/test_manifest_values.py`` holds these patterns to the schema's.
"""
from __future__ import annotations

import re

NUMBER = r"[0-9]+"
SIZE = r"[0-9]+(B|K|KB|KiB|M|MB|MiB|G|GB|GiB)"
DURATION = r"[0-9]+(ns|us|µs|ms|s)"
MAX_APP_NAME_BYTES = 63  # DeployChunk.bundle (xcc.options max_size 64, NUL included)
APP_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]{0,%d}" % (MAX_APP_NAME_BYTES - 1)

_SIZE_MULTIPLIERS = {"B": 1, "K": 1 << 10, "KB": 1 << 10, "KiB": 1 << 10, "M": 1 << 20, "MB": 1 << 20,
                     "MiB": 1 << 20, "G": 1 << 30, "GB": 1 << 30, "GiB": 1 << 30}
_DURATION_NANOS = {"ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
_LONG_MAX = 2**63 - 1


class ValueProblem(ValueError):
    """What is wrong with a value, in the words the runtime uses ("'+2' is not an integer (digits only)")."""


def number(text: str, lo: int, hi: int) -> int:
    """``text`` as an integer in ``lo..hi``, digits only."""
    if not re.fullmatch(NUMBER, text):
        raise ValueProblem(f"{text!r} is not an integer (digits only)")
    n = int(text)
    if not lo <= n <= hi:
        raise ValueProblem(f"{n} is outside {lo}..{hi}")
    return n


def size_bytes(text: str) -> int:
    m = re.fullmatch(SIZE, text)
    if not m or int(text[:m.start(1)]) * _SIZE_MULTIPLIERS[m.group(1)] > _LONG_MAX:
        raise ValueProblem(f"{text!r} is not a size (e.g. 256B, 64K, 3M) of at most 2^63-1 bytes")
    return int(text[:m.start(1)]) * _SIZE_MULTIPLIERS[m.group(1)]


def duration_ns(text: str) -> int:
    m = re.fullmatch(DURATION, text)
    if not m or int(text[:m.start(1)]) * _DURATION_NANOS[m.group(1)] > _LONG_MAX:
        raise ValueProblem(f"{text!r} is not a duration with a unit (ns, us, ms, s) of at most 2^63-1 ns")
    return int(text[:m.start(1)]) * _DURATION_NANOS[m.group(1)]


def app_name(text: str) -> str:
    if not re.fullmatch(APP_NAME, text):
        raise ValueProblem(f"application name {text!r} must be 1-{MAX_APP_NAME_BYTES} characters of "
                           f"[A-Za-z0-9._-], the first a letter or a digit")
    return text
