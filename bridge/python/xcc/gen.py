"""Generate the protobuf module for bridge/proto/xcc.proto with grpcio-tools' bundled protoc.

Generated code is never committed: it is produced on first import into a cache directory keyed by
the SHA-256 of the .proto and the protobuf runtime version, so an edited .proto is picked up
without a manual step. ``python -m xcc.gen`` generates eagerly and prints the module's path.

The proto: ``$XCC_PROTO`` or ``<this package>/../../proto/xcc.proto`` (the repository's
bridge/proto); the cache: ``xcc.generated.cache_root``.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

from .generated import cache_root, import_generated

_PACKAGE_DIR = Path(__file__).resolve().parent
_MODULE_NAME = "xcc._xcc_pb2"


def proto_path() -> Path:
    env = os.environ.get("XCC_PROTO")
    path = Path(env) if env else _PACKAGE_DIR.parent.parent / "proto" / "xcc.proto"
    if not path.is_file():
        raise FileNotFoundError(
            f"xcc.proto not found at {path}; install the package editable from the repository "
            f"(pip install -e bridge/python) or set XCC_PROTO")
    return path


def options_path() -> Path:
    return proto_path().with_name("xcc.options")


def generate() -> Path:
    """Return the path of xcc_pb2.py for the current .proto, generating it if needed."""
    import google.protobuf

    proto = proto_path()
    digest = hashlib.sha256(proto.read_bytes() + google.protobuf.__version__.encode()).hexdigest()[:16]
    out_dir = cache_root() / f"xcc-{digest}"
    target = out_dir / "xcc_pb2.py"
    if target.is_file():
        return target
    from grpc_tools import protoc  # imported lazily: only needed when (re)generating

    out_dir.parent.mkdir(parents=True, exist_ok=True)
    # Generate into a private directory, then rename: concurrent first imports never see half a file.
    with tempfile.TemporaryDirectory(dir=out_dir.parent) as tmp:
        rc = protoc.main(["grpc_tools.protoc", f"-I{proto.parent}", f"--python_out={tmp}", str(proto)])
        if rc != 0:
            raise RuntimeError(f"protoc failed ({rc}) on {proto}")
        out_dir.mkdir(exist_ok=True)
        os.replace(Path(tmp) / "xcc_pb2.py", target)
    return target


def load():
    """Import the generated module (once per process)."""
    return import_generated(_MODULE_NAME, generate)


def main() -> int:
    from . import layout  # the region layout's module too (bridge/layout/region-layout.toml)
    print(generate())
    print(layout.generate())
    return 0


if __name__ == "__main__":
    sys.exit(main())
