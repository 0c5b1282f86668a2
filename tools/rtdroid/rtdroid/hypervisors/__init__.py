"""One module per hypervisor behind the interface of base.py; this is the registry.

Modules are imported on first use, so a module may import render/lifecycle helpers freely.
"""
from __future__ import annotations

import importlib

from .base import Hypervisor

# board file `hypervisor:` value -> (module, class)
_MODULES = {
    "process": ("process", "Process"),
    "qemu": ("qemu", "Qemu"),
    "jailhouse": ("jailhouse", "Jailhouse"),
    "xen": ("xen", "Xen"),
}
_cache: dict[str, Hypervisor] = {}


def names() -> list[str]:
    return sorted(_MODULES)


def get(name: str) -> Hypervisor:
    if name not in _cache:
        module, cls = _MODULES[name]
        _cache[name] = getattr(importlib.import_module(f"{__name__}.{module}"), cls)()
    return _cache[name]
