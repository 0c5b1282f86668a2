"""The board's deploy key pair (Ed25519): build/keys/deploy.key (PEM PKCS#8, unencrypted) and
build/keys/deploy.pub (PEM SubjectPublicKeyInfo), created once unless the user supplied one."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from . import paths


def ensure_keys(directory: Path | None = None, out: Callable[[str], None] = print) -> Path:
    d = directory or paths.keys_dir()
    key, pub = d / "deploy.key", d / "deploy.pub"
    if key.is_file() and pub.is_file():
        out(f"deploy key pair present: {key}, {pub}")
        return pub
    if key.is_file() != pub.is_file():
        have = key if key.is_file() else pub
        raise RuntimeError(f"only {have} exists; supply both deploy.key and deploy.pub or neither")
    d.mkdir(parents=True, exist_ok=True)
    private = Ed25519PrivateKey.generate()
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
    pub.write_bytes(private.public_key().public_bytes(serialization.Encoding.PEM,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo))
    out(f"created deploy key pair: {key}, {pub}")
    return pub
