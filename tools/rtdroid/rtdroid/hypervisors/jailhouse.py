"""The `jailhouse` hypervisor: Jailhouse configurations for real arm64 boards, rendered and checked
here, never run here.

From a board file's `jailhouse:` block (the target's physical layout), its cells and its region,
this module renders the two configuration C sources Jailhouse compiles into `.cell` files:

- the root cell, `struct jailhouse_system`: hypervisor memory, debug console, GIC, the virtual PCI
  host and the root cell itself (the Android cell), which owns every CPU and all RAM until the RT
  cell is created;
- the RT cell, `struct jailhouse_cell_desc`: its CPUs, RAM, Jailhouse's linux-loader window, its
  UART, its interrupts and the communication region.

Both carry one ivshmem-v2 device whose read/write section is the bridge's region
(bridge/docs/region-spec.md, "On Jailhouse": protocol type 0x5843, RT cell ID 0, root cell ID 1).
Templates and golden files: hypervisor-cells/jailhouse/. The layout comes from Jailhouse's
include/jailhouse/cell-config.h (revision 14) and its configs/arm64/ boards.

Jailhouse runs under the root Linux of its target machine, built from its source tree for that
machine's kernel; this x86_64 machine is not that and has no Jailhouse build (no package registry
ships one), so `board up` refuses before anything starts.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from xcc.region import ANDROID_PEER, IVSHMEM_PROTOCOL, RT_PEER

from .. import paths
from ..board import MIB, memory_overlaps
from ..errors import BoardError
from .base import Hypervisor, Launch, Problem

PAGE_BYTES = 0x1000
STATE_TABLE_BYTES = PAGE_BYTES         # the ivshmem-v2 device's own state table: one page
LOADER_BYTES = 0x10000                 # Jailhouse's linux-loader and its parameters, at cell address 0
COMM_REGION_ADDRESS = 0x80000000       # where the RT cell sees Jailhouse's communication region
PROTO_CUSTOM = 0x4000                  # JAILHOUSE_SHMEM_PROTO_CUSTOM: user-defined 0x4000..0x7fff
IVSHMEM_PEERS = 2
CELL_NAME_MAXLEN = 31                  # JAILHOUSE_CELL_NAME_MAXLEN
FIRST_SPI = 32
PINS_PER_IRQCHIP = 128                 # one struct jailhouse_irqchip: 4 x 32 pins

# Keys of a qemu board's RT cell that mean nothing on a Jailhouse cell.
_VM_KEYS = ("accel", "cpu_model", "vcpus", "boot", "clock")
_UART_TYPES = {"pl011": "PL011", "8250": "8250"}

REFUSAL = ("Jailhouse cannot run on this machine: it is not a Jailhouse host (neither the board's arm64 "
           "hardware nor a Jailhouse build; no package registry ships Jailhouse). "
           "`rtdroid board render --board {board} --write` writes its cell configurations; "
           "hypervisor-cells/jailhouse/README.md gives the commands for a Jailhouse host")


@dataclass(frozen=True)
class Mem:
    """One struct jailhouse_memory; `where` names its origin (a board-file field) for problems."""

    where: str
    phys: int | None                   # None: the communication region (no physical memory)
    virt: int
    size: int
    flags: tuple[str, ...]             # JAILHOUSE_MEM_<flag>
    comment: str = ""
    device: bool = False               # a device window may be sub-page (JAILHOUSE_MEMORY_IS_SUBPAGE)

    @property
    def ram(self) -> bool:
        """RAM of this cell alone (the RT cell's is taken from the root cell at `cell create`)."""
        return self.size > 0 and self.phys is not None and "EXECUTE" in self.flags and \
            "ROOTSHARED" not in self.flags


@dataclass
class Cell:
    """What the consistency rules need of one rendered cell (built from a board, or parsed)."""

    name: str
    cpus: set[int]
    mems: list[Mem]
    irqs: set[int]                     # INTIDs the cell's irqchips give it
    vpci_irq: int                      # INTID of its ivshmem device's INTx
    shmem_regions_start: int = 0
    shmem_dev_id: int = 0
    shmem_peers: int = IVSHMEM_PEERS
    shmem_protocol: int = IVSHMEM_PROTOCOL


# ------------------------------------------------------------------ board -> cells

def cell_name(board_name: str, cell: dict) -> str:
    return f"{board_name}-{cell['name']}"


def _ivshmem(data: dict, rt: bool) -> list[Mem]:
    """State table, read/write section (the region), the two (empty) output sections."""
    jh, region = data["jailhouse"], data["regions"][0]
    base = jh["region_address"]
    shared = ("ROOTSHARED",) if rt else ()
    empty = lambda peer: Mem("(none)", 0, 0, 0, (), f"ivshmem output section of peer {peer}: empty")
    return [
        Mem("jailhouse.region_address", base - STATE_TABLE_BYTES, base - STATE_TABLE_BYTES,
            STATE_TABLE_BYTES, ("READ",) + shared, "ivshmem state table"),
        Mem("jailhouse.region_address", base, base, region["size_bytes"], ("READ", "WRITE") + shared,
            f"ivshmem read/write section: region {region['name']} (bridge/docs/region-spec.md)"),
        empty(RT_PEER), empty(ANDROID_PEER),
    ]


def _uart_mem(where: str, uart: dict, shared: bool) -> Mem:
    flags = ("READ", "WRITE", "IO")
    if uart["type"] == "8250":
        flags += ("IO_8", "IO_32")     # the mini UART takes byte and word accesses
    return Mem(where, uart["base"], uart["base"], uart["size"], flags + (("ROOTSHARED",) if shared else ()),
               f"UART ({uart['type']})", device=True)


def root_cell(data: dict) -> Cell:
    jh = data["jailhouse"]
    mems = _ivshmem(data, rt=False)
    mems += [Mem(f"jailhouse.root_mmio[{i}]", w["base"], w["base"], w["size"], ("READ", "WRITE", "IO"),
                 w.get("name", "MMIO")) for i, w in enumerate(jh["root_mmio"])]
    mems += [Mem(f"jailhouse.root_ram[{i}]", w["base"], w["base"], w["size"], ("READ", "WRITE", "EXECUTE"),
                 w.get("name", "RAM")) for i, w in enumerate(jh["root_ram"])]
    android = next(c for c in data["cells"] if c["role"] == "android")
    return Cell(cell_name(data["board"], android), set(data["cpus"]), mems,
                set(range(FIRST_SPI, jh["gic"]["irqs"])), jh["pci"]["root_irq"],
                shmem_dev_id=ANDROID_PEER)


def rt_cell(data: dict) -> Cell:
    jh, rt = data["jailhouse"], next(c for c in data["cells"] if c["role"] == "rt")
    r = jh["rt_cell"]
    mems = _ivshmem(data, rt=True) + [
        _uart_mem("jailhouse.rt_cell.uart", r["uart"], shared=True),
        Mem("jailhouse.rt_cell.loader_base", r["loader_base"], 0, LOADER_BYTES,
            ("READ", "WRITE", "EXECUTE", "LOADABLE"), "linux-loader, at cell address 0"),
        Mem("jailhouse.rt_cell.ram_base", r["ram_base"], r["ram_base"], rt["memory_mib"] * MIB,
            ("READ", "WRITE", "EXECUTE", "DMA", "LOADABLE"), "RAM"),
        Mem("(comm region)", None, COMM_REGION_ADDRESS, PAGE_BYTES, ("READ", "WRITE", "COMM_REGION"),
            "communication region"),
    ]
    irqs = {r["pci_irq"]} | ({r["uart"]["irq"]} if "irq" in r["uart"] else set())
    return Cell(cell_name(data["board"], rt), set(rt["cpus"]), mems, irqs, r["pci_irq"],
                shmem_dev_id=RT_PEER)


# ------------------------------------------------------------------ rules

def _aligned(m: Mem) -> bool:
    return all(v % PAGE_BYTES == 0 for v in (m.phys or 0, m.virt, m.size))


def _ranges(mems: list[Mem], phys: bool) -> list[tuple[str, int, int]]:
    return [(m.where, m.phys if phys else m.virt, m.size) for m in mems
            if m.size and (m.phys is not None or not phys)]


def _within(m: Mem, windows: list[Mem]) -> bool:
    return any(w.phys <= m.phys and m.phys + m.size <= w.phys + w.size for w in windows)


def consistency(data: dict, root: Cell, rt: Cell) -> list[Problem]:
    """The rules a pair of Jailhouse cells must keep, checked against the board file: on the
    cells built from the board (at board load) and on the cells parsed from the golden C sources
    (tests). Each problem names the board-file field its window comes from."""
    return (_cpu_problems(data, root, rt) + _memory_problems(data, root, rt)
            + _ivshmem_problems(data, root, rt) + _irq_problems(data, root, rt))


def _cpu_problems(data: dict, root: Cell, rt: Cell) -> list[Problem]:
    probs: list[Problem] = []
    i_rt = next(k for k, c in enumerate(data["cells"]) if c["role"] == "rt")
    i_an = next(k for k, c in enumerate(data["cells"]) if c["role"] == "android")
    board_cpus = set(data["cpus"])
    # CPU sets: the root cell starts with every CPU; `cell create` moves the RT cell's to it.
    if root.cpus != board_cpus:
        probs.append(("cpus", sorted(root.cpus), f"the root cell's CPU set must be the board's {sorted(board_cpus)}"))
    if not rt.cpus or not rt.cpus < board_cpus or rt.cpus != set(data["cells"][i_rt]["cpus"]):
        probs.append((f"cells[{i_rt}].cpus", sorted(rt.cpus),
                      f"the RT cell's CPU set must be its board cpus, a proper subset of {sorted(board_cpus)}"))
    kept = board_cpus - rt.cpus
    if kept != set(data["cells"][i_an]["cpus"]):
        probs.append((f"cells[{i_an}].cpus", data["cells"][i_an]["cpus"],
                      f"the root (android) cell keeps exactly the CPUs the RT cell does not take: {sorted(kept)}"))
    return probs


def _memory_problems(data: dict, root: Cell, rt: Cell) -> list[Problem]:
    """Page-aligned, no overlap inside a cell (physical and as the cell sees it), none with
    Jailhouse's own memory, the RT cell's RAM inside the root cell's."""
    probs: list[Problem] = []
    hv = data["jailhouse"]["hypervisor_memory"]
    hv_mem = Mem("jailhouse.hypervisor_memory", hv["base"], hv["base"], hv["size"], ())
    for m in [hv_mem] + root.mems + rt.mems:
        if m.size and not m.device and not _aligned(m):
            probs.append((m.where, hex(m.phys if m.phys is not None else m.virt),
                          f"memory [{m.phys or 0:#x} +{m.size:#x}] (virt {m.virt:#x}) must be page-aligned "
                          f"({PAGE_BYTES:#x}) in start and size"))
    seen = set()
    for cell in (root, rt):
        for phys in (True, False):
            for p in memory_overlaps(_ranges(cell.mems, phys)):
                if p[:2] not in seen:
                    seen.add(p[:2])
                    probs.append((p[0], p[1], f"{cell.name}: {'' if phys else 'cell address '}{p[2]}"))
        for m in cell.mems:
            if m.size and m.phys is not None and m.phys < hv_mem.phys + hv_mem.size and hv_mem.phys < m.phys + m.size:
                probs.append((m.where, hex(m.phys), f"{cell.name}: memory [{m.phys:#x} +{m.size:#x}] overlaps "
                              f"Jailhouse's own memory (jailhouse.hypervisor_memory)"))
    root_ram = [m for m in root.mems if m.ram]
    for m in rt.mems:
        if m.ram and not _within(m, root_ram):
            probs.append((m.where, hex(m.phys), f"the RT cell's memory [{m.phys:#x} +{m.size:#x}] must lie "
                          "inside the root cell's RAM (jailhouse.root_ram): `cell create` takes it from there"))
    return probs


def _ivshmem_problems(data: dict, root: Cell, rt: Cell) -> list[Problem]:
    """Same windows in both cells, the read/write section the bridge's region, region-spec's IDs."""
    probs: list[Problem] = []
    size = data["regions"][0]["size_bytes"]
    for cell, dev_id in ((root, ANDROID_PEER), (rt, RT_PEER)):
        shm = cell.mems[cell.shmem_regions_start:cell.shmem_regions_start + 2 + IVSHMEM_PEERS]
        rw = shm[1] if len(shm) > 1 else None
        if rw is None or rw.size != size:
            probs.append(("regions[0].size_bytes", size, f"{cell.name}: the ivshmem read/write section "
                          f"({rw.size if rw else None}) must be the bridge's region size"))
        elif size & (size - 1):
            probs.append(("regions[0].size_bytes", size, "the ivshmem read/write section must be a power of two"))
        if len(shm) < 2 + IVSHMEM_PEERS or shm[0].size != STATE_TABLE_BYTES or any(m.size for m in shm[2:]):
            probs.append(("jailhouse.region_address", data["jailhouse"]["region_address"],
                          f"{cell.name}: ivshmem regions must be a one-page state table, the region, "
                          f"{IVSHMEM_PEERS} empty output sections"))
        if (cell.shmem_dev_id, cell.shmem_peers, cell.shmem_protocol) != (dev_id, IVSHMEM_PEERS, IVSHMEM_PROTOCOL):
            probs.append(("regions[0]", data["regions"][0]["name"],
                          f"{cell.name}: ivshmem ID {cell.shmem_dev_id}, peers {cell.shmem_peers}, protocol "
                          f"{cell.shmem_protocol:#x}; region-spec.md wants ID {dev_id}, {IVSHMEM_PEERS} peers, "
                          f"protocol {IVSHMEM_PROTOCOL:#x}"))
    if [m.phys for m in root.mems[root.shmem_regions_start:][:2]] != \
            [m.phys for m in rt.mems[rt.shmem_regions_start:][:2]]:
        probs.append(("jailhouse.region_address", data["jailhouse"]["region_address"],
                      "both cells must map the same ivshmem state table and region"))
    return probs


def _irq_problems(data: dict, root: Cell, rt: Cell) -> list[Problem]:
    """The RT cell's interrupts exist on the GIC and are not the root cell's own vPCI line."""
    probs: list[Problem] = []
    irqs = data["jailhouse"]["gic"]["irqs"]
    for irq in sorted(rt.irqs | {rt.vpci_irq}):
        if not FIRST_SPI <= irq < irqs:
            probs.append(("jailhouse.rt_cell", irq, f"interrupt {irq} is not an SPI of this GIC [32, {irqs})"))
    if rt.vpci_irq not in rt.irqs:
        probs.append(("jailhouse.rt_cell.pci_irq", rt.vpci_irq, "the RT cell must own its ivshmem INTx"))
    if root.vpci_irq in rt.irqs:
        probs.append(("jailhouse.pci.root_irq", root.vpci_irq, "the root cell's vPCI INTx is taken by the RT cell"))
    if not FIRST_SPI <= root.vpci_irq < irqs:
        probs.append(("jailhouse.pci.root_irq", root.vpci_irq, f"not an SPI of this GIC [32, {irqs})"))
    return probs


def board_problems(data: dict) -> list[Problem]:
    """Rules of a Jailhouse board file that are not about the rendered cells."""
    probs: list[Problem] = []
    if "jailhouse" not in data:
        return [("jailhouse", None, "required for hypervisor jailhouse: the target's physical layout")]
    for i, c in enumerate(data["cells"]):
        if len(cell_name(data["board"], c)) > CELL_NAME_MAXLEN:
            probs.append((f"cells[{i}].name", c["name"], f"the Jailhouse cell name {cell_name(data['board'], c)!r} "
                          f"(<board>-<cell>) is longer than {CELL_NAME_MAXLEN} characters"))
        for key in _VM_KEYS:
            if c["role"] == "rt" and key in c:
                probs.append((f"cells[{i}].{key}", c[key], f"a Jailhouse cell is not an emulated VM: no {key}"))
    for k, dev in enumerate(data.get("devices", [])):
        if dev["type"] == "ivshmem-plain":
            probs.append((f"devices[{k}].type", dev["type"],
                          "on Jailhouse the region's device is the ivshmem-v2 device rendered from regions[0]"))
    if data["jailhouse"]["region_address"] < STATE_TABLE_BYTES:
        probs.append(("jailhouse.region_address", data["jailhouse"]["region_address"],
                      "the ivshmem state table takes the page below the region: it must be at least 0x1000"))
    gic = data["jailhouse"]["gic"]
    need = ("gicr_base",) if gic["version"] == 3 else ("gicc_base", "gich_base", "gicv_base")
    for key in need:
        if key not in gic:
            probs.append(("jailhouse.gic", gic["version"], f"a GICv{gic['version']} needs {key}"))
    return probs


# ------------------------------------------------------------------ C rendering

def _hex(v: int) -> str:
    return f"{v:#010x}" if v < 2 ** 32 else f"{v:#x}"


def _flags(names, prefix: str, indent: str) -> str:
    items = [f"{prefix}{n}" for n in names]
    lines, line = [], ""
    for it in items:
        cand = f"{line} | {it}" if line else it
        if line and len(indent) * 8 + len(cand) > 72:
            lines.append(line + " |")
            line = it
        else:
            line = cand
    lines.append(line)
    return f"\n{indent}\t".join(lines)


def _mem_c(m: Mem) -> str:
    t = "\t\t"
    if not m.size:
        return f"{t}/* {m.comment} */\n{t}{{ 0 }},"
    phys = f"{t}\t.phys_start = {_hex(m.phys)},\n" if m.phys is not None else ""
    return (f"{t}/* {m.comment} */ {{\n{phys}"
            f"{t}\t.virt_start = {_hex(m.virt)},\n"
            f"{t}\t.size = {_hex(m.size)},\n"
            f"{t}\t.flags = {_flags(m.flags, 'JAILHOUSE_MEM_', t + chr(9))},\n"
            f"{t}}},")


def _irqchips_c(gicd: int, irqs: set[int]) -> tuple[int, str]:
    chips = []
    for base in sorted({FIRST_SPI + (i - FIRST_SPI) // PINS_PER_IRQCHIP * PINS_PER_IRQCHIP for i in irqs}):
        words = [0, 0, 0, 0]
        for i in irqs:
            if base <= i < base + PINS_PER_IRQCHIP:
                words[(i - base) // 32] |= 1 << ((i - base) % 32)
        mine = sorted(i for i in irqs if base <= i < base + PINS_PER_IRQCHIP)
        what = (f"INTIDs {mine[0]}-{mine[-1]}" if len(mine) == mine[-1] - mine[0] + 1 and len(mine) > 2
                else "INTIDs " + ", ".join(map(str, mine)))
        chips.append(f"\t\t/* GIC, {what} */ {{\n"
                     f"\t\t\t.address = {_hex(gicd)},\n"
                     f"\t\t\t.pin_base = {base},\n"
                     f"\t\t\t.pin_bitmap = {{\n"
                     f"\t\t\t\t{', '.join(f'{w:#010x}' for w in words)},\n"
                     f"\t\t\t}},\n"
                     f"\t\t}},")
    return len(chips), "\n".join(chips)


def _cpus_c(cpus: set[int]) -> tuple[int, str]:
    words = [0] * (max(cpus) // 64 + 1)
    for c in cpus:
        words[c // 64] |= 1 << (c % 64)
    return len(words), "\n".join(f"\t\t{w:#x}, /* CPUs {', '.join(str(c) for c in sorted(cpus) if c // 64 == k)} */"
                                 for k, w in enumerate(words))


def _console_c(uart: dict, indent: str, with_size: bool) -> str:
    lines = [f".address = {_hex(uart['base'])},"]
    if with_size:
        lines.append(f".size = {uart['size']:#x},")
    lines += [f".type = JAILHOUSE_CON_TYPE_{_UART_TYPES[uart['type']]},",
              ".flags = JAILHOUSE_CON_ACCESS_MMIO | JAILHOUSE_CON_REGDIST_4,"]
    return "\n".join(indent + line for line in lines)


def _gic_c(gic: dict) -> str:
    keys = ["gicd_base"] + (["gicr_base"] if gic["version"] == 3 else ["gicc_base", "gich_base", "gicv_base"])
    lines = [f".gic_version = {gic['version']},"] + [f".{k} = {_hex(gic[k])}," for k in keys] + \
            [f".maintenance_irq = {gic['maintenance_irq']},"]
    return "\n".join("\t\t\t\t" + line for line in lines)


def _pci_c(data: dict, cell: Cell, start: int) -> str:
    region = data["regions"][0]
    return (f"\t\t/* ivshmem-v2 {data['jailhouse']['pci']['domain']:04x}:00:00.0: region {region['name']}, "
            f"bridge/docs/region-spec.md */ {{\n"
            f"\t\t\t.type = JAILHOUSE_PCI_TYPE_IVSHMEM,\n"
            f"\t\t\t.domain = {data['jailhouse']['pci']['domain']},\n"
            f"\t\t\t.bdf = 0 << 3,\n"
            f"\t\t\t.bar_mask = JAILHOUSE_IVSHMEM_BAR_MASK_INTX,\n"
            f"\t\t\t.shmem_regions_start = {start},\n"
            f"\t\t\t.shmem_dev_id = {cell.shmem_dev_id},\n"
            f"\t\t\t.shmem_peers = {IVSHMEM_PEERS},\n"
            f"\t\t\t/* protocol {IVSHMEM_PROTOCOL:#06x}: the RTDroid cross-context region */\n"
            f"\t\t\t.shmem_protocol = JAILHOUSE_SHMEM_PROTO_CUSTOM + {IVSHMEM_PROTOCOL - PROTO_CUSTOM:#06x},\n"
            f"\t\t}},")


def _fill(template: str, values: dict[str, str]) -> str:
    return re.sub(r"@([A-Z_]+)@", lambda m: values[m.group(1)], template)


def _template(name: str) -> str:
    return (paths.hypervisor_cells_dir() / "jailhouse" / name).read_text(encoding="utf-8")


def _common(data: dict, cell: Cell) -> dict[str, str]:
    cpu_words, cpus = _cpus_c(cell.cpus)
    nchips, chips = _irqchips_c(data["jailhouse"]["gic"]["gicd_base"], cell.irqs)
    return {"BOARD": data["board"], "TARGET": data["jailhouse"]["target"], "NAME": cell.name,
            "CPU_WORDS": str(cpu_words), "CPUS": cpus,
            "NUM_MEM": str(len(cell.mems)), "MEM_REGIONS": "\n".join(_mem_c(m) for m in cell.mems),
            "NUM_IRQCHIPS": str(nchips), "IRQCHIPS": chips,
            "VPCI_IRQ_BASE": f"{cell.vpci_irq} - 32", "PCI_DEVICE": _pci_c(data, cell, cell.shmem_regions_start)}


def root_config_c(data: dict) -> str:
    jh = data["jailhouse"]
    values = _common(data, root_cell(data))
    values.update(HV_BASE=_hex(jh["hypervisor_memory"]["base"]), HV_SIZE=_hex(jh["hypervisor_memory"]["size"]),
                  DEBUG_CONSOLE=_console_c(jh["debug_console"], "\t\t\t", with_size=True),
                  PCI_MMCONFIG=_hex(jh["pci"]["mmconfig_base"]), PCI_DOMAIN=str(jh["pci"]["domain"]),
                  GIC=_gic_c(jh["gic"]))
    return _fill(_template("root-cell.c.in"), values)


def rt_config_c(data: dict) -> str:
    values = _common(data, rt_cell(data))
    values["CONSOLE"] = _console_c(data["jailhouse"]["rt_cell"]["uart"], "\t\t\t", with_size=False)
    return _fill(_template("rt-cell.c.in"), values)


def file_names(board_name: str) -> tuple[str, str]:
    """The rendered sources: <board>-root.c and <board>-rt.c (Jailhouse builds <name>.cell)."""
    return f"{board_name}-root.c", f"{board_name}-rt.c"


class Jailhouse(Hypervisor):
    name = "jailhouse"
    restartable = False

    def check(self, data: dict) -> list[Problem]:
        probs = board_problems(data)
        if probs:
            return probs
        return consistency(data, root_cell(data), rt_cell(data))

    def rt_kernel_release(self, board) -> str | None:
        return None  # the kernel the real board's image carries: only the board can say

    def render_rt(self, board) -> dict:
        """The RT cell as the root cell starts it on a Jailhouse host: `jailhouse cell linux`
        creates the cell from <board>-rt.cell, loads kernel, device tree and initramfs, starts it."""
        _, rt_c = file_names(board.name)
        argv = ["jailhouse", "cell", "linux", "${JAILHOUSE_CELLS}/" + rt_c[:-2] + ".cell", "${RT_KERNEL}",
                "--dtb", "${RT_DTB}", "--initrd", "${RT_INITRD}",
                "--cmdline", board.data["tuning"]["rt_cmdline"]]
        return {"role": "rt", "argv": argv, "ready_line": "RTCELL READY", "log": "rt.log"}

    def render_extra(self, board) -> dict:
        root_c, rt_c = file_names(board.name)
        root, rt = root_cell(board.data), rt_cell(board.data)
        return {"jailhouse": {
            "target": board.data["jailhouse"]["target"],
            "root_cell": {"name": root.name, "config": root_c, "cpus": sorted(root.cpus)},
            "rt_cell": {"name": rt.name, "config": rt_c, "cpus": sorted(rt.cpus)},
            "ivshmem": {"protocol": IVSHMEM_PROTOCOL, "region_address": board.data["jailhouse"]["region_address"],
                        "size_bytes": board.region["size_bytes"], "rt_id": RT_PEER, "root_id": ANDROID_PEER},
            "runs_here": False,
        }}

    def golden_files(self, board) -> dict[str, str]:
        root_c, rt_c = file_names(board.name)
        return {root_c: root_config_c(board.data), rt_c: rt_config_c(board.data)}

    def cannot_run_here(self, board) -> str | None:
        return REFUSAL.format(board=board.name)

    # Never reached through `board up` (cannot_run_here refuses first); kept closed all the same.
    def prepare(self, board, start_rt: bool, progress) -> dict[str, str]:
        raise BoardError(self.cannot_run_here(board))

    def start(self, launch: Launch):
        raise BoardError(self.cannot_run_here(launch.board))
