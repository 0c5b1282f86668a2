"""The `xen` hypervisor (qemu-arm64-xen, qemu-arm64-xen-smp boards): QEMU `virt` (arm64, GICv3,
virtualization=on) boots Xen 4.17 dom0less, built by tools/fetch-xen.sh under build/xen/. Xen
reads its domUs from /chosen of the device tree: QEMU's own tree for the same machine options
(dumpdtb) plus the fragment rendered from hypervisor-cells/xen/board.dtsi.in. The RT cell is the
first domU, alone on its CPU under the null scheduler, booting Debian's PREEMPT_RT arm64 kernel
with the agent in its initramfs; every `xen.domains` entry is one more domU borrowing the region
(busybox only).

The machine has two variants, chosen by the RT cell's clock (`machine()`): in virtual time a
one-CPU machine under QEMU icount (xen_icount.py); in host time an SMP machine split by Xen's
boot-time cpupools, the only one that holds further domUs (xen_pooled.py).

The region is Xen static shared memory, owned by the RT cell. Its machine memory is the board's
region file itself: QEMU's second memory bank (NUMA node 1, right after machine RAM) is a
memory-backend-file on that /dev/shm file, so the Android cell on the host maps the very bytes
the domUs see, at offset 0, as on the other boards. Inside a domU the region is reached through
/dev/mem and is device memory (bridge/docs/region-spec.md says what that allows).

The boot modules (each domU's kernel and initramfs) are put in RAM by QEMU's generic loader at
fixed slots from MODULES_BASE, so the rendered tree depends on the board file alone; only the
module sizes are filled in at `up` (${XEN_<DOMAIN>_KERNEL_BYTES}, ${XEN_<DOMAIN>_INITRD_BYTES}).

With `boot: snapshot` (the virtual-time machine) the whole machine, Xen and the RT cell's domU,
is restored from a boot snapshot (snapshot.py) taken once when the agent awaits the region:
QEMU migration of the machine's RAM, CPU (EL2 included), GICv3, PL011 and the icount clock, over
the QMP socket. The region is migrated as the zero pages it was when the snapshot was taken, so it
is formatted only after the restore, as on the qemu board. The SMP machine boots cold.

Templates and golden rendering: hypervisor-cells/xen/ (golden/<board>.json with the QEMU command,
golden/<board>.dtsi, golden/<board>.<domain>.init).
"""
from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path
from typing import Protocol

from .. import image, paths, probes
from ..digest import file_key
from ..board import MIB, Board
from ..errors import BoardError
from ..render import cpu_list
from . import xen_icount, xen_pooled
from .base import Launch, Problem
from .guest import STATE_IMAGE, STATE_VALUE, Guest, blank_state_image, deployed_state
from .qemu import GUEST_ROOT, INPUT_MODULES, guest_agent_values

RAM_BASE = 0x40000000            # QEMU virt: RAM starts at 1 GiB
MODULES_BASE = 0x50000000        # above Xen (loaded near RAM_BASE) and QEMU's DTB (RAM_BASE + 128 MiB)
KERNEL_SLOT = 64 * MIB
INITRD_SLOT = 192 * MIB
PAGE = 4096
# domU physical address space (xen/include/public/arch-arm.h): the region must not overlap guest
# RAM, the vGIC, the vPL011, the vPCI windows or the grant table. The hole between the end of
# GUEST_VPCI_MEM (0x33000000) and GUEST_GNTTAB (0x38000000) is free.
GUEST_HOLE = (0x33000000, 0x38000000)
SHM_ID = "rtdroid-xcc"
# The RT cell's state bank, where its agent keeps the version record across `board down`/`up`
# (issue: an older bundle refused after a restart). Dom0less domUs have no block device (no dom0
# backend), so it is memory: QEMU's third memory bank (NUMA node 2, after the region) is a
# memory-backend-file on ${RUN_DIR}/rt-state.img, and Xen gives it to the RT cell alone as static
# shared memory (owner, no borrower). The agent reads it through /dev/mem (--state-device
# /dev/mem@ADDRESS+BYTES, rt-cell/agent's PhysicalMemoryStore: BlockDeviceStore's layout, two
# checksummed copies). A QEMU bank is whole MiB; the record uses its first 128 KiB.
STATE_BANK = STATE_IMAGE  # in the run directory, or the one a lab deployed (guest.STATE_IMAGE)
STATE_BANK_MIB = 2
STATE_SHM_ID = "rtdroid-state"
# What the machine leaves in the run directory; MACHINE_RUN_FILES are removed between the boot
# snapshot's cold boot and the restore (the device tree stays: the restore loads the same one).
MACHINE_RUN_FILES = ("console.log", "console.sock", "qmp.sock")
RUN_FILES = MACHINE_RUN_FILES + ("board.dts", "board.dtb", "rt-snapshot.log")


def cells_dir() -> Path:
    return paths.hypervisor_cells_dir() / "xen"


def build_dir() -> Path:
    return paths.build_dir() / "xen"


# ------------------------------------------------------------------ the domains

class Machine(Protocol):
    """What differs between the emulated machines (xen_icount.py, xen_pooled.py)."""

    def check(self, data: dict) -> list[Problem]: ...            # its board-file rules
    def cpu_count(self, board: Board) -> int: ...                 # QEMU -smp
    def accel_args(self, board: Board) -> list[str]: ...          # QEMU -accel (and -icount)
    def xen_bootargs(self) -> str: ...                            # added to Xen's command line
    def cpupools(self, board: Board) -> str: ...                  # /chosen cpupool nodes, or ""
    def pool_property(self, kind: str) -> str: ...                # a domU's cpupool line
    def clock(self, board: Board) -> dict: ...                    # Hypervisor.clock
    def describe(self, board: Board) -> str: ...                  # for the progress line


def machine(data: dict) -> Machine:
    """The emulated machine's variant, from the RT cell's clock: virtual time needs a one-CPU
    machine (xen_icount.py); in host time Xen's cpupools split an SMP machine (xen_pooled.py)."""
    rt = next(c for c in data["cells"] if c["role"] == "rt")
    return xen_icount.Machine() if rt.get("clock", {}).get("kind") == "virtual" else xen_pooled.Machine()


def domains(board: Board) -> list[dict]:
    """The domUs in creation order (Xen numbers them d1, d2, ...): the RT cell, then xen.domains."""
    rt = board.rt
    out = [{"name": rt["name"], "kind": "rt", "cpus": rt["cpus"], "vcpus": rt.get("vcpus", 1),
            "memory_mib": rt["memory_mib"], "shm_role": "owner"}]
    for d in board.data["xen"].get("domains", []):
        out.append({"name": d["name"], "kind": "borrower", "cpus": d["cpus"], "vcpus": 1,
                    "memory_mib": d["memory_mib"], "shm_role": "borrower"})
    for i, d in enumerate(out):
        d["node"] = f"domU-{d['name']}"
        d["var"] = "XEN_" + re.sub(r"[^A-Z0-9]", "_", d["name"].upper())
        d["kernel_address"] = MODULES_BASE + i * (KERNEL_SLOT + INITRD_SLOT)
        d["initrd_address"] = d["kernel_address"] + KERNEL_SLOT
    return out


def region_host_address(data: dict) -> int:
    """The region's machine physical address: QEMU maps NUMA node 1 (the region file) right
    after node 0 (machine RAM)."""
    return RAM_BASE + data["xen"]["machine_ram_mib"] * MIB


def state_host_address(data: dict) -> int:
    """The state bank's machine physical address: NUMA node 2, right after the region."""
    return region_host_address(data) + data["regions"][0]["size_bytes"]


def state_guest_address(data: dict) -> int:
    """The state bank in the RT cell's physical address space: right after the region."""
    return data["xen"]["region_guest_address"] + data["regions"][0]["size_bytes"]


def check(data: dict) -> list[Problem]:
    """Rules of a xen board beyond the schema: the layout must be one Xen accepts, and the
    machine's own (its CPUs, its clock: xen_pooled.py, xen_icount.py)."""
    probs: list[Problem] = []
    x = data.get("xen")
    if x is None:
        return [("xen", None, "a xen board needs a xen: block (machine RAM, the region's domU address)")]
    rt_i, rt = next((i, c) for i, c in enumerate(data["cells"]) if c["role"] == "rt")
    if "kernel" not in rt:
        probs.append((f"cells[{rt_i}].kernel", None, "a xen RT cell boots a kernel: set kernel"))
    for key in ("accel", "cpu_model"):
        if key in rt:
            probs.append((f"cells[{rt_i}].{key}", rt[key], f"a xen board sets the emulated CPU in xen: ({key} is qemu's)"))
    for k, d in enumerate(x.get("domains", [])):
        if d["name"] in [c["name"] for c in data["cells"]]:
            probs.append((f"xen.domains[{k}].name", d["name"], "is already a cell's name"))
    size = data["regions"][0]["size_bytes"]
    if size % MIB or size & (size - 1):
        probs.append(("regions[0].size_bytes", size,
                      "the region is a QEMU memory bank and Xen static shared memory: a power of two >= 1 MiB"))
    guest = x["region_guest_address"]
    if guest % PAGE or not (GUEST_HOLE[0] <= guest and guest + size + STATE_BANK_MIB * MIB <= GUEST_HOLE[1]):
        probs.append(("xen.region_guest_address", hex(guest),
                      f"must be page aligned within the free domU window [{GUEST_HOLE[0]:#x}, {GUEST_HOLE[1]:#x}), "
                      f"with the RT cell's {STATE_BANK_MIB} MiB state bank after the region"))
    ram_end = region_host_address(data)
    mod_end = MODULES_BASE + (1 + len(x.get("domains", []))) * (KERNEL_SLOT + INITRD_SLOT)
    domu_mib = rt["memory_mib"] + sum(d["memory_mib"] for d in x.get("domains", []))
    if (ram_end - mod_end) // MIB < domu_mib + 64:
        probs.append(("xen.machine_ram_mib", x["machine_ram_mib"],
                      f"too small for the domUs ({domu_mib} MiB), Xen and the boot modules (up to {mod_end:#x})"))
    if "console=ttyAMA0" not in data["tuning"]["rt_cmdline"].split():
        probs.append(("tuning.rt_cmdline", data["tuning"]["rt_cmdline"],
                      "must contain console=ttyAMA0: the domU's vPL011 carries readiness and logs"))
    return probs + machine(data).check(data)


# ------------------------------------------------------------------ rendering

def _fill(template: str, values: dict[str, str]) -> str:
    return re.sub(r"@([A-Z_]+)@", lambda m: values[m.group(1)], template)


def _resolve(text: str, values: dict[str, str]) -> str:
    return re.sub(r"\$\{([A-Z0-9_]+)\}", lambda m: values[m.group(1)], text)


def xen_bootargs(board: Board) -> str:
    return " ".join(filter(None, ["console=dtuart dtuart=/pl011@9000000 bootscrub=0",
                                  machine(board.data).xen_bootargs()]))


# The RT cell's state bank in its domU node (see STATE_BANK).
STATE_SHM = """            shm@@GUEST@ {
                compatible = "xen,domain-shared-memory-v1";
                role = "owner";
                xen,shm-id = "@ID@";
                /* the RT cell's state bank (its version record): machine address, domU address, size */
                xen,shared-mem = <0x0 0x@HOST@ 0x0 0x@GUEST@ 0x0 @BYTES@>;
            };
"""


def render_dtsi(board: Board) -> str:
    """The /chosen fragment: cpupools and domUs; module sizes stay ${..._BYTES} placeholders."""
    x = board.data["xen"]
    m = machine(board.data)
    size = board.region["size_bytes"]
    dom_t = (cells_dir() / "domain.dtsi.in").read_text(encoding="utf-8")
    parts = []
    for d in domains(board):
        bootargs = board.data["tuning"]["rt_cmdline"] if d["kind"] == "rt" else "console=ttyAMA0 quiet panic=-1"
        parts.append(_fill(dom_t, {
            "COMMENT": (f"the RT cell '{d['name']}': owns the region" if d["kind"] == "rt"
                        else f"domain '{d['name']}': borrows the region"),
            "NODE": d["node"], "MEMORY_KIB": hex(d["memory_mib"] * 1024), "VCPUS": str(d["vcpus"]),
            "POOL_PROPERTY": m.pool_property(d["kind"]),
            "SHM_ROLE": d["shm_role"], "SHM_ID": SHM_ID,
            "HOST_ADDRESS": f"{region_host_address(board.data):x}", "GUEST_ADDRESS": f"{x['region_guest_address']:x}",
            "REGION_BYTES": hex(size), "BOOTARGS": bootargs,
            "STATE_SHM": _fill(STATE_SHM, {"ID": STATE_SHM_ID, "HOST": f"{state_host_address(board.data):x}",
                                           "GUEST": f"{state_guest_address(board.data):x}",
                                           "BYTES": hex(STATE_BANK_MIB * MIB)}) if d["kind"] == "rt" else "",
            "KERNEL_ADDRESS": f"{d['kernel_address']:x}", "KERNEL_BYTES": f"${{{d['var']}_KERNEL_BYTES}}",
            "INITRD_ADDRESS": f"{d['initrd_address']:x}", "INITRD_BYTES": f"${{{d['var']}_INITRD_BYTES}}"}))
    return _fill((cells_dir() / "board.dtsi.in").read_text(encoding="utf-8"), {
        "BOARD": board.name, "XEN_BOOTARGS": xen_bootargs(board), "CPUPOOLS": m.cpupools(board),
        "DOMAINS": "".join(parts)})


def machine_args(board: Board) -> list[str]:
    """The QEMU machine, the same for dumpdtb and for the boot: machine RAM (anonymous) is NUMA
    node 0, the region file node 1, so the region's machine address follows RAM; the RT cell's
    state bank (a file in the run directory) node 2, after the region."""
    x = board.data["xen"]
    m = machine(board.data)
    ram, region_mib = x["machine_ram_mib"], board.region["size_bytes"] // MIB
    last_cpu = m.cpu_count(board) - 1
    return ["qemu-system-aarch64", "-name", f"rtdroid-{board.name}",
            *m.accel_args(board), "-cpu", x.get("cpu_model", "cortex-a57"),
            "-smp", str(m.cpu_count(board)), "-m", f"{ram + region_mib + STATE_BANK_MIB}M",
            "-object", f"memory-backend-ram,id=ram,size={ram}M",
            "-object", f"memory-backend-file,id=xcc,size={region_mib}M,mem-path={board.rendered_region_path},share=on",
            "-object", f"memory-backend-file,id=state,size={STATE_BANK_MIB}M,mem-path=${{{STATE_VALUE}}},share=on",
            "-numa", f"node,nodeid=0,cpus=0-{last_cpu},memdev=ram", "-numa", "node,nodeid=1,memdev=xcc",
            "-numa", "node,nodeid=2,memdev=state",
            "-machine", "virt,virtualization=on,gic-version=3",
            "-nodefaults", "-no-user-config", "-display", "none", "-monitor", "none", "-no-reboot"]


def render_argv(board: Board) -> list[str]:
    """The boot command; ${XEN}, ${RUN_DIR} and the modules' ${XEN_<DOMAIN>_KERNEL|INITRD} are resolved at up."""
    # The whole machine runs on the host CPUs the Android cell does not use, as the qemu board's VM
    # does: the emulated CPUs' threads must not steal the Android cell's CPU.
    host_cpus = sorted(set(board.data["cpus"]) - set(board.android["cpus"]))
    argv = ["taskset", "-c", cpu_list(host_cpus)] + machine_args(board) + [
        "-dtb", "${RUN_DIR}/board.dtb", "-kernel", "${XEN}",
        "-chardev", "socket,id=console,path=${RUN_DIR}/console.sock,server=on,wait=off,logfile=${RUN_DIR}/console.log",
        "-serial", "chardev:console",
        # QMP: the board tooling stops, snapshots and restores the machine through it.
        "-qmp", "unix:${RUN_DIR}/qmp.sock,server=on,wait=off"]
    for d in domains(board):
        for what in ("kernel", "initrd"):
            argv += ["-device", f"loader,file=${{{d['var']}_{what.upper()}}},addr={d[what + '_address']:#x},force-raw=on"]
    return argv


def init_script(board: Board, domain: dict) -> str:
    x = board.data["xen"]
    common = {"BOARD": board.name, "GUEST_ADDRESS": f"{x['region_guest_address']:#x}",
              "REGION_BYTES": str(board.region["size_bytes"]), "NAME": domain["name"]}
    if domain["kind"] == "borrower":
        return _fill((cells_dir() / "init-borrower.sh.in").read_text(encoding="utf-8"), common)
    values = guest_agent_values(board, INPUT_MODULES)
    values["AGENT_ARGS"] += f" --state-device /dev/mem@{state_guest_address(board.data):#x}+{STATE_BANK_MIB * MIB}"
    return _fill((cells_dir() / "init-rt.sh.in").read_text(encoding="utf-8"), {**common, **values})


# ------------------------------------------------------------------ images

def payload() -> dict[str, Path]:
    """What tools/fetch-xen.sh leaves under build/xen/; BoardError naming the command if absent."""
    b = build_dir()
    kernels = sorted((b / "arm64" / "kernel" / "boot").glob("vmlinuz-*"))
    p = {"xen": b / "xen", "busybox": b / "arm64" / "busybox" / "bin" / "busybox",
         "glibc": b / "arm64" / "libc" / "lib" / "aarch64-linux-gnu", "jre": b / "jre",
         "kernel": kernels[0] if kernels else b / "arm64" / "kernel" / "boot" / "vmlinuz-*",
         "cds": b / "jre" / "lib" / "server" / "classes_nocoops.jsa",
         "spawn": b / "jre" / "lib" / "jspawnhelper"}  # the JDK starts the agent's probes through it
    missing = [str(v) for v in p.values() if not v.exists()]
    if missing:
        raise BoardError(f"the Xen board's payload is not built ({', '.join(missing)} missing): run "
                         f"tools/fetch-xen.sh (downloads Debian's Xen source, arm64 kernel and Java runtime, "
                         f"rebuilds Xen: a few minutes, once)")
    return p


def fetch_payload(progress) -> dict[str, Path]:
    """The payload, running tools/fetch-xen.sh first when some of it is missing (its lines are
    shown as progress notes); BoardError with the script's last lines if it fails."""
    try:
        return payload()
    except BoardError as missing:
        progress.note(f"{missing}: running it now")
    script = paths.repo_root() / "tools" / "fetch-xen.sh"
    lines: list[str] = []
    try:
        with subprocess.Popen(["sh", str(script)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace") as p:
            for line in p.stdout:
                lines.append(line.rstrip())
                if line.startswith("fetch-xen:"):
                    progress.note(line.rstrip())
    except OSError as e:
        raise BoardError(f"cannot run {script}: {e.strerror}") from None
    if p.returncode:
        last = "\n".join(lines[-15:])
        raise BoardError(f"{script} failed (exit status {p.returncode}); its last lines:\n{last}")
    return payload()


def _write_if_changed(out: Path, data: bytes) -> bool:
    if out.is_file() and hashlib.sha256(out.read_bytes()).digest() == hashlib.sha256(data).digest():
        return False
    tmp = out.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.replace(out)
    return True


def build_initrd(board: Board, domain: dict, pay: dict[str, Path], agent_lib: Path, deploy_pub: Path) -> Path:
    """build/xen/<board>-<domain>.cpio: busybox, /init and (RT cell) the Java runtime, glibc,
    the agent's jars and the deploy key under /rt, and the input path's modules (evdev, uinput)."""
    out = build_dir() / f"{board.name}-{domain['name']}.cpio"
    init = init_script(board, domain).encode()
    # Its inputs' stamps: rebuilding the ~75 MiB image only to find it unchanged costs a second
    # of every `board up`.
    key = {"init": hashlib.sha256(init).hexdigest(), "busybox": file_key(pay["busybox"])}
    if domain["kind"] == "rt":
        # The SensorManager's kernel path (evdev, uinput), from the kernel package the domU boots.
        version = pay["kernel"].name.removeprefix("vmlinuz-")
        try:
            modules = image.kernel_modules(pay["kernel"].parent.parent / "lib" / "modules" / version, INPUT_MODULES)
        except image.ImageError as e:
            raise BoardError(str(e)) from None
        key.update(jre=image._tree_key(pay["jre"]), glibc=image._tree_key(pay["glibc"]),
                   jars=[file_key(j) for j in sorted(agent_lib.glob("*.jar"))],
                   deploy_pub=file_key(deploy_pub), modules=[file_key(p) for p in modules.values()],
                   probes=[file_key(p) for p in probes.files("aarch64")])
    stamp = out.with_suffix(".stamp")
    if out.is_file() and image._stamp_ok(stamp, key):
        return out
    c = image._Cpio()
    for d in ("bin", "sbin", "dev", "etc", "proc", "sys", "tmp", "lib"):
        c.dir(d)
    c.chardev("dev/console", 5, 1)
    c.chardev("dev/null", 1, 3, 0o666)
    c.file("bin/busybox", pay["busybox"].read_bytes(), 0o755)
    for applet in image.BUSYBOX_APPLETS + ["devmem"]:
        c.symlink(f"bin/{applet}", "busybox")
    c.file("init", init, 0o755)
    if domain["kind"] == "rt":
        root = GUEST_ROOT.lstrip("/")
        for d in (root, f"{root}/jdk", f"{root}/glibc", f"{root}/lib", f"{root}/keys"):
            c.dir(d)
        image._add_tree(c, pay["jre"], f"{root}/jdk")
        image._add_tree(c, pay["glibc"], f"{root}/glibc")
        c.symlink("lib/ld-linux-aarch64.so.1", f"{GUEST_ROOT}/glibc/ld-linux-aarch64.so.1")
        for j in sorted(agent_lib.glob("*.jar")):
            c.file(f"{root}/lib/{j.name}", j.read_bytes())
        c.file(f"{root}/keys/deploy.pub", deploy_pub.read_bytes())
        c.dir(f"{root}/{probes.GUEST_DIR}")  # the characterisation probes, built for arm64
        for p in probes.files("aarch64"):
            c.file(f"{root}/{probes.GUEST_DIR}/{p.name}", p.read_bytes(), 0o755)
        image.add_modules(c, version, modules)
    _write_if_changed(out, c.finish())
    stamp.write_text(json.dumps(key))
    return out


def build_dtb(board: Board, run: Path, values: dict[str, str]) -> Path:
    """QEMU's device tree for the machine (dumpdtb) + the rendered /chosen fragment -> board.dtb."""
    run.mkdir(parents=True, exist_ok=True)
    virt = run / "virt.dtb"
    argv = [_resolve(a, values) for a in machine_args(board)]
    i = argv.index("-machine") + 1
    argv[i] += f",dumpdtb={virt}"
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if r.returncode or not virt.is_file():
        raise BoardError(f"QEMU could not dump the machine's device tree: {r.stderr.strip()}")
    dts = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", str(virt)], check=True,
                         capture_output=True, text=True).stdout
    virt.unlink()
    (run / "board.dts").write_text(dts + "\n" + _resolve(render_dtsi(board), values), encoding="utf-8")
    out = run / "board.dtb"
    r = subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", str(out), str(run / "board.dts")],
                       capture_output=True, text=True)
    if r.returncode:
        raise BoardError(f"dtc refused {run / 'board.dts'}: {r.stderr.strip()}")
    return out


# ------------------------------------------------------------------ the module

class Xen(Guest):
    name = "xen"
    run_files = RUN_FILES
    restartable = False              # a dom0less domU is created by Xen at boot only
    prepare_stages = 1

    console_line_prefix = r"\(XEN\) DOM\d+: "  # a domU's line on Xen's console when the focus is elsewhere
    # Xen done booting and its dom0less domUs created, before the RT cell's kernel says anything.
    boot_milestones = (("hypervisor_up", r"\(XEN\) Freed \d+kB init memory"), *Guest.boot_milestones)

    def check(self, data: dict) -> list[Problem]:
        return check(data)

    def rt_kernel_release(self, board: Board) -> str | None:
        # the arm64 PREEMPT_RT kernel tools/fetch-xen.sh unpacked (payload()'s choice)
        kernels = sorted((build_dir() / "arm64" / "kernel" / "boot").glob("vmlinuz-*"))
        return kernels[0].name.removeprefix("vmlinuz-") if kernels else None

    def clock(self, board: Board) -> dict:
        return machine(board.data).clock(board)

    def render_rt(self, board: Board) -> dict:
        return {"role": "rt", "argv": render_argv(board), "ready_line": "RTCELL READY", "log": "rt.log",
                "console": "console.log"}

    def render_extra(self, board: Board) -> dict:
        x = board.data["xen"]
        return {"clock": self.clock(board), "xen": {
            "device_tree": f"QEMU's dumpdtb of the machine + hypervisor-cells/xen/golden/{board.name}.dtsi -> "
                           "${RUN_DIR}/board.dtb (dtc)",
            "region": {"machine_address": hex(region_host_address(board.data)),
                       "domu_address": hex(x["region_guest_address"]), "shm_id": SHM_ID,
                       "host_file": board.rendered_region_path},
            "state_bank": {"machine_address": hex(state_host_address(board.data)),
                           "domu_address": hex(state_guest_address(board.data)), "shm_id": STATE_SHM_ID,
                           "host_file": f"${{{STATE_VALUE}}}: ${{RUN_DIR}}/{STATE_BANK} ({STATE_BANK_MIB} MiB, created "
                                        f"blank, kept by board down and across the boot snapshot's restore), or "
                                        f"the blank one deployed with --images DIR",
                           "agent_option": f"--state-device /dev/mem@{state_guest_address(board.data):#x}"
                                           f"+{STATE_BANK_MIB * MIB}"},
            "domains": [{"name": d["name"], "kind": d["kind"], "shm_role": d["shm_role"], "cpus": d["cpus"],
                         "memory_mib": d["memory_mib"], "kernel_address": hex(d["kernel_address"]),
                         "initrd_address": hex(d["initrd_address"]),
                         "init": f"hypervisor-cells/xen/golden/{board.name}.{d['name']}.init",
                         "initramfs": f"${{RTDROID_HOME}}/build/xen/{board.name}-{d['name']}.cpio"}
                        for d in domains(board)],
            "payload": "tools/fetch-xen.sh -> build/xen/ (Xen with STATIC_SHM, BOOT_TIME_CPUPOOLS, SCHED_NULL; "
                       "Debian arm64 PREEMPT_RT kernel, busybox, glibc; aarch64 Java runtime)",
            "boot": board.rt.get("boot", "cold"),
            **({"snapshot": "${RTDROID_HOME}/build/xen/snapshot-<board>-tcg.zst (QEMU migration stream of the "
                            "whole machine: Xen and the RT cell's domU)"}
               if board.rt.get("boot") == "snapshot" else {}),
        }}

    def golden_files(self, board: Board) -> dict[str, str]:
        out = {f"{board.name}.dtsi": render_dtsi(board)}
        for d in domains(board):
            out[f"{board.name}.{d['name']}.init"] = init_script(board, d)
        return out

    boots_deployed_images = True

    def image_names(self, board: Board) -> list[str]:
        return ["xen", "vmlinuz", *(f"{d['name']}.cpio" for d in domains(board)), STATE_BANK]

    def images(self, board: Board, progress) -> dict[str, Path]:
        values = self.prepare(board, True, progress)
        files = [Path(values["XEN"]), Path(values[f"{domains(board)[0]['var']}_KERNEL"]),
                 *(Path(values[f"{d['var']}_INITRD"]) for d in domains(board)),
                 blank_state_image(paths.build_dir() / "xen" / STATE_BANK, STATE_BANK_MIB * MIB)]
        return dict(zip(self.image_names(board), files))

    def prepare_from(self, board: Board, directory: Path, progress) -> dict[str, str]:
        files = {n: directory / n for n in self.image_names(board) if n != STATE_BANK}
        missing = [n for n, f in files.items() if not f.is_file()]
        if missing:
            raise BoardError(f"--images {directory}: the board boots Xen, the domUs' kernel and each domU's "
                             f"initramfs from there; no {', '.join(missing)}")
        values = self._image_values(board, files["xen"], files["vmlinuz"],
                                    {d["name"]: files[f"{d['name']}.cpio"] for d in domains(board)})
        state = deployed_state(directory)
        progress.stage(f"Xen payload from {directory} ({', '.join(files)}"
                       f"{f', state bank {STATE_BANK}' if state else ''}; not the build's)")
        # its boot snapshot beside them: the build's own stays the build's
        return dict(values, RT_SNAPSHOT_DIR=str(directory), **state)

    def _image_values(self, board: Board, xen: Path, kernel: Path, initrds: dict[str, Path]) -> dict[str, str]:
        """The argv's values for these images, each checked against its boot-module slot."""
        values = {"XEN": str(xen)}
        for d in domains(board):
            for what, f, slot in (("KERNEL", kernel, KERNEL_SLOT), ("INITRD", initrds[d["name"]], INITRD_SLOT)):
                size = f.stat().st_size
                if size > slot:
                    raise BoardError(f"{f} is {size} bytes, more than its {slot // MIB} MiB boot-module slot")
                values[f"{d['var']}_{what}"] = str(f)
                values[f"{d['var']}_{what}_BYTES"] = hex(size)
        return values

    def prepare(self, board: Board, start_rt: bool, progress) -> dict[str, str]:
        if not start_rt:
            progress.stage("Xen payload not needed (RT cell not started)")
            return {}
        pay = fetch_payload(progress)
        agent_lib = paths.rt_agent_lib_dir()
        if not any(agent_lib.glob("*.jar")):
            raise BoardError(f"RT cell agent not built: no jars in {agent_lib} "
                             "(run `mvn -B -q install` from the repository root, JAVA_HOME=temurin-25)")
        deploy_pub = paths.keys_dir() / "deploy.pub"
        initrds = {d["name"]: build_initrd(board, d, pay, agent_lib, deploy_pub) for d in domains(board)}
        values = self._image_values(board, pay["xen"].resolve(), pay["kernel"], initrds)
        sizes = [f"{n} {f.stat().st_size / MIB:.0f} MiB" for n, f in initrds.items()]
        progress.stage(f"Xen payload ready ({pay['xen'].resolve().name}, kernel {pay['kernel'].name}, "
                       f"initramfs {', '.join(sizes)})")
        return values

    def region_after_start(self, board: Board, cold: bool) -> bool:
        # A machine restored from its boot snapshot writes the snapshot's (zero) region into the
        # region file while it loads, so then the region is formatted after the restore.
        return not cold and board.rt.get("boot", "cold") == "snapshot"

    def start(self, launch: Launch):
        board, run = launch.board, launch.run
        values = dict(launch.values, RUN_DIR=str(run))
        bank = ensure_state_bank(Path(values.setdefault(STATE_VALUE, str(run / STATE_BANK))))
        build_dtb(board, run, values)
        launch.state["accel"] = "tcg"
        argv = [_resolve(a, values) for a in launch.argv]
        n = len(domains(board))
        label = f"QEMU arm64 TCG, Xen dom0less ({n} domU{'s' if n > 1 else ''})"
        if self.region_after_start(board, launch.cold):
            # The restore writes the snapshot's copy of every memory bank into its file, the state
            # bank's too: what the cell wrote since is put back before the region is formatted,
            # so before the agent (waiting for the region) reads it.
            kept = bank.read_bytes()
            p, how = _restore(launch, argv, label)
            with bank.open("r+b") as f:
                f.write(kept)
            launch.format_region()
        else:
            p = launch.start_process(argv, run / "rt.log")
            how = f"{label}, cold boot"
        return p, f"{how}, pid {p.pid}, host CPUs {launch.argv[2]}, {machine(board.data).describe(board)}"

    def cell_entry(self, run: Path) -> dict:
        return {"console": str(run / "console.log"), "console_socket": str(run / "console.sock"),
                "qmp_socket": str(run / "qmp.sock")}

    def ready_file(self, run: Path, rendered: dict) -> Path:
        return run / rendered["console"]


def ensure_state_bank(bank: Path) -> Path:
    """Creates the RT cell's state bank blank (zeros: no record yet) when there is none; an
    existing one is the cell's and is left alone (`board down` keeps it)."""
    size = STATE_BANK_MIB * MIB
    if bank.exists():
        if not bank.is_file() or bank.stat().st_size != size:
            raise BoardError(f"the RT cell's state bank {bank} is not a file of {size} bytes; move it away to "
                             f"start the cell with a blank one (that forgets every version)")
        return bank
    bank.parent.mkdir(parents=True, exist_ok=True)
    with bank.open("wb") as f:
        f.truncate(size)
    return bank


# Properties QEMU fills with fresh random bytes in every dumped tree (and again at every reset).
_RANDOM_SEEDS = re.compile(r"^\s*(rng-seed|kaslr-seed) = [^;]*;\n", re.M)


def snapshot_key(board: Board, argv: list[str], values: dict[str, str], dts: Path) -> dict:
    """What the boot snapshot is keyed by: the resolved QEMU argv, the RT cell's kernel and
    initramfs, Xen, the device tree source (rewritten at every `up`, so by content, without the
    random seeds QEMU puts in /chosen) and the board file's content. Any change makes the next
    `board up` take a new snapshot."""
    from .. import snapshot
    var = domains(board)[0]["var"]
    tree = _RANDOM_SEEDS.sub("", dts.read_text(encoding="utf-8"))
    return snapshot.key_for(argv, Path(values[f"{var}_KERNEL"]), Path(values[f"{var}_INITRD"]),
                            xen=file_key(Path(values["XEN"])), device_tree=_sha256(tree.encode()),
                            board=_sha256(json.dumps(board.data, sort_keys=True).encode()))


def _restore(launch: Launch, argv: list[str], label: str):
    """Starts the machine from its boot snapshot under build/xen/ (snapshot.boot_restored)."""
    from .. import snapshot
    directory = launch.values.get("RT_SNAPSHOT_DIR")  # beside images a lab deployed (--images)
    return snapshot.boot_restored(launch, argv, snapshot.snapshot_file(launch.board.name, "tcg",
                                                                       Path(directory) if directory else build_dir()),
                                  snapshot_key(launch.board, argv, launch.values, launch.run / "board.dts"),
                                  MACHINE_RUN_FILES, label,
                                  "~30-75 s under TCG")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
