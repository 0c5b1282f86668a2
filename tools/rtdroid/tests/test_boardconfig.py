"""Board files: the shipped ones validate; each broken one is rejected naming field, value, rule."""
import copy

import pytest
import yaml

from rtdroid import boardconfig as bc
from rtdroid import paths


def shipped(name):
    return yaml.safe_load((paths.board_configs_dir() / f"{name}.yaml").read_text())


@pytest.mark.parametrize("name", ["host", "qemu-x86_64"])
def test_shipped_boards_validate(name):
    b = bc.load_board(name)
    assert b.name == name
    assert b.rt["cpus"] == [1] and b.android["cpus"] == [0]
    assert b.region_formatted_bytes <= b.region["size_bytes"]


def test_region_geometry_formula_matches_the_spec():
    # 256 + 2*(64R + R(64 + S*slot_bytes)) with R=3, S=256, 512-byte slots
    assert bc.formatted_region_bytes(3, 256, 512) == 256 + 2 * (64 * 3 + 3 * (64 + 256 * 512))


def _set(d, path, value):
    keys = path.split(".")
    for k in keys[:-1]:
        d = d[int(k)] if k.isdigit() else d[k]
    last = keys[-1]
    if value is _DELETE:
        del d[int(last) if last.isdigit() else last]
    else:
        d[int(last) if last.isdigit() else last] = value


_DELETE = object()

CASES = [
    # (board, field to change, new value, expected field path, expected words in the rule)
    ("host", "cells.1.cpus", [1], "cells[1].cpus", "must not share CPUs"),
    ("host", "cells.0.cpus", [5], "cells[0].cpus", "not declared"),
    ("host", "regions.0.size_bytes", 4096, "regions[0].size_bytes", "too small for the ring geometry"),
    ("host", "regions.0.slots", 100, "regions[0].slots", "power of two"),
    ("host", "regions.0.slot_bytes", 500, "regions[0].slot_bytes", "multipleOf"),
    ("host", "regions.0.rings", 9, "regions[0].rings", "maximum"),
    ("host", "regions.0.backing", "/tmp/x.region", "regions[0].backing", "pattern"),
    ("host", "regions.0.backing", "/dev/shm/fixed.region", "regions[0].backing", "{board}"),
    ("host", "regions.0.peers", ["rt", "nobody"], "regions[0].peers[1]", "names no cell"),
    ("host", "cells.0.rt_budget_bytes", 1 << 30, "cells[0].rt_budget_bytes", "must fit the cell's memory_mib"),
    ("host", "cells.0.role", "android", "cells[0]", "not allowed for this cell's role"),
    ("host", "cells.0.kernel", "debian-rt", "cells[0].kernel", "process board has no kernel"),
    ("host", "cells.1.control_port", "7411", "cells[1].control_port", "type"),
    ("host", "cells.1.control_port", 80, "cells[1].control_port", "minimum"),
    ("host", "cells.0.frequency", 3, "cells[0]", "unknown field"),
    ("host", "hypervisor", "bochs", "hypervisor", "must be one of"),
    ("host", "tuning.rt_cmdline", "isolcpus=1", "tuning.rt_cmdline", "boots no kernel"),
    ("host", "cells.0.heap_mib", _DELETE, "cells[0]", "required field missing"),
    ("qemu-x86_64", "regions.0.size_bytes", 3 * 1024 * 1024, "regions[0].size_bytes", "power of two"),
    ("qemu-x86_64", "tuning.rt_cmdline", "console=ttyS0 isolcpus=0", "tuning.rt_cmdline", "housekeeping"),
    ("qemu-x86_64", "tuning.rt_cmdline", "console=ttyS0 nohz_full=3", "tuning.rt_cmdline", "1 vCPU"),
    ("qemu-x86_64", "tuning.rt_cmdline", "quiet", "tuning.rt_cmdline", "console=ttyS0"),
    ("qemu-x86_64", "tuning.rt_cmdline", "console=ttyS0 sysctl.kernel.sched_rt_runtime_us=-1",
     "tuning.rt_cmdline", "positive number of microseconds"),
    ("qemu-x86_64", "tuning.rt_cmdline",
     "console=ttyS0 sysctl.kernel.sched_rt_runtime_us=20000 sysctl.kernel.sched_rt_period_us=10000",
     "tuning.rt_cmdline", "must not exceed the period"),
    ("qemu-x86_64", "tuning.rt_cmdline",
     "console=ttyS0 sysctl.kernel.sched_rt_period_us=10000 sysctl.kernel.sched_rt_runtime_us=9500",
     "tuning.rt_cmdline", "before it (the kernel applies them in order)"),
    ("qemu-arm64-xen", "tuning.rt_cmdline", "console=ttyAMA0 sysctl.kernel.sched_rt_period_us=500000",
     "tuning.rt_cmdline", "the runtime (950000 us) must not exceed the period (500000 us)"),
    ("qemu-x86_64", "cells.0.kernel", _DELETE, "cells[0].kernel", "boots a kernel"),
    ("qemu-x86_64", "cells.0.vcpus", 2, "cells[0].vcpus", "more vCPUs"),
    ("qemu-x86_64", "cells.0.accel", "hvf", "cells[0].accel", "must be one of"),
    ("qemu-x86_64", "devices", [], "devices", "ivshmem-plain device"),
    ("qemu-x86_64", "devices.0.region", "other", "devices[0].region", "names no region"),
]


@pytest.mark.parametrize("board,field,value,path,rule", CASES,
                         ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_broken_board_is_rejected_with_field_value_and_rule(board, field, value, path, rule):
    d = copy.deepcopy(shipped(board))
    _set(d, field, value)
    with pytest.raises(bc.BoardConfigError) as e:
        bc.validate_board(d, f"{board}.yaml")
    paths_and_rules = [(p, r) for p, v, r in e.value.problems]
    assert any(p == path and rule in r for p, r in paths_and_rules), paths_and_rules
    text = str(e.value)
    assert f"{board}.yaml: {path}:" in text
    if value is not _DELETE and path == field_path(field) and isinstance(value, (int, str)):
        assert str(value).split()[-1] in text  # the value (or the offending word of it) is shown


def field_path(dotted):
    out = ""
    for k in dotted.split("."):
        out += f"[{k}]" if k.isdigit() else (f".{k}" if out else k)
    return out


def test_two_rt_cells_are_rejected():
    d = shipped("host")
    d["cells"][1] = copy.deepcopy(d["cells"][0])
    d["cells"][1]["name"] = "rt2"
    d["cells"][1]["cpus"] = [0]
    with pytest.raises(bc.BoardConfigError) as e:
        bc.validate_board(d, "host.yaml")
    assert "exactly one cell of role rt" in str(e.value)


def test_missing_board_file_names_the_known_boards():
    with pytest.raises(bc.BoardConfigError) as e:
        bc.load_board("no-such-board")
    assert "no such board file" in str(e.value) and "qemu-x86_64" in str(e.value)


def test_not_yaml_is_rejected(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("board: [unclosed\n")
    with pytest.raises(bc.BoardConfigError) as e:
        bc.load_board(str(p))
    assert "not readable YAML" in str(e.value)


def test_a_board_file_that_is_not_utf8_names_the_byte_and_line(tmp_path):
    # found by fuzz/python/fuzz_board.py: this escaped as UnicodeDecodeError
    p = tmp_path / "latin1.yaml"
    p.write_bytes(b"board: x\nname: caf\xe9\n")
    with pytest.raises(bc.BoardConfigError) as e:
        bc.load_board(str(p))
    assert ":2: (file)" in str(e.value) and "not UTF-8 text: byte 0xe9 at offset 18" in str(e.value)


def test_cpu_that_does_not_exist_on_this_machine_is_refused_at_up():
    d = shipped("host")
    d["cpus"] = [0, 1, 1000]
    d["cells"][0]["cpus"] = [1000]
    b = bc.validate_board(d, "host.yaml")  # declared, so the file itself is valid
    with pytest.raises(bc.BoardConfigError) as e:
        bc.check_host_cpus(b)
    assert "cells[0].cpus" in str(e.value) and "1000" in str(e.value)


def test_cpu_list_syntax():
    assert bc.parse_cpu_list("0,2-4") == [0, 2, 3, 4]
    assert bc.parse_cpu_list("domain,managed_irq,1") == [1]
    with pytest.raises(ValueError):
        bc.parse_cpu_list("3-1")


# A board file error is refused with its file, line and reason, before anything starts.

def _write_broken(tmp_path, board, old, new):
    text = (paths.board_configs_dir() / f"{board}.yaml").read_text()
    assert old in text
    f = tmp_path / f"broken-{board}.yaml"
    f.write_text(text.replace(old, new, 1))
    line = text[:text.index(old)].count("\n") + 1
    return f, line


FILE_CASES = [
    # (board, text to replace, replacement, words of the reason)
    ("host", "    cpus: [0]\n", "    cpus: [1]\n", "must not share CPUs"),
    ("host", "size_bytes: 1048576", "size_bytes: 1000000", "must be a power of two"),
    ("qemu-x86_64", "size_bytes: 4194304", "size_bytes: 6291456", "power of two"),
    ("host", "hypervisor: process", "hypervisor: bochs", "must be one of"),
    ("qemu-x86_64", "    cpus: [0]\n", "    cpus: [0, 1]\n", "must not share CPUs"),
]


@pytest.mark.parametrize("board,old,new,reason", FILE_CASES, ids=[f"{c[0]}:{c[2].strip()}" for c in FILE_CASES])
def test_board_file_error_names_file_line_and_reason(tmp_path, board, old, new, reason):
    f, line = _write_broken(tmp_path, board, old, new)
    with pytest.raises(bc.BoardConfigError) as e:
        bc.load_board(str(f))
    assert f"{f}:{line}: " in str(e.value) and reason in str(e.value), str(e.value)


def test_yaml_syntax_error_names_its_line(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("board: host\ncpus: [0, 1\nregions: []\n")
    with pytest.raises(bc.BoardConfigError) as e:
        bc.load_board(str(p))
    assert f"{p}:3: " in str(e.value) and "not readable YAML" in str(e.value)


def test_missing_board_file_is_named(tmp_path):
    with pytest.raises(bc.BoardConfigError) as e:
        bc.load_board(str(tmp_path / "absent.yaml"))
    assert f"{tmp_path / 'absent.yaml'}" in str(e.value) and "no such board file" in str(e.value)


def test_overlapping_memory_windows_are_named():
    probs = bc.memory_overlaps([("a", 0x4000_0000, 0x1000_0000), ("b", 0x4800_0000, 0x100_0000),
                                ("c", 0x5000_0000, 0x100_0000)])
    assert [(p, r.split(" overlaps ")[1].split()[0]) for p, _, r in probs] == [("b", "a")]
    assert bc.memory_overlaps([("a", 0, 0x1000), ("b", 0x1000, 0x1000)]) == []


def test_the_rt_throttle_is_the_command_lines_or_linuxs():
    assert bc.rt_throttle_us("console=ttyS0 quiet") == bc.LINUX_RT_THROTTLE_US
    assert bc.rt_throttle_us("a sysctl.kernel.sched_rt_runtime_us=9500 sysctl.kernel.sched_rt_period_us=10000") \
        == (9500, 10000)
    for name in ("qemu-x86_64", "qemu-arm64-xen"):  # the boards that boot their RT kernel bound it to 2 ms
        assert bc.rt_throttle_us(shipped(name)["tuning"]["rt_cmdline"]) == (1900, 2000)
