#!/usr/bin/env python3
"""RT bundle signature vectors: bundles/index.txt (grammar in README.md, "bundles/index.txt").

    build/venv/bin/python bridge/vectors/bundle_vectors.py          # rewrite bundles/index.txt
    build/venv/bin/python bridge/vectors/bundle_vectors.py --check  # exit 1 if the committed file differs

Ed25519 (RFC 8032) signatures are deterministic, so a fixed test key gives fixed signatures: the
Python signer (xcc.bundle) and the Java verifier (rt-cell/agent Bundle) are held to the same
signed message for an ordinary bundle and for one signed as a downgrade, and to refusing a
signature under the other entry's name. The key is a test key, made from a published seed.
"""
from __future__ import annotations

import argparse
import sys
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
    return "\n".join(lines) + "\n"


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
