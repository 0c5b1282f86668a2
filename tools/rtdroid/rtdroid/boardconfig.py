"""Board files: load, validate against board.schema.json, then check what a schema cannot say.

Every error names the field path, the offending value and the rule it breaks, e.g.
``board-configs/host.yaml: cells[1].cpus: [1]: cells must not share CPUs (CPU 1 is also in cell 'rt')``.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from . import paths

MIB = 1024 * 1024
REGION_HEADER_AND_STATE_BYTES = 256  # region-spec.md: 128-byte header + 2 state lines of 64 B
QEMU_MIN_REGION_BYTES = MIB


class BoardConfigError(Exception):
    """A board file that does not validate; .problems holds (path, value, rule) triples."""

    def __init__(self, source: str, problems: list[tuple[str, Any, str]]):
        self.source = source
        self.problems = problems
        lines = [f"{source}: {p}: {_show(v)}: {r}" for p, v, r in problems]
        super().__init__("invalid board file\n  " + "\n  ".join(lines))


def _show(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def section_bytes(rings: int, slots: int, slot_bytes: int) -> int:
    """region-spec.md: 64·R consumer lines + R rings of (64-byte header + S slots)."""
    return 64 * rings + rings * (64 + slots * slot_bytes)


def formatted_region_bytes(rings: int, slots: int, slot_bytes: int) -> int:
    return REGION_HEADER_AND_STATE_BYTES + 2 * section_bytes(rings, slots, slot_bytes)


@dataclass(frozen=True)
class Board:
    """A validated board. ``data`` is the parsed YAML; helpers give the parts tooling needs."""

    data: dict
    source: str

    @property
    def name(self) -> str:
        return self.data["board"]

    @property
    def hypervisor(self) -> str:
        return self.data["hypervisor"]

    def cell(self, role: str) -> dict:
        return next(c for c in self.data["cells"] if c["role"] == role)

    @property
    def rt(self) -> dict:
        return self.cell("rt")

    @property
    def android(self) -> dict:
        return self.cell("android")

    @property
    def region(self) -> dict:
        return self.data["regions"][0]

    @property
    def region_path(self) -> Path:
        return Path(self.region["backing"].format(board=self.name))

    @property
    def region_formatted_bytes(self) -> int:
        r = self.region
        return formatted_region_bytes(r["rings"], r["slots"], r["slot_bytes"])

    @property
    def control_port(self) -> int:
        return int(self.android.get("control_port", 7411))


def _schema() -> dict:
    with open(paths.board_configs_dir() / "board.schema.json", encoding="utf-8") as f:
        return json.load(f)


def _json_path(parts) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(board)"


def _schema_rule(err: jsonschema.ValidationError) -> str:
    v = err.validator
    if v == "required":
        return f"required field missing ({err.message})"
    if v == "additionalProperties":
        return f"unknown field ({err.message})"
    if v == "enum":
        return f"must be one of {err.validator_value}"
    if v == "not":
        banned = []
        for alt in err.validator_value.get("anyOf", [err.validator_value]):
            banned += alt.get("required", [])
        present = [k for k in banned if isinstance(err.instance, dict) and k in err.instance]
        return f"field(s) {present} not allowed for this cell's role"
    if v in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
             "minItems", "maxItems", "minLength", "maxLength", "pattern", "type", "uniqueItems",
             "const"):
        return f"schema rule {v}: {err.validator_value!r}"
    return f"schema rule {v}: {err.message}"


def resolve_board_file(name_or_path: str) -> Path:
    p = Path(name_or_path)
    if p.suffix in (".yaml", ".yml") or os.sep in name_or_path:
        return p
    return paths.board_configs_dir() / f"{name_or_path}.yaml"


def available_boards() -> list[str]:
    return sorted(p.stem for p in paths.board_configs_dir().glob("*.yaml"))


def load_board(name_or_path: str) -> Board:
    path = resolve_board_file(name_or_path)
    try:
        source = str(path.resolve().relative_to(paths.repo_root()))
    except ValueError:
        source = str(path)
    if not path.is_file():
        known = ", ".join(available_boards())
        raise BoardConfigError(source, [("(file)", str(path), f"no such board file (boards: {known})")])
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        raise BoardConfigError(source, [("(file)", str(path), f"not readable YAML: {e}")]) from None
    return validate_board(data, source)


def validate_board(data: Any, source: str = "<board>") -> Board:
    validator = jsonschema.Draft202012Validator(_schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        raise BoardConfigError(source, [
            (_json_path(e.absolute_path),
             "(object)" if isinstance(e.instance, dict) else e.instance, _schema_rule(e))
            for e in errors])
    problems = _semantic_problems(data)
    if problems:
        raise BoardConfigError(source, problems)
    return Board(data, source)


_CPU_LIST_PARAMS = ("isolcpus", "nohz_full", "rcu_nocbs", "irqaffinity")


def parse_cpu_list(text: str) -> list[int]:
    """Kernel cpu-list syntax: 0,2-3 (isolcpus may carry flags such as 'domain,managed_irq,')."""
    cpus: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part or part in ("domain", "managed_irq", "nohz"):
            continue
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise ValueError(f"not a CPU list element: {part!r}")
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        if hi < lo:
            raise ValueError(f"descending range {part!r}")
        cpus.extend(range(lo, hi + 1))
    return cpus


def _semantic_problems(d: dict) -> list[tuple[str, Any, str]]:
    probs: list[tuple[str, Any, str]] = []
    board_cpus = set(d["cpus"])
    cells = d["cells"]
    names = [c["name"] for c in cells]
    roles = [c["role"] for c in cells]
    if len(set(names)) != len(names):
        probs.append(("cells", names, "cell names must be unique"))
    if sorted(roles) != ["android", "rt"]:
        probs.append(("cells", roles, "a board has exactly one cell of role rt and one of role android"))
    owner: dict[int, str] = {}
    for i, c in enumerate(cells):
        for cpu in c["cpus"]:
            if cpu not in board_cpus:
                probs.append((f"cells[{i}].cpus", c["cpus"],
                              f"CPU {cpu} is not declared in the board's cpus {sorted(board_cpus)}"))
            elif cpu in owner:
                probs.append((f"cells[{i}].cpus", c["cpus"],
                              f"cells must not share CPUs (CPU {cpu} is also in cell '{owner[cpu]}')"))
            else:
                owner[cpu] = c["name"]
        if c["role"] == "rt":
            heap = c["heap_mib"] * MIB
            if heap + c["rt_budget_bytes"] > c["memory_mib"] * MIB:
                probs.append((f"cells[{i}].rt_budget_bytes", c["rt_budget_bytes"],
                              f"JVM heap ({c['heap_mib']} MiB) + RT budget must fit the cell's "
                              f"memory_mib ({c['memory_mib']} MiB)"))
            if d["hypervisor"] == "qemu":
                if "kernel" not in c:
                    probs.append((f"cells[{i}].kernel", None, "a qemu RT cell boots a kernel: set kernel"))
                if c.get("vcpus", 1) > len(c["cpus"]):
                    probs.append((f"cells[{i}].vcpus", c.get("vcpus"),
                                  f"more vCPUs than host CPUs pinned to the cell ({c['cpus']})"))
            elif d["hypervisor"] == "process":  # a xen RT cell's keys are checked by hypervisors/xen.py
                for key in ("kernel", "accel", "cpu_model", "vcpus", "boot"):
                    if key in c:
                        probs.append((f"cells[{i}].{key}", c[key],
                                      "only a qemu board's RT cell boots a VM; a process board has no " + key))
        if "heap_mib" in c and c["heap_mib"] > c["memory_mib"]:
            probs.append((f"cells[{i}].heap_mib", c["heap_mib"],
                          f"the JVM heap must fit the cell's memory_mib ({c['memory_mib']})"))

    for j, r in enumerate(d["regions"]):
        base = f"regions[{j}]"
        for k, peer in enumerate(r["peers"]):
            if peer not in names:
                probs.append((f"{base}.peers[{k}]", peer, f"names no cell (cells: {names})"))
        s = r["slots"]
        if s & (s - 1):
            probs.append((f"{base}.slots", s, "slots per ring must be a power of two (region-spec.md)"))
        need = formatted_region_bytes(r["rings"], s, r["slot_bytes"])
        if r["size_bytes"] < need:
            probs.append((f"{base}.size_bytes", r["size_bytes"],
                          f"too small for the ring geometry: 256 + 2*(64R + R(64 + S*slot_bytes)) = {need} "
                          f"with R={r['rings']} S={s} slot_bytes={r['slot_bytes']}"))
        if need >= 2 ** 32:
            probs.append((f"{base}", need, "formatted region must fit u32 region_bytes"))
        if d["hypervisor"] == "qemu":
            size = r["size_bytes"]
            if size & (size - 1) or size < QEMU_MIN_REGION_BYTES:
                probs.append((f"{base}.size_bytes", size,
                              "an ivshmem BAR must be a power of two >= 1 MiB"))
        if "{board}" not in r["backing"]:
            probs.append((f"{base}.backing", r["backing"],
                          "must contain {board} so two boards never share a region file"))

    region_names = [r["name"] for r in d["regions"]]
    for k, dev in enumerate(d.get("devices", [])):
        if dev["cell"] not in names:
            probs.append((f"devices[{k}].cell", dev["cell"], f"names no cell (cells: {names})"))
        if dev["type"] == "ivshmem-plain":
            if d["hypervisor"] != "qemu":
                probs.append((f"devices[{k}].type", dev["type"], "ivshmem devices exist only on qemu boards"))
            if dev.get("region") not in region_names:
                probs.append((f"devices[{k}].region", dev.get("region"),
                              f"names no region (regions: {region_names})"))
    if d["hypervisor"] == "qemu" and not any(
            dev["type"] == "ivshmem-plain" for dev in d.get("devices", [])):
        probs.append(("devices", d.get("devices", []),
                      "a qemu board needs an ivshmem-plain device carrying the region into the RT cell"))

    cmdline = d["tuning"]["rt_cmdline"]
    if d["hypervisor"] == "process" and cmdline.strip():
        probs.append(("tuning.rt_cmdline", cmdline, "a process board boots no kernel: leave it empty"))
    if d["hypervisor"] == "qemu":
        rt = next((c for c in cells if c["role"] == "rt"), None)
        vcpus = rt.get("vcpus", 1) if rt else 1
        if "console=ttyS0" not in cmdline.split():
            probs.append(("tuning.rt_cmdline", cmdline,
                          "must contain console=ttyS0: readiness and logs come from the serial console"))
        for word in cmdline.split():
            key, _, val = word.partition("=")
            if key not in _CPU_LIST_PARAMS:
                continue
            try:
                listed = parse_cpu_list(val)
            except ValueError as e:
                probs.append(("tuning.rt_cmdline", word, f"{key}: {e}"))
                continue
            bad = [c for c in listed if c >= vcpus]
            if bad:
                probs.append(("tuning.rt_cmdline", word,
                              f"{key} names guest CPU(s) {bad} but the RT cell has {vcpus} vCPU(s)"))
            if key in ("isolcpus", "nohz_full") and set(range(vcpus)) <= set(listed):
                probs.append(("tuning.rt_cmdline", word,
                              f"{key} must leave at least one housekeeping vCPU (the cell has {vcpus})"))
    return probs


def check_host_cpus(board: Board) -> None:
    """At `board up`: the cells' CPUs must exist (and be usable) on this machine."""
    usable = os.sched_getaffinity(0)
    for i, c in enumerate(board.data["cells"]):
        missing = [cpu for cpu in c["cpus"] if cpu not in usable]
        if missing:
            raise BoardConfigError(board.source, [(
                f"cells[{i}].cpus", c["cpus"],
                f"CPU(s) {missing} do not exist or are not usable on this machine "
                f"(usable: {sorted(usable)})")])
