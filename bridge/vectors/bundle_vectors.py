#!/usr/bin/env python3
"""RT bundle vectors: bundles/index.txt (grammar in README.md, "bundles/index.txt").

    build/venv/bin/python bridge/vectors/bundle_vectors.py          # rewrite bundles/index.txt
    build/venv/bin/python bridge/vectors/bundle_vectors.py --check  # exit 1 if the committed file differs

Ed25519 (RFC 8032) signatures are deterministic, so a fixed test key gives fixed signatures: the
Python signer (xcc.bundle) and the Java verifier (rt-cell/agent Bundle) are held to the same
signed message for an ordinary bundle and for one signed as a downgrade, and to refusing a
signature under the other entry's name. The key is a test key, made from a published seed.

The zip lines hold both readers of a bundle's zip (xcc.bundle.zip_entries, the agent's BundleZip)
to one reading rule: well-formed bundles (with and without data descriptors) and bundles crafted so
that the central directory and a local header disagree, each of which both must refuse. The
printable lines hold both escapers of outside text (xcc.printable, the runtime's Printable) to one
rule.
"""
from __future__ import annotations

import argparse
import io
import struct
import sys
import zipfile
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))
from xcc import bundle as B  # noqa: E402

SEED = bytes(range(32))  # a test key: never a board's deploy key
MANIFEST = (b'<manifest versionCode="3"><application name="echo"><receiver name="a.Echo" priority="40"/>'
            b"</application></manifest>")
JAR = b"PK\x05\x06" + bytes(18)  # an empty zip: the signature covers bytes, whatever they are


def render() -> str:
    key = Ed25519PrivateKey.from_private_bytes(SEED)
    pub = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    ordinary_msg = B.signed_message(MANIFEST, JAR)
    downgrade_msg = B.signed_message(MANIFEST, JAR, downgrade=True)
    ordinary_sig, downgrade_sig = key.sign(ordinary_msg), key.sign(downgrade_msg)
    lines = ["# RT bundle signature vectors (bridge/vectors/README.md, 'bundles/index.txt'); written by "
             "bundle_vectors.py",
             f"key {SEED.hex()} {pub.hex()}"]
    for name, entry, msg, sig, expect in (
            ("ordinary", B.SIGNATURE_ENTRY, ordinary_msg, ordinary_sig, "ok"),
            ("downgrade", B.DOWNGRADE_SIGNATURE_ENTRY, downgrade_msg, downgrade_sig, "ok"),
            ("ordinary_relabelled_as_downgrade", B.DOWNGRADE_SIGNATURE_ENTRY, downgrade_msg, ordinary_sig,
             "bad_signature"),
            ("downgrade_relabelled_as_ordinary", B.SIGNATURE_ENTRY, ordinary_msg, downgrade_sig, "bad_signature")):
        lines.append(f"bundle {name} {entry} {MANIFEST.hex()} {JAR.hex()} {msg.hex()} {sig.hex()} {expect}")
    for name, expect, data in zips(ordinary_sig):
        lines.append(f"zip {name} {expect} {data.hex()}")
    for text, escaped in PRINTABLE:
        lines.append(f"printable {text.encode('utf-16-be', 'surrogatepass').hex() or '-'} "
                     f"{escaped.encode('utf-8').hex() or '-'}")
    return "\n".join(lines) + "\n"


class _Unseekable(io.RawIOBase):
    """A sink zipfile cannot seek in: it then writes a data descriptor after each entry's data (the
    form Java's ZipOutputStream writes)."""

    def __init__(self):
        self.out = bytearray()

    def writable(self):
        return True

    def write(self, b):
        self.out += b
        return len(b)


def _patched(data: bytes, at: int, new: bytes) -> bytes:
    return data[:at] + new + data[at + len(new):]


def _central(data: bytes, index: int) -> int:
    """Offset of the index-th central directory entry."""
    end = len(data) - 22
    p = struct.unpack_from("<I", data, end + 16)[0]
    for _ in range(index):
        n, e, c = struct.unpack_from("<HHH", data, p + 28)
        p += 46 + n + e + c
    return p


def zips(signature: bytes):
    """(name, ok|bad_bundle, zip bytes) of well-formed and crafted bundles of MANIFEST, JAR, signature."""
    good = B.pack(MANIFEST, JAR, signature)
    yield "well_formed", "ok", good
    sink = _Unseekable()
    with zipfile.ZipFile(sink, "w") as z:
        for name, data in ((B.MANIFEST_ENTRY, MANIFEST), (B.JAR_ENTRY, JAR), (B.SIGNATURE_ENTRY, signature)):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    dd = bytes(sink.out)
    assert struct.unpack_from("<H", dd, 6)[0] & 8, "expected a data descriptor"
    yield "data_descriptors", "ok", dd
    # issue 38 defect 4: the local header names manifest.xmk, the central directory manifest.xml
    yield "local_name_differs", "bad_bundle", _patched(good, 30, b"manifest.xmk")
    c = _central(good, 0)
    yield "central_name_differs", "bad_bundle", _patched(good, c + 46, b"manifest.xmk")
    yield "local_method_differs", "bad_bundle", _patched(good, 8, struct.pack("<H", 0))
    size = struct.unpack_from("<I", good, 22)[0]
    yield "local_size_differs", "bad_bundle", _patched(good, 22, struct.pack("<I", size + 1))
    crc = struct.unpack_from("<I", good, 14)[0] ^ 1
    yield "crc_differs", "bad_bundle", _patched(_patched(good, 14, struct.pack("<I", crc)), c + 16, struct.pack("<I", crc))
    yield "central_offset_moved", "bad_bundle", _patched(good, _central(good, 1) + 42, struct.pack("<I", 0))
    yield "data_before_the_first_entry", "bad_bundle", b"JUNK" + good
    yield "comment", "bad_bundle", _patched(good, len(good) - 2, struct.pack("<H", 4)) + b"evil"
    end = len(good) - 22
    yield "gap_before_the_end_record", "bad_bundle", good[:end] + b"\0\0\0\0" + good[end:]
    yield "not_a_zip", "bad_bundle", b"hello"


# (outside text, its escaped form): what both escapers must agree on
PRINTABLE = (
    ("", ""),
    ("echo", "echo"),
    ("20\u00b5s \u00e9t\u00e9 \U0001f600", "20\u00b5s \u00e9t\u00e9 \U0001f600"),
    ("abs\nRTCELL READY", "abs\\nRTCELL READY"),
    ("a\rb\tc\\d", "a\\rb\\tc\\\\d"),
    ("\x00\x1b[31m\x7f\x85\x9f", "\\x00\\x1b[31m\\x7f\\x85\\x9f"),
    ("x\u2028y\u2029z\u202ev\u2066w\u2069", "x\\u2028y\\u2029z\\u202ev\\u2066w\\u2069"),
    ("lone \ud800 high, lone \udfff low", "lone \\ud800 high, lone \\udfff low"),
)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed file, write nothing")
    args = ap.parse_args(argv)
    out = HERE / "bundles" / "index.txt"
    text = render()
    if args.check:
        if not out.is_file() or out.read_text() != text:
            print(f"differs or missing: {out}", file=sys.stderr)
            return 1
        return 0
    out.parent.mkdir(exist_ok=True)
    out.write_text(text)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
