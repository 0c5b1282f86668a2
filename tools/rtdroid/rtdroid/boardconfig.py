"""Board files: load, validate against board.schema.json, then check what a schema cannot say.

Every error names the field path, the offending value and the rule it breaks, e.g.
``board-configs/host.yaml: cells[1].cpus: [1]: cells must not share CPUs (CPU 1 is also in cell 'rt')``.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from . import paths
from .board import (MIB, REGION_HEADER_AND_STATE_BYTES, Board, formatted_region_bytes,  # noqa: F401 (what callers import from here)
                    memory_overlaps, parse_cpu_list, section_bytes)



class BoardConfigError(Exception):
    """A board file that does not validate; .problems holds (path, value, rule) triples and
    .lines the line of the file each problem's path is on (when the board came from a file)."""

    def __init__(self, source: str, problems: list[tuple[str, Any, str]], lines: list[int | None] | None = None):
        self.source = source
        self.problems = problems
        self.lines = lines or [None] * len(problems)
        text = [f"{source}{f':{n}' if n else ''}: {p}: {_show(v)}: {r}"
                for (p, v, r), n in zip(problems, self.lines)]
        super().__init__("invalid board file\n  " + "\n  ".join(text))


def _path_parts(path: str) -> list[str | int]:
    """'cells[1].cpus' -> ['cells', 1, 'cpus'] ('(board)' and '(file)' have none)."""
    return [int(i) if i else k for k, i in re.findall(r"([A-Za-z_][\w]*)|\[(\d+)\]", path)]


def _line_of(node: yaml.Node | None, path: str) -> int | None:
    """The 1-based line of the YAML file that holds `path`, or of its nearest existing parent."""
    if node is None:
        return None
    line = node.start_mark.line + 1
    for part in _path_parts(path):
        if isinstance(node, yaml.MappingNode):
            hit = next(((k, v) for k, v in node.value if k.value == part), None)
            if hit is None:
                break
            line, node = hit[0].start_mark.line + 1, hit[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


class BoardNotFound(BoardConfigError):
    """No board file by that name or path: the file is missing, not invalid."""

    def __init__(self, source: str, path: Path, why: str):
        super().__init__(source, [("(file)", str(path), why)])
        self.args = (f"{why}: {source} (boards: {', '.join(available_boards())})",)


def _show(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


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
    if path.is_dir():
        raise BoardNotFound(source, path, "a directory, not a board file")
    if not path.is_file():
        raise BoardNotFound(source, path, "no such board file")
    try:
        text = path.read_text(encoding="utf-8")
        data = yaml.safe_load(text)
        tree = yaml.compose(text)
    except OSError as e:
        raise BoardConfigError(source, [("(file)", str(path), f"not readable: {e.strerror}")]) from None
    except UnicodeDecodeError as e:
        line = e.object[:e.start].count(b"\n") + 1
        raise BoardConfigError(source, [("(file)", str(path), f"not UTF-8 text: byte 0x{e.object[e.start]:02x} "
                                                               f"at offset {e.start}")], [line]) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        why = " ".join(filter(None, (getattr(e, "context", None), getattr(e, "problem", None)))) or str(e)
        raise BoardConfigError(source, [("(file)", str(path), f"not readable YAML: {why}")],
                               [mark.line + 1 if mark else None]) from None
    return validate_board(data, source, tree)


def validate_board(data: Any, source: str = "<board>", tree: yaml.Node | None = None) -> Board:
    """`tree` (the YAML's node tree, from a file) gives each problem its line."""
    validator = jsonschema.Draft202012Validator(_schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    problems = [(_json_path(e.absolute_path), "(object)" if isinstance(e.instance, dict) else e.instance,
                 _schema_rule(e)) for e in errors] or _semantic_problems(data)
    if problems:
        raise BoardConfigError(source, problems, [_line_of(tree, p) for p, _, _ in problems])
    return Board(data, source)


# The real-time throttle of an RT cell's kernel (kernel.sched_rt_runtime_us of every
# sched_rt_period_us may go to SCHED_FIFO/RR tasks), set on the kernel command line as
# sysctl.kernel.sched_rt_*=N words, and Linux's values when it sets none. HotSpot has spin-waits
# (ZGC's live-map reset is one) where a thread waits for another without yielding: a SCHED_FIFO
# thread spinning on a SCHED_OTHER one of its CPU holds that CPU until the throttle stops it, and
# a safepoint pending meanwhile holds every other Java thread as long.
LINUX_RT_THROTTLE_US = (950_000, 1_000_000)
RT_RUNTIME_SYSCTL = "sysctl.kernel.sched_rt_runtime_us"
RT_PERIOD_SYSCTL = "sysctl.kernel.sched_rt_period_us"


def rt_throttle_us(cmdline: str) -> tuple[int, int]:
    """(runtime, period) in us the kernel booted with ``cmdline`` throttles real-time tasks to."""
    words = dict(w.partition("=")[::2] for w in cmdline.split())
    runtime, period = LINUX_RT_THROTTLE_US
    return (int(words.get(RT_RUNTIME_SYSCTL, runtime)), int(words.get(RT_PERIOD_SYSCTL, period)))


def _rt_throttle_problems(cmdline: str) -> list[tuple[str, Any, str]]:
    throttle_words = [w for w in cmdline.split() if w.partition("=")[0] in (RT_RUNTIME_SYSCTL, RT_PERIOD_SYSCTL)]
    for w in throttle_words:
        if not re.fullmatch(r"[1-9]\d{0,9}", w.partition("=")[2]):
            return [("tuning.rt_cmdline", w, "must be a positive number of microseconds (-1, no throttle, "
                     "lets a real-time thread that spins on a SCHED_OTHER one hold its CPU forever)")]
    given = " ".join(throttle_words)
    runtime, period = rt_throttle_us(cmdline)
    if runtime > period:
        return [("tuning.rt_cmdline", given, f"the runtime ({runtime} us) must not exceed the period ({period} us)")]
    # The kernel applies the words in order and refuses a period shorter than the runtime in
    # force (Linux's 950000 until the runtime word has been applied).
    if period < LINUX_RT_THROTTLE_US[0] and throttle_words[0].startswith(RT_PERIOD_SYSCTL) and len(throttle_words) > 1:
        return [("tuning.rt_cmdline", given,
                 f"a period under Linux's runtime of {LINUX_RT_THROTTLE_US[0]} us needs "
                 f"{RT_RUNTIME_SYSCTL} before it (the kernel applies them in order)")]
    return []


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
        size = r["size_bytes"]
        if size & (size - 1):
            # Every hypervisor maps it as one naturally aligned block (an ivshmem BAR, a Xen static
            # shared-memory bank, a Jailhouse ivshmem region): a power of two.
            probs.append((f"{base}.size_bytes", size, "a region's size must be a power of two"))
        if "{board}" not in r["backing"] or "{checkout}" not in r["backing"]:
            probs.append((f"{base}.backing", r["backing"], "must contain {board} and {checkout} so two "
                          "boards, or one board of two checkouts, never share a region file"))

    region_names = [r["name"] for r in d["regions"]]
    for k, dev in enumerate(d.get("devices", [])):
        if dev["cell"] not in names:
            probs.append((f"devices[{k}].cell", dev["cell"], f"names no cell (cells: {names})"))
        if dev["type"] == "ivshmem-plain" and dev.get("region") not in region_names:
            probs.append((f"devices[{k}].region", dev.get("region"),
                          f"names no region (regions: {region_names})"))
    probs += _rt_throttle_problems(d["tuning"]["rt_cmdline"])
    # What only the board's hypervisor knows (the schema already refused an unknown one).
    from . import hypervisors
    if d["hypervisor"] in hypervisors.names():
        probs += hypervisors.get(d["hypervisor"]).check(d)
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
