"""Jailhouse boards: the rendered root-cell and RT-cell configurations are consistent with the
board file (checked on the golden C sources themselves), compile against the configuration
layout, and a board-file error is refused with its line. Jailhouse never runs here."""
import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from rtdroid import boardconfig as bc
from rtdroid import lifecycle, paths, render
from rtdroid.errors import BoardError
from rtdroid.hypervisors import get, jailhouse as jh

from xcc.region import IVSHMEM_PROTOCOL

BOARDS = ["jailhouse-qemu-arm64", "jailhouse-rpi4"]
INCLUDE = Path(__file__).resolve().parent / "jailhouse_include"
FLAG_VALUES = {"READ": 1, "WRITE": 2, "EXECUTE": 4, "DMA": 8, "IO": 0x10, "COMM_REGION": 0x20,
               "LOADABLE": 0x40, "ROOTSHARED": 0x80, "IO_8": 1 << 16, "IO_32": 4 << 16}


# ------------------------------------------------------------------ reading a rendered config back

def _block(text: str, name: str) -> str:
    """The body of `.name = { ... }` at the top level of `config` (braces balanced)."""
    start = text.index(f"\t.{name} = {{\n") + len(f"\t.{name} = {{\n")
    depth, i = 1, start
    while depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[start:i - 1]


def _entries(body: str) -> list[str]:
    """Top-level `{ ... }` entries of an array initialiser, comments removed."""
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    out, depth, cur = [], 0, ""
    for ch in body:
        if ch == "{":
            depth += 1
        if depth:
            cur += ch
        if ch == "}":
            depth -= 1
            if not depth:
                out.append(cur)
                cur = ""
    return out


def _field(entry: str, name: str, default=None):
    m = re.search(rf"\.{name} = ([^,\n]+(?:\n\t+\|?[^,\n]*)*),", entry)
    return m.group(1) if m else default


def _int(expr: str) -> int:
    expr = expr.replace("JAILHOUSE_SHMEM_PROTO_CUSTOM", str(jh.PROTO_CUSTOM))
    assert re.fullmatch(r"[0-9a-fx +\-<]+", expr), expr
    return eval(expr)  # noqa: S307 - digits and + - << only, checked above


def parse_cell(text: str) -> jh.Cell:
    """The facts the consistency rules need, read from a rendered C source (not from the board)."""
    name = re.search(r'\.name = "([^"]+)"', text).group(1)
    words = [_int(w) for w in re.findall(r"(0x[0-9a-f]+),", re.sub(r"/\*.*?\*/", "", _block(text, "cpus")))]
    cpus = {64 * k + b for k, w in enumerate(words) for b in range(64) if w >> b & 1}
    mems = []
    for k, e in enumerate(_entries(_block(text, "mem_regions"))):
        if re.fullmatch(r"\{\s*0\s*\}", e):
            mems.append(jh.Mem(f"mem_regions[{k}]", 0, 0, 0, ()))
            continue
        flags = tuple(re.findall(r"JAILHOUSE_MEM_(\w+)", _field(e, "flags")))
        phys = _field(e, "phys_start")
        mems.append(jh.Mem(f"mem_regions[{k}]", _int(phys) if phys else None, _int(_field(e, "virt_start")),
                           _int(_field(e, "size")), flags, device="IO" in flags))
    irqs = set()
    for e in _entries(_block(text, "irqchips")):
        base = _int(_field(e, "pin_base"))
        bitmap = [_int(w) for w in re.findall(r"0x[0-9a-f]+", e.split(".pin_bitmap")[1])]
        irqs |= {base + 32 * k + b for k, w in enumerate(bitmap) for b in range(32) if w >> b & 1}
    (pci,) = _entries(_block(text, "pci_devices"))
    assert _field(pci, "type") == "JAILHOUSE_PCI_TYPE_IVSHMEM"
    return jh.Cell(name, cpus, mems, irqs, _int(re.search(r"\.vpci_irq_base = ([^,]+),", text).group(1)) + 32,
                   shmem_regions_start=_int(_field(pci, "shmem_regions_start")),
                   shmem_dev_id=_int(_field(pci, "shmem_dev_id")), shmem_peers=_int(_field(pci, "shmem_peers")),
                   shmem_protocol=_int(_field(pci, "shmem_protocol")))


def golden(board: str) -> tuple[str, str]:
    d = paths.hypervisor_cells_dir() / "jailhouse" / "golden"
    root_c, rt_c = jh.file_names(board)
    return (d / root_c).read_text(), (d / rt_c).read_text()


def board_data(board: str) -> dict:
    return yaml.safe_load((paths.board_configs_dir() / f"{board}.yaml").read_text())


# ------------------------------------------------------------------ golden files

@pytest.mark.parametrize("board", BOARDS)
def test_golden_configs_are_consistent_with_the_board_file(board):
    data = board_data(board)
    root_text, rt_text = golden(board)
    root, rt = parse_cell(root_text), parse_cell(rt_text)
    assert jh.consistency(data, root, rt) == []
    # What the rules take for granted, read from the C: the cells' CPUs, the device's region.
    assert root.cpus == set(data["cpus"]) and rt.cpus == set(bc.validate_board(data).rt["cpus"])
    rw = rt.mems[rt.shmem_regions_start + 1]
    assert rw.size == data["regions"][0]["size_bytes"] and rw.phys == data["jailhouse"]["region_address"]
    assert rt.shmem_protocol == root.shmem_protocol == IVSHMEM_PROTOCOL == 0x5843
    assert "JAILHOUSE_SYSTEM_SIGNATURE" in root_text and "JAILHOUSE_CELL_DESC_SIGNATURE" in rt_text


@pytest.mark.parametrize("change,words", [
    ((r"(\.size = )0x00400000", r"\g<1>0x00200000"), "must be the bridge's region size"),
    ((r"0xc, /\* CPUs 2, 3 \*/", "0xe, /* CPUs 1, 2, 3 */"), "the RT cell's CPU set"),
    ((r"(\.phys_start = )0x70000000", r"\g<1>0x70000800"), "page-aligned"),
    ((r"(\.phys_start = )0x7c000000", r"\g<1>0x7bff0000"), "overlaps"),
    ((r"CUSTOM \+ 0x1843", "CUSTOM + 0x0001"), "protocol 0x4001"),
])
def test_a_tampered_golden_config_is_caught(change, words):
    data = board_data("jailhouse-qemu-arm64")
    root_text, rt_text = golden("jailhouse-qemu-arm64")
    bad, n = re.subn(change[0], change[1], rt_text, count=1)
    assert n == 1
    probs = jh.consistency(data, parse_cell(root_text), parse_cell(bad))
    assert any(words in rule for _, _, rule in probs), probs


# ------------------------------------------------------------------ the C compiles

def _compile(source: str, expected: dict[str, int], tmp_path: Path) -> subprocess.CompletedProcess:
    """-fsyntax-only against tests/jailhouse_include, with the array lengths pinned."""
    f = tmp_path / "config.c"
    asserts = "".join(f'_Static_assert(ARRAY_SIZE(config.{k}) == {v}, "{k}");\n' for k, v in expected.items())
    f.write_text(source + "\n" + asserts)
    return subprocess.run([CC, "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I", str(INCLUDE), str(f)],
                          capture_output=True, text=True)


CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler on this machine")


@needs_cc
@pytest.mark.parametrize("board", BOARDS)
def test_rendered_configs_compile(board, tmp_path):
    data = board_data(board)
    for text, cell in ((jh.root_config_c(data), jh.root_cell(data)), (jh.rt_config_c(data), jh.rt_cell(data))):
        r = _compile(text, {"mem_regions": len(cell.mems), "pci_devices": 1}, tmp_path)
        assert r.returncode == 0, r.stderr


@needs_cc
@pytest.mark.parametrize("change", [("JAILHOUSE_CELL_DESC_SIGNATURE,", "JAILHOUSE_CELL_DESC_SIGNATURE"),        # a lost comma
                                    (".shmem_peers", ".shmem_peer"),                              # a wrong field
                                    ("JAILHOUSE_MEM_DMA", "JAILHOUSE_MEM_DMA_")])                 # a wrong flag
def test_a_malformed_render_does_not_compile(change, tmp_path):
    data = board_data("jailhouse-rpi4")
    text = jh.rt_config_c(data)
    assert change[0] in text
    r = _compile(text.replace(change[0], change[1], 1), {}, tmp_path)
    assert r.returncode != 0


@needs_cc
def test_a_region_count_that_disagrees_with_the_array_does_not_compile(tmp_path):
    data = board_data("jailhouse-qemu-arm64")
    r = _compile(jh.root_config_c(data), {"mem_regions": len(jh.root_cell(data).mems) + 1}, tmp_path)
    assert r.returncode != 0 and "mem_regions" in r.stderr


# ------------------------------------------------------------------ board-file errors, with lines

def _broken(tmp_path, board, old, new):
    text = (paths.board_configs_dir() / f"{board}.yaml").read_text()
    assert text.count(old) >= 1, old
    f = tmp_path / f"broken-{board}.yaml"
    f.write_text(text.replace(old, new, 1))
    return f, text


Q, R = "jailhouse-qemu-arm64", "jailhouse-rpi4"
FILE_CASES = [
    # (board, text to replace, replacement, the text whose line the error names, words of the reason)
    (Q, "    cpus: [0, 1]              #", "    cpus: [0, 1, 2]           #", "    cpus: [0, 1, 2]", "must not share CPUs"),
    (Q, "    cpus: [2, 3]\n", "    cpus: [2, 3, 4]\n", "    cpus: [2, 3, 4]\n", "not declared in the board's cpus"),
    (R, "    cpus: [0, 1]\n", "    cpus: [0]\n", "    cpus: [0]\n", "keeps exactly the CPUs the RT cell does not take"),
    (Q, "ram_base: 0x70000000", "ram_base: 0x70000800", "    ram_base:", "page-aligned"),
    (R, "hypervisor_memory: {base: 0x1fc00000, size: 0x400000}",
     "hypervisor_memory: {base: 0x1fc00000, size: 0x400800}", "hypervisor_memory:", "page-aligned"),
    (Q, "loader_base: 0x7c000000", "loader_base: 0x7b000000", "loader_base:", "overlaps jailhouse.rt_cell.ram_base"),
    (Q, "base: 0x40000000, size: 0x3f7ff000", "base: 0x40000000, size: 0x3f801000", "region_address:",
     "overlaps jailhouse.root_ram[0]"),
    (R, "hypervisor_memory: {base: 0x1fc00000", "hypervisor_memory: {base: 0x1f800000", "region_address:",
     "overlaps Jailhouse's own memory"),
    (Q, "ram_base: 0x70000000", "ram_base: 0x90000000", "    ram_base:", "must lie inside the root cell's RAM"),
    (Q, "size_bytes: 4194304", "size_bytes: 6291456", "size_bytes:", "power of two"),
    (Q, "pci_irq: 140", "pci_irq: 170", "rt_cell:", "not an SPI of this GIC"),
    (R, "pci_irq: 185", "pci_irq: 182", "root_irq", "the root cell's vPCI INTx is taken"),
    (Q, "gicr_base: 0x080a0000, ", "", "gic:", "needs gicr_base"),
    (R, "    heap_mib: 128\n", "    heap_mib: 128\n    accel: tcg\n", "accel: tcg", "not an emulated VM"),
    (R, "hypervisor: jailhouse", "hypervisor: bochs", "hypervisor: bochs", "must be one of"),
    (Q, "{name: RAM, base: 0x40000000", "{name: RAM */, base: 0x40000000", "name: RAM */", "schema rule pattern"),
    (Q, "board: jailhouse-qemu-arm64", "board: jailhouse-qemu-arm64-long-name", "  - name: android",
     "longer than 31 characters"),
]


@pytest.mark.parametrize("board,old,new,at,reason", FILE_CASES, ids=[f"{c[0]}:{c[4]}" for c in FILE_CASES])
def test_board_file_error_names_its_line_and_reason(tmp_path, board, old, new, at, reason):
    f, _ = _broken(tmp_path, board, old, new)
    broken = f.read_text()
    line = broken[:broken.index(at)].count("\n") + 1
    with pytest.raises(bc.BoardConfigError) as e:
        bc.load_board(str(f))
    hits = [ln for ln in str(e.value).splitlines() if reason in ln]
    assert hits and any(f"{f}:{line}: " in h for h in hits), str(e.value)


def test_a_jailhouse_board_needs_its_layout(tmp_path):
    data = board_data(Q)
    del data["jailhouse"]
    with pytest.raises(bc.BoardConfigError) as e:
        bc.validate_board(data)
    assert "jailhouse: null: required for hypervisor jailhouse" in str(e.value)


# ------------------------------------------------------------------ rendering and refusing

@pytest.mark.parametrize("board", BOARDS)
def test_shipped_jailhouse_boards_validate_and_name_their_cells(board):
    b = bc.load_board(board)
    r = render.render(b)
    assert r["jailhouse"]["runs_here"] is False
    assert r["jailhouse"]["rt_cell"]["config"] == f"{board}-rt.c"
    argv = r["cells"]["rt"]["argv"]
    assert argv[:3] == ["jailhouse", "cell", "linux"] and argv[3].endswith(f"{board}-rt.cell")
    assert argv[-1] == b.data["tuning"]["rt_cmdline"]


def test_board_up_refuses_in_one_line_before_anything_starts(tmp_path, monkeypatch):
    monkeypatch.setenv("RTDROID_RUN_DIR", str(tmp_path / "run"))
    with pytest.raises(BoardError) as e:
        lifecycle.up(R, out=lambda s: None)
    assert str(e.value) == jh.REFUSAL.format(board=R) and "\n" not in str(e.value)
    assert str(e.value).startswith("Jailhouse cannot run on this machine: ")
    assert not (tmp_path / "run").exists() and not bc.load_board(R).region_path.exists()
    launch = SimpleNamespace(board=bc.load_board(R))
    for call in (lambda: get("jailhouse").prepare(launch.board, True, None),
                 lambda: get("jailhouse").start(launch)):
        with pytest.raises(BoardError, match="Jailhouse cannot run on this machine"):
            call()


def test_render_write_puts_the_sources_under_build(tmp_path, monkeypatch):
    from rtdroid import cli
    monkeypatch.setattr(paths, "build_dir", lambda: tmp_path)
    assert cli.main(["board", "render", "--board", Q, "--write"]) == 0
    out = tmp_path / "render" / Q
    assert sorted(p.name for p in out.iterdir()) == sorted([f"{Q}.json", f"{Q}-root.c", f"{Q}-rt.c"])
    assert (out / f"{Q}-rt.c").read_text() == golden(Q)[1]


def test_make_test_and_the_robot_suites_boot_no_board_that_cannot_run_here():
    """`make test` runs the Robot suites on the boards whose board file says tests.make_test, with
    the budgets of that file: none of them may be a board whose hypervisor refuses to run here (the
    Jailhouse boards), which have no tests section at all."""
    from rtdroid import boardtests
    makefile = (paths.repo_root() / "Makefile").read_text()
    assert re.search(r"^TEST_BOARDS \?= \$\(shell \$\(PY\) -m rtdroid.boardtests boards\)$", makefile, re.M)
    boards = boardtests.make_test_boards()
    assert boards
    for name in boards:
        b = bc.load_board(name)
        assert get(b.hypervisor).cannot_run_here(b) is None, name
        assert boardtests.robot_variables(b)["BOARD"] == name
    for name in BOARDS:
        assert "tests" not in bc.load_board(name).data


def test_the_cli_refuses_board_up_in_one_line(tmp_path):
    from rtdroid_testutil import rtdroid_cmd
    env = dict(__import__("os").environ, RTDROID_RUN_DIR=str(tmp_path / "run"))
    r = subprocess.run(rtdroid_cmd("board", "up", "--board", Q), capture_output=True, text=True, env=env)
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "Jailhouse cannot run on this machine" in r.stderr and "Traceback" not in r.stderr
