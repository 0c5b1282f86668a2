"""The qemu-arm64-xen board's machinery: board-file rules, the dom0less device tree, the domUs'
initramfs images, the QEMU command line and the boot itself (hypervisors/xen.py is the thin
adapter behind the hypervisor interface; `python -m rtdroid.xenboot` boots the board by hand).

The machine: QEMU `virt` (GICv3, virtualization=on) with its RAM a file on /dev/shm, booting Xen
(built by tools/fetch-xen.sh under build/xen/). Xen reads the domUs from /chosen of the device
tree: QEMU's own tree for the same machine options (dumpdtb) plus hypervisor-cells/xen/board.dtsi.in.
The boot modules (each domU's kernel and initramfs) are put in RAM by QEMU's generic loader at
fixed slots from MODULES_BASE, so the rendered tree depends on the board file alone; only the
module sizes are filled in at boot (${<DOMAIN>_KERNEL_BYTES}, ${<DOMAIN>_INITRD_BYTES}).

The region is Xen static shared memory at `xen.region_host_address` of the machine: the RT cell
owns it, every `xen.domains` entry borrows it, and the host (the Android cell's side) reaches the
same bytes at offset region_host_address - RAM_BASE of the RAM file.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import image, paths
from .boardconfig import MIB, Board, BoardConfigError, load_board
from .lifecycle import BoardError  # rtdroid.errors once the hypervisor interface lands
from .render import cpu_list, rt_jvm_args

RAM_BASE = 0x40000000            # QEMU virt: RAM starts at 1 GiB
MODULES_BASE = 0x50000000        # above Xen (loaded near RAM_BASE) and QEMU's DTB (RAM_BASE + 128 MiB)
KERNEL_SLOT = 64 * MIB
INITRD_SLOT = 192 * MIB
PAGE = 4096
# domU physical address space (xen/include/public/arch-arm.h): the region must not overlap guest
# RAM, the vGIC, the vPL011, the vPCI windows or the grant table. The hole between the end of
# GUEST_VPCI_MEM (0x33000000) and GUEST_GNTTAB (0x38000000) is free.
GUEST_HOLE = (0x33000000, 0x38000000)
GUEST_ROOT = "/rt"
READY_LINE = "RTCELL READY"
AWAITING_LINE = "rtcell: runtime started; awaiting the region"
SHM_ID = "rtdroid-xcc"


def cells_dir() -> Path:
    return paths.hypervisor_cells_dir() / "xen"


def build_dir() -> Path:
    return paths.build_dir() / "xen"


# ------------------------------------------------------------------ the domains

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
        d["var"] = re.sub(r"[^A-Z0-9]", "_", d["name"].upper())
        d["kernel_address"] = MODULES_BASE + i * (KERNEL_SLOT + INITRD_SLOT)
        d["initrd_address"] = d["kernel_address"] + KERNEL_SLOT
    return out


def modules_end(board: Board) -> int:
    return MODULES_BASE + len(domains(board)) * (KERNEL_SLOT + INITRD_SLOT)


def region_file_offset(board: Board) -> int:
    """Where the region sits in the machine's RAM file (the host's view)."""
    return board.data["xen"]["region_host_address"] - RAM_BASE


def check(data: dict) -> list[tuple[str, object, str]]:
    """Rules of a xen board beyond the schema: the layout must be one Xen accepts and the domains'
    CPUs must split into the RT cell's null-scheduler pool and the shared pool."""
    probs: list[tuple[str, object, str]] = []
    x = data.get("xen")
    if x is None:
        return [("xen", None, "a xen board needs a xen: block (machine RAM, region addresses)")]
    rt_i, rt = next((i, c) for i, c in enumerate(data["cells"]) if c["role"] == "rt")
    board_cpus = set(data["cpus"])
    if "kernel" not in rt:
        probs.append((f"cells[{rt_i}].kernel", None, "a xen RT cell boots a kernel: set kernel"))
    for key in ("accel", "cpu_model"):
        if key in rt:
            probs.append((f"cells[{rt_i}].{key}", rt[key], f"a xen board sets the emulated CPU in xen: ({key} is qemu's)"))
    if rt.get("boot", "cold") != "cold":
        probs.append((f"cells[{rt_i}].boot", rt["boot"], "a xen board boots cold (no snapshot yet)"))
    if rt.get("vcpus", 1) > len(rt["cpus"]):
        probs.append((f"cells[{rt_i}].vcpus", rt.get("vcpus"),
                      f"the null scheduler needs one physical CPU per vCPU (cpus {rt['cpus']})"))
    others: set[int] = set()
    for k, d in enumerate(x.get("domains", [])):
        if d["name"] in [c["name"] for c in data["cells"]]:
            probs.append((f"xen.domains[{k}].name", d["name"], "is already a cell's name"))
        if set(d["cpus"]) & set(rt["cpus"]):
            probs.append((f"xen.domains[{k}].cpus", d["cpus"],
                          f"must not share the RT cell's CPUs {rt['cpus']} (its cpupool is the RT cell's alone)"))
        if not set(d["cpus"]) <= board_cpus:
            probs.append((f"xen.domains[{k}].cpus", d["cpus"], f"not among the board's cpus {data['cpus']}"))
        others |= set(d["cpus"])
    if not board_cpus - set(rt["cpus"]):
        probs.append(("cpus", data["cpus"], "Xen's shared cpupool needs a CPU besides the RT cell's"))
    region = data["regions"][0]
    size = region["size_bytes"]
    if size % PAGE or size & (size - 1):
        probs.append(("regions[0].size_bytes", size, "static shared memory is a power of two of whole 4 KiB pages"))
    host, guest = x["region_host_address"], x["region_guest_address"]
    ram_end = RAM_BASE + x["machine_ram_mib"] * MIB
    mod_end = MODULES_BASE + (1 + len(x.get("domains", []))) * (KERNEL_SLOT + INITRD_SLOT)
    if host % (2 * MIB):
        probs.append(("xen.region_host_address", hex(host), "must be 2 MiB aligned"))
    if not (mod_end <= host and host + size <= ram_end):
        probs.append(("xen.region_host_address", hex(host),
                      f"must lie in machine RAM above the boot modules: [{mod_end:#x}, {ram_end:#x} - size]"))
    if guest % PAGE or not (GUEST_HOLE[0] <= guest and guest + size <= GUEST_HOLE[1]):
        probs.append(("xen.region_guest_address", hex(guest),
                      f"must be page aligned within the free domU window [{GUEST_HOLE[0]:#x}, {GUEST_HOLE[1]:#x})"))
    domu_mib = rt["memory_mib"] + sum(d["memory_mib"] for d in x.get("domains", []))
    if (host - mod_end) // MIB + (ram_end - host - size) // MIB < domu_mib + 64:
        probs.append(("xen.machine_ram_mib", x["machine_ram_mib"],
                      f"too small for the domUs ({domu_mib} MiB), Xen and the boot modules"))
    if "console=ttyAMA0" not in data["tuning"]["rt_cmdline"].split():
        probs.append(("tuning.rt_cmdline", data["tuning"]["rt_cmdline"],
                      "must contain console=ttyAMA0: the domU's vPL011 carries readiness and logs"))
    return probs


# ------------------------------------------------------------------ rendering

def _fill(template: str, values: dict[str, str]) -> str:
    return re.sub(r"@([A-Z_]+)@", lambda m: values[m.group(1)], template)


def _cpu_refs(cpus: list[int]) -> str:
    return " ".join(f"&{{/cpus/cpu@{c}}}" for c in sorted(cpus))


def xen_bootargs() -> str:
    return "console=dtuart dtuart=/pl011@9000000 bootscrub=0"


def render_dtsi(board: Board) -> str:
    """The /chosen fragment: cpupools and domUs; module sizes stay ${..._BYTES} placeholders."""
    x = board.data["xen"]
    size = board.region["size_bytes"]
    dom_t = (cells_dir() / "domain.dtsi.in").read_text(encoding="utf-8")
    parts = []
    for d in domains(board):
        bootargs = board.data["tuning"]["rt_cmdline"] if d["kind"] == "rt" else "console=ttyAMA0 quiet panic=-1"
        parts.append(_fill(dom_t, {
            "COMMENT": (f"the RT cell '{d['name']}': owns the region" if d["kind"] == "rt"
                        else f"domain '{d['name']}': borrows the region"),
            "NODE": d["node"], "MEMORY_KIB": hex(d["memory_mib"] * 1024), "VCPUS": str(d["vcpus"]),
            "POOL": "cpupool_rt" if d["kind"] == "rt" else "cpupool_shared",
            "SHM_ROLE": d["shm_role"], "SHM_ID": SHM_ID,
            "HOST_ADDRESS": f"{x['region_host_address']:x}", "GUEST_ADDRESS": f"{x['region_guest_address']:x}",
            "REGION_BYTES": hex(size), "BOOTARGS": bootargs,
            "KERNEL_ADDRESS": f"{d['kernel_address']:x}", "KERNEL_BYTES": f"${{{d['var']}_KERNEL_BYTES}}",
            "INITRD_ADDRESS": f"{d['initrd_address']:x}", "INITRD_BYTES": f"${{{d['var']}_INITRD_BYTES}}"}))
    shared = sorted(set(board.data["cpus"]) - set(board.rt["cpus"]))
    return _fill((cells_dir() / "board.dtsi.in").read_text(encoding="utf-8"), {
        "BOARD": board.name, "XEN_BOOTARGS": xen_bootargs(),
        "RT_POOL_CPUS": _cpu_refs(board.rt["cpus"]), "SHARED_POOL_CPUS": _cpu_refs(shared),
        "DOMAINS": "".join(parts)})


def machine_args(board: Board) -> list[str]:
    """The QEMU machine: the same options for dumpdtb and for the boot."""
    x = board.data["xen"]
    ram = f"{x['machine_ram_mib']}M"
    return ["qemu-system-aarch64", "-accel", "tcg,thread=multi", "-cpu", x.get("cpu_model", "cortex-a57"),
            "-smp", str(len(board.data["cpus"])), "-m", ram,
            "-object", f"memory-backend-file,id=ram,size={ram},mem-path={board.region_path},share=on",
            "-machine", "virt,virtualization=on,gic-version=3,memory-backend=ram",
            "-nodefaults", "-display", "none", "-monitor", "none", "-no-reboot"]


def render_argv(board: Board) -> list[str]:
    """The boot command; ${XEN}, ${RUN_DIR} and the modules' ${<DOMAIN>_KERNEL|INITRD} are resolved at up."""
    argv = machine_args(board) + ["-dtb", "${RUN_DIR}/board.dtb", "-kernel", "${XEN}", "-serial", "stdio"]
    for d in domains(board):
        for what in ("kernel", "initrd"):
            argv += ["-device", f"loader,file=${{{d['var']}_{what.upper()}}},addr={d[what + '_address']:#x},force-raw=on"]
    return argv


def guest_jvm_args(board: Board) -> list[str]:
    return rt_jvm_args(board.rt["heap_mib"]) + ["-Djava.io.tmpdir=/tmp"]


def init_script(board: Board, domain: dict) -> str:
    x = board.data["xen"]
    common = {"BOARD": board.name, "GUEST_ADDRESS": f"{x['region_guest_address']:#x}",
              "REGION_BYTES": str(board.region["size_bytes"]), "NAME": domain["name"]}
    if domain["kind"] == "borrower":
        return _fill((cells_dir() / "init-borrower.sh.in").read_text(encoding="utf-8"), common)
    rt = board.rt
    agent = ["--deploy-key", f"{GUEST_ROOT}/keys/deploy.pub", "--cpus", cpu_list(list(range(domain["vcpus"]))),
             "--budget-bytes", str(rt["rt_budget_bytes"]), "--await-region"]
    tmpfs_mib = max(16, (rt["memory_mib"] * MIB - rt["heap_mib"] * MIB - rt["rt_budget_bytes"]) // MIB // 4)
    return _fill((cells_dir() / "init-rt.sh.in").read_text(encoding="utf-8"), {
        **common, "GUEST_ROOT": GUEST_ROOT, "TMPFS_MIB": str(tmpfs_mib),
        "JVM_ARGS": " ".join(guest_jvm_args(board)), "AGENT_ARGS": " ".join(agent)})


def golden_files(board: Board) -> dict[str, str]:
    out = {f"{board.name}.dtsi": render_dtsi(board)}
    for d in domains(board):
        out[f"{board.name}.{d['name']}.init"] = init_script(board, d)
    return out


# ------------------------------------------------------------------ images

def payload() -> dict[str, Path]:
    """What tools/fetch-xen.sh leaves under build/xen/; BoardError naming the command if absent."""
    b = build_dir()
    kernels = sorted((b / "arm64" / "kernel" / "boot").glob("vmlinuz-*"))
    p = {"xen": b / "xen", "busybox": b / "arm64" / "busybox" / "bin" / "busybox",
         "glibc": b / "arm64" / "libc" / "lib" / "aarch64-linux-gnu", "jre": b / "jre",
         "kernel": kernels[0] if kernels else b / "arm64" / "kernel" / "boot" / "vmlinuz-*"}
    missing = [str(v) for v in p.values() if not v.exists()]
    if missing:
        raise BoardError(f"the Xen board's payload is not built ({', '.join(missing)} missing): "
                         f"run tools/fetch-xen.sh")
    return p


def _write_if_changed(out: Path, build) -> Path:
    data = build()
    if not (out.is_file() and hashlib.sha256(out.read_bytes()).digest() == hashlib.sha256(data).digest()):
        tmp = out.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.replace(out)
    return out


def build_initrd(board: Board, domain: dict, pay: dict[str, Path], agent_lib: Path, deploy_pub: Path) -> Path:
    """build/xen/<board>-<domain>.cpio: busybox, /init and (RT cell) the Java runtime, glibc,
    the agent's jars and the deploy key under /rt."""
    out = build_dir() / f"{board.name}-{domain['name']}.cpio"

    def build() -> bytes:
        c = image._Cpio()
        for d in ("bin", "sbin", "dev", "etc", "proc", "sys", "tmp", "lib"):
            c.dir(d)
        c.chardev("dev/console", 5, 1)
        c.chardev("dev/null", 1, 3, 0o666)
        c.file("bin/busybox", pay["busybox"].read_bytes(), 0o755)
        for applet in image.BUSYBOX_APPLETS + ["devmem"]:
            c.symlink(f"bin/{applet}", "busybox")
        c.file("init", init_script(board, domain).encode(), 0o755)
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
        return c.finish()

    return _write_if_changed(out, build)


def prepare(board: Board) -> dict[str, str]:
    """Builds both initramfs images; returns the argv placeholder values (files and sizes)."""
    pay = payload()
    agent_lib = paths.rt_agent_lib_dir()
    if not any(agent_lib.glob("*.jar")):
        raise BoardError(f"RT cell agent not built: no jars in {agent_lib} (mvn -pl rt-cell/agent -am package)")
    deploy_pub = paths.keys_dir() / "deploy.pub"
    if not deploy_pub.is_file():
        raise BoardError(f"no deploy key {deploy_pub} (run tools/setup.sh)")
    values = {"XEN": str(pay["xen"].resolve())}
    for d in domains(board):
        initrd = build_initrd(board, d, pay, agent_lib, deploy_pub)
        for what, f, slot in (("KERNEL", pay["kernel"], KERNEL_SLOT), ("INITRD", initrd, INITRD_SLOT)):
            size = f.stat().st_size
            if size > slot:
                raise BoardError(f"{f} is {size} bytes, more than its {slot // MIB} MiB boot-module slot")
            values[f"{d['var']}_{what}"] = str(f)
            values[f"{d['var']}_{what}_BYTES"] = hex(size)
    return values


def _resolve(text: str, values: dict[str, str]) -> str:
    return re.sub(r"\$\{([A-Z0-9_]+)\}", lambda m: values[m.group(1)], text)


def build_dtb(board: Board, run: Path, values: dict[str, str]) -> Path:
    """QEMU's device tree for the machine (dumpdtb) + the rendered /chosen fragment -> board.dtb."""
    run.mkdir(parents=True, exist_ok=True)
    virt = run / "virt.dtb"
    argv = machine_args(board)
    i = argv.index("-machine") + 1
    argv[i] += f",dumpdtb={virt}"
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dts = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", str(virt)], check=True,
                         capture_output=True, text=True).stdout
    (run / "board.dts").write_text(dts + "\n" + _resolve(render_dtsi(board), values), encoding="utf-8")
    out = run / "board.dtb"
    r = subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", str(out), str(run / "board.dts")],
                       capture_output=True, text=True)
    if r.returncode:
        raise BoardError(f"dtc refused {run / 'board.dts'}: {r.stderr.strip()}")
    virt.unlink()
    return out


# ------------------------------------------------------------------ the region, host side

def format_region(board: Board) -> None:
    """Formats the region where the domUs see it: at its offset in the machine's RAM file, body
    first and header (with its CRC) last, so a peer polling for it never sees half a region."""
    from xcc import region as xr
    r = board.region
    img = xr.format_image(r["rings"], r["slots"], r["slot_bytes"])
    off = region_file_offset(board)
    fd = os.open(board.region_path, os.O_RDWR)
    try:
        os.pwrite(fd, bytes(img[xr.HEADER_BYTES:]), off + xr.HEADER_BYTES)
        os.pwrite(fd, bytes(img[:xr.HEADER_BYTES]), off)
    finally:
        os.close(fd)


def host_mapping(board: Board):
    """The region as the host maps it (the Android cell's side)."""
    from xcc import region as xr
    return xr.Mapping.physical(region_file_offset(board), board.region["size_bytes"], dev_mem=str(board.region_path))


def host_region_spec(board: Board) -> str:
    """The --region spec a host peer (Android cell, agent-style) gives for the same bytes."""
    return f"{board.region_path}@{region_file_offset(board):#x}+{board.region['size_bytes']}"


# ------------------------------------------------------------------ the boot, by hand

class Console:
    """Reads QEMU's serial output (Xen and every domU), writing each line to console.log with the
    host time since QEMU started; wait_for(text) returns that time for the first line with text."""

    def __init__(self, proc: subprocess.Popen, log: Path):
        self.proc, self.t0 = proc, time.monotonic()
        self.lines: list[tuple[float, str]] = []
        self.cond = threading.Condition()
        self.log = log.open("w", encoding="utf-8")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            line = raw.decode(errors="replace").rstrip("\r\n")
            t = time.monotonic() - self.t0
            self.log.write(f"[{t:8.3f}] {line}\n")
            self.log.flush()
            with self.cond:
                self.lines.append((t, line))
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def wait_for(self, text: str, timeout: float) -> float:
        deadline = time.monotonic() + timeout
        seen = 0
        with self.cond:
            while True:
                for t, line in self.lines[seen:]:
                    if text in line:
                        return t
                seen = len(self.lines)
                if self.proc.poll() is not None:
                    raise BoardError(f"QEMU exited ({self.proc.returncode}) before '{text}'")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BoardError(f"no '{text}' on the console within {timeout:g} s")
                self.cond.wait(min(left, 0.5))


def boot(board: Board, run: Path, timeout: float, pings: int, keep: bool) -> dict:
    """Boots the board by hand: Xen, the RT cell and the borrowing domains; formats the region
    from the host once the agent awaits it; waits for every borrower to see the RT cell READY;
    exchanges `pings` management HELLO frames host <-> RT cell. Returns the milestones (host
    seconds since QEMU started)."""
    values = prepare(board)
    values["RUN_DIR"] = str(run)
    build_dtb(board, run, values)
    argv = [_resolve(a, values) for a in render_argv(board)]
    (run / "qemu-argv.json").write_text(json.dumps(argv, indent=1))
    Path(board.region_path).unlink(missing_ok=True)
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    con = Console(proc, run / "console.log")
    m: dict[str, object] = {}
    try:
        m["xen_banner"] = con.wait_for("Xen version", timeout)
        m["xen_domains_started"] = con.wait_for("Freed", timeout)
        m["rt_init"] = con.wait_for("RTCELL realtime=", timeout)
        m["rt_awaiting_region"] = con.wait_for(AWAITING_LINE, timeout)
        format_region(board)
        m["region_formatted"] = round(time.monotonic() - con.t0, 3)
        m["rt_ready"] = con.wait_for(READY_LINE, timeout)
        for d in domains(board)[1:]:
            m[f"{d['name']}_up"] = con.wait_for(f"XENDOM {d['name']} up", timeout)
            m[f"{d['name']}_sees_rt_ready"] = con.wait_for(f"XENDOM {d['name']} peer 0 READY", timeout)
        m["all_ready"] = max(v for v in m.values() if isinstance(v, float))
        if pings:
            # Management frames host -> RT cell -> host over ring 0 (no application needed): the
            # agent answers HELLO and STATS_REQUEST frames the host writes into the domU's memory.
            from xcc import mgmt
            spec = host_region_spec(board)
            rtts = []
            with mgmt.ManagementClient(spec, timeout=30) as client:
                m["hello"] = client.hello()
                for _ in range(pings):
                    t0 = time.monotonic()
                    client.hello()
                    rtts.append(time.monotonic() - t0)
                stats = client.stats()
            rtts.sort()
            m["management_frames"] = {"hello_round_trips": pings, "median_ms": round(rtts[len(rtts) // 2] * 1e3, 2),
                                      "max_ms": round(rtts[-1] * 1e3, 2), "rt_stats": stats}
        if keep:
            m["qemu_pid"] = proc.pid
        return m
    finally:
        if not keep:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
            Path(board.region_path).unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rtdroid.xenboot",
                                 description="Boot the Xen dom0less board by hand and report its milestones.")
    ap.add_argument("--board", default="qemu-arm64-xen")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--pings", type=int, default=20, help="management HELLO round trips host <-> RT cell after ready")
    ap.add_argument("--keep", action="store_true", help="leave QEMU running (stop it by its pid)")
    ap.add_argument("--render", metavar="DIR", help="only write the rendered files (golden) into DIR")
    a = ap.parse_args(argv)
    try:
        board = load_board(a.board)
        probs = check(board.data)
        if probs:
            raise BoardConfigError(a.board, probs)
        if a.render:
            for name, text in golden_files(board).items():
                Path(a.render, name).write_text(text, encoding="utf-8")
            Path(a.render, f"{board.name}.qemu.json").write_text(json.dumps(render_argv(board), indent=1) + "\n")
            return 0
        run = paths.run_dir(board.name)
        m = boot(board, run, a.timeout, a.pings, a.keep)
    except (BoardError, BoardConfigError) as e:
        print(f"xenboot: {e}", file=sys.stderr)
        return 1
    print(json.dumps(m, indent=1))
    print(f"console: {paths.run_dir(board.name) / 'console.log'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
