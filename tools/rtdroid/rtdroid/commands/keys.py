"""`rtdroid keys`: the Ed25519 pair that signs bundles."""
from __future__ import annotations

from pathlib import Path

from .. import keys


def cmd_keys(a) -> int:
    keys.ensure_keys(Path(a.dir) if a.dir else None)
    return 0


def register(commands) -> None:
    sp = commands.add_parser("keys", help="create build/keys/deploy.{key,pub} if missing")
    sp.add_argument("--dir", help="another directory for the pair")
    sp.set_defaults(func=cmd_keys)
