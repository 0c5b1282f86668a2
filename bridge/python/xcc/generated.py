"""Generated Python modules: where they go and how they are imported.

Generated code is never committed: each generator writes its module on first import into a cache
directory keyed by the SHA-256 of its inputs, so an edited input is picked up without a manual step.
The cache: ``$XCC_GEN_DIR``, else ``<repo>/build/python-gen`` when the package sits in the repository
(``build/`` is git-ignored), else ``~/.cache/xcc``.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Callable

_PACKAGE_DIR = Path(__file__).resolve().parent


def cache_root() -> Path:
    """Where generated modules go (xcc.gen's protobuf module and xcc.layout's constants)."""
    env = os.environ.get("XCC_GEN_DIR")
    if env:
        return Path(env)
    repo = _PACKAGE_DIR.parent.parent.parent
    if (repo / "bridge" / "proto").is_dir():
        return repo / "build" / "python-gen"
    return Path.home() / ".cache" / "xcc"


def import_generated(name: str, generate: Callable[[], Path]):
    """The module ``name``, imported (once per process) from the file ``generate()`` returns."""
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, generate())
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module
