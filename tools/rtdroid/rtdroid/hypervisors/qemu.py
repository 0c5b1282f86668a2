"""The `qemu` hypervisor (qemu-x86_64 board): the RT cell is a QEMU VM booting Debian's
PREEMPT_RT kernel from an initramfs that carries the agent (image.py builds it), pinned to its
host CPUs, the region an ivshmem-plain BAR over the board's /dev/shm file. With `boot: snapshot`
the VM is restored from a snapshot of its first cold boot (snapshot.py).

Templates and golden rendering: hypervisor-cells/qemu/ (init.sh.in, golden/<board>.json and
golden/<board>.init).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from .. import paths
from ..board import MIB, Board, parse_cpu_list
from ..errors import BoardError
from ..render import cpu_list, resolve_argv, rt_jvm_args
from . import icount
from .base import Launch, Problem
from .guest import STATE_IMAGE, STATE_VALUE, Guest, blank_state_image, deployed_state

# Where the RT cell's root (Java runtime, agent jars, deploy key) sits in the guest. It travels
# inside the initramfs rather than over a 9p share: QEMU refuses to migrate (snapshot) a VM with a
# mounted 9p export, and the boot snapshot is what brings the TCG cell up in seconds.
GUEST_ROOT = "/rt"
MIN_REGION_BYTES = MIB
_CPU_LIST_PARAMS = ("isolcpus", "nohz_full", "rcu_nocbs", "irqaffinity")

# What a QEMU process leaves in the run directory: a later QEMU must not find them.
VM_RUN_FILES = ("console.log", "console.sock", "qmp.sock")

# The cell's state disk: a raw image in the run directory (kept by `board down`, like the host
# board's rt-state/), attached as a virtio disk that the agent reads and writes as a block device
# without a file system (--state-device; the layout is rt-cell/agent's BlockDeviceStore: two
# 64 KiB copies of the version record). The board only creates it blank; the cell writes it.
STATE_DISK = STATE_IMAGE  # in the run directory, or the one a lab deployed (guest.STATE_IMAGE)
INITRD = "initrd.cpio"  # the initramfs image.py builds in build/rt-cell/
STATE_DISK_BYTES = 128 * 1024
STATE_DEVICE = "/dev/vda"
# Kernel modules the initramfs carries (image.py copies them from the kernel package to
# /lib/modules/<version>/<name>.ko) and /init loads, in this order (dependencies first). Debian
# builds them as modules: the state disk's virtio drivers (virtio-blk over virtio-pci), and the
# SensorManager's kernel path (evdev gives /dev/input/event*, uinput gives /dev/uinput where the
# cell's sensor simulator creates its devices; the input core they need is built in).
STATE_DISK_MODULES = ("virtio_ring", "virtio", "virtio_pci_legacy_dev", "virtio_pci_modern_dev", "virtio_pci",
                      "virtio_blk")
INPUT_MODULES = ("evdev", "uinput")
GUEST_MODULES = STATE_DISK_MODULES + INPUT_MODULES


class Qemu(Guest):
    name = "qemu"
    run_files = VM_RUN_FILES
    restartable = False
    prepare_stages = 1
    boots_deployed_images = True

    # ------------------------------------------------------------------ board file
    def check(self, data: dict) -> list[Problem]:
        probs: list[Problem] = []
        cells = data["cells"]
        for i, c in enumerate(cells):
            if c["role"] != "rt":
                continue
            if "kernel" not in c:
                probs.append((f"cells[{i}].kernel", None, "a qemu RT cell boots a kernel: set kernel"))
            if c.get("vcpus", 1) > len(c["cpus"]):
                probs.append((f"cells[{i}].vcpus", c.get("vcpus"),
                              f"more vCPUs than host CPUs pinned to the cell ({c['cpus']})"))
        for j, r in enumerate(data["regions"]):
            if r["size_bytes"] < MIN_REGION_BYTES:
                probs.append((f"regions[{j}].size_bytes", r["size_bytes"],
                              "an ivshmem BAR must be a power of two >= 1 MiB"))
        if not any(dev["type"] == "ivshmem-plain" for dev in data.get("devices", [])):
            probs.append(("devices", data.get("devices", []),
                          "a qemu board needs an ivshmem-plain device carrying the region into the RT cell"))
        cmdline = data["tuning"]["rt_cmdline"]
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

    # ------------------------------------------------------------------ render
    def render_rt(self, board: Board) -> dict:
        rt = board.rt
        argv = ["taskset", "-c", cpu_list(rt["cpus"]),
                "qemu-system-x86_64",
                "-name", f"rtdroid-{board.name}-{rt['name']}",
                "-nodefaults", "-no-user-config", "-no-reboot",
                "-machine", "pc", "-accel", "${ACCEL}", "-cpu", "${QEMU_CPU}",
                *icount.args(board),
                "-smp", str(rt.get("vcpus", 1)), "-m", str(rt["memory_mib"]),
                "-display", "none", "-vga", "none", "-nic", "none",
                "-kernel", "${RT_KERNEL}",
                "-initrd", "${RT_INITRD}",
                "-append", board.data["tuning"]["rt_cmdline"],
                "-chardev", "socket,id=console,path=${RUN_DIR}/console.sock,server=on,wait=off,"
                            "logfile=${RUN_DIR}/console.log",
                "-serial", "chardev:console",
                "-object", f"memory-backend-file,id=shm,share=on,mem-path={board.rendered_region_path},"
                           f"size={board.region['size_bytes']}",
                # master=on: this side owns the region in a migration (the boot snapshot); in
                # peer mode QEMU refuses to migrate at all.
                "-device", "ivshmem-plain,memdev=shm,master=on",
                # The cell's own storage (its version record), outside the boot snapshot: a
                # migration carries the disk's device state, never its contents.
                "-drive", f"file=${{{STATE_VALUE}}},format=raw,if=none,id=state",
                "-device", "virtio-blk-pci,drive=state",
                # QMP: the board tooling stops, snapshots and restores the cell through it.
                "-qmp", "unix:${RUN_DIR}/qmp.sock,server=on,wait=off"]
        return {"role": "rt", "argv": argv, "ready_line": "RTCELL READY", "log": "rt.log",
                "console": "console.log"}

    def clock(self, board: Board) -> dict:
        return icount.clock(board)

    def render_extra(self, board: Board) -> dict:
        rt = board.rt
        return {"clock": self.clock(board), "rt_image": {
            "kernel_package": "linux-image-rt-amd64",
            "kernel": "${RTDROID_HOME}/build/rt-cell/vmlinux (ELF for PVH boot, else the vmlinuz)",
            "initramfs": {
                "path": "${RTDROID_HOME}/build/rt-cell/initrd.cpio (uncompressed newc cpio)",
                "busybox": "/bin/busybox (busybox-static)",
                "init": f"hypervisor-cells/qemu/golden/{board.name}.init",
                "modules": [f"/lib/modules/<kernel version>/{m}.ko (from the kernel package)" for m in GUEST_MODULES],
                "root": {
                    "built_in": "${RTDROID_HOME}/build/rt-cell/root",
                    "guest_path": GUEST_ROOT,
                    "contents": ["jdk/ (jlink'ed Java 25 runtime)", "glibc/ (the libraries that runtime links)",
                                 "lib/ (RT cell agent jars)", "keys/deploy.pub"],
                },
            },
            "state_disk": {"path": f"${{{STATE_VALUE}}}: ${{RUN_DIR}}/{STATE_DISK} (raw, {STATE_DISK_BYTES} bytes, "
                                   f"created blank, kept by board down), or the blank one deployed with "
                                   f"--images DIR",
                           "guest_device": STATE_DEVICE, "agent_option": f"--state-device {STATE_DEVICE}"},
            "boot": rt.get("boot", "cold"),
            "snapshot": "${RTDROID_HOME}/build/rt-cell/snapshot-<board>-<accel>.zst (QEMU migration stream)",
        }}

    def golden_files(self, board: Board) -> dict[str, str]:
        return {f"{board.name}.init": init_script(board)}

    def rt_kernel_release(self, board: Board) -> str | None:
        from .. import image
        try:
            return image.kernel_version()  # Debian's PREEMPT_RT kernel tools/fetch-kernel.sh unpacked
        except image.ImageError:
            return None

    # ------------------------------------------------------------------ up
    def prepare(self, board: Board, start_rt: bool, progress) -> dict[str, str]:
        if not start_rt:
            progress.stage("RT cell image not needed (RT cell not started)")
            return {}
        from .. import image
        try:
            kernel = image.ensure_kernel()
            image.ensure_root_tree()
            ensure_initramfs(board)
        except image.ImageError as e:
            raise BoardError(str(e)) from None
        kind = "PVH ELF vmlinux" if kernel.name == "vmlinux" else "bzImage"
        progress.stage(f"RT cell image ready (kernel {image.kernel_version()} as {kind}, initramfs with "
                       f"the Java runtime and agent)")
        return {"RT_KERNEL": str(kernel), "RT_INITRD": str(paths.rt_cell_build_dir() / INITRD)}

    def image_names(self, board: Board) -> list[str]:
        return ["vmlinux", INITRD, STATE_DISK]  # the kernel is a bzImage where no ELF vmlinux could be extracted

    def images(self, board: Board, progress) -> dict[str, Path]:
        values = self.prepare(board, True, progress)
        kernel = Path(values["RT_KERNEL"])
        return {"vmlinux" if kernel.name == "vmlinux" else "bzImage": kernel, INITRD: Path(values["RT_INITRD"]),
                STATE_DISK: blank_state_image(paths.rt_cell_build_dir() / STATE_DISK, STATE_DISK_BYTES)}

    def prepare_from(self, board: Board, directory: Path, progress) -> dict[str, str]:
        kernel = next((directory / n for n in ("vmlinux", "bzImage") if (directory / n).is_file()), None)
        initrd = directory / INITRD
        if kernel is None or not initrd.is_file():
            raise BoardError(f"--images {directory}: the RT cell boots a kernel (vmlinux or bzImage) and "
                             f"{INITRD} from there; " + (f"no {INITRD}" if kernel else "no kernel"))
        state = deployed_state(directory)
        progress.stage(f"RT cell image from {directory} ({kernel.name}, {INITRD}"
                       f"{f', state disk {STATE_DISK}' if state else ''}; not the build's)")
        # its boot snapshot beside them: the build's own stays the build's
        return {"RT_KERNEL": str(kernel), "RT_INITRD": str(initrd), "RT_SNAPSHOT_DIR": str(directory), **state}

    def region_after_start(self, board: Board, cold: bool) -> bool:
        # A cell restored from its boot snapshot overwrites the region with the snapshot's
        # (zero) contents while it loads, so then the region is formatted after the restore.
        return not cold and board.rt.get("boot", "cold") == "snapshot"

    def start(self, launch: Launch):
        board = launch.board
        ensure_state_disk(Path(launch.values.setdefault(STATE_VALUE, str(launch.run / STATE_DISK))))
        accel, cpu, why = choose_accel(board)
        launch.state["accel"] = accel
        launch.values.update(ACCEL=accel, QEMU_CPU=cpu)
        argv = resolve_argv(launch.argv, launch.values)
        launch.state["rt_clock"] = self.clock(board)
        if accel == "kvm" and "-icount" in argv:
            # icount is a TCG feature: under KVM the cell's CPU is real and so is its clock
            i = argv.index("-icount")
            argv = argv[:i] + argv[i + 2:]
            launch.state["rt_clock"] = {"kind": "host", "label": "host clock (KVM: icount needs TCG)"}
        if self.region_after_start(board, launch.cold):
            p, how = _restore(launch, argv, accel)
            launch.format_region()
        else:
            p = launch.start_process(argv, launch.run / "rt.log")
            how = f"QEMU {accel.upper()} ({why})"
        clock = launch.state["rt_clock"]
        return p, (f"{how}, pid {p.pid}, host CPUs {board.rt['cpus']}"
                   + (f", {clock['label']}" if clock["kind"] == "virtual" else ""))

    def cell_entry(self, run: Path) -> dict:
        return {"console": str(run / "console.log"), "console_socket": str(run / "console.sock"),
                "qmp_socket": str(run / "qmp.sock")}

    def ready_file(self, run: Path, rendered: dict) -> Path:
        return run / rendered["console"]


# ------------------------------------------------------------------ the guest's /init

def guest_jvm_args(board: Board) -> list[str]:
    """The guest JVM's flags (temporary files on the tmpfs)."""
    return rt_jvm_args(board.rt["heap_mib"]) + ["-Djava.io.tmpdir=/tmp"]


def load_modules(modules) -> str:
    """/init's lines that insmod each module (from /lib/modules/<version>/ of the initramfs) and
    say whether it loaded; a module that does not load leaves the cell running without its device.
    Then whether /dev/uinput, the sensor simulator's, is there."""
    return "\n".join([
        f"for m in {' '.join(modules)}; do",
        '    if err=$(insmod "/lib/modules/$(uname -r)/$m.ko" 2>&1); then',
        '        echo "RTCELL module $m loaded"',
        "    else",
        '        echo "RTCELL module $m NOT loaded: $err"',
        "    fi",
        "done",
        'echo "RTCELL input: $([ -c /dev/uinput ] && echo /dev/uinput present || echo no /dev/uinput)"'])


def guest_agent_values(board: Board, modules=GUEST_MODULES) -> dict[str, str]:
    """The /init template values that start the agent inside a guest (qemu VM or Xen domU), the
    kernel modules it loads first among them."""
    rt = board.rt
    # Inside the guest the cell's CPUs are its vCPUs 0..n-1; the host (or Xen) places them.
    guest_cpus = cpu_list(list(range(rt.get("vcpus", 1))))
    agent = ["--deploy-key", f"{GUEST_ROOT}/keys/deploy.pub", "--cpus", guest_cpus,
             "--budget-bytes", str(rt["rt_budget_bytes"]), "--probes", f"{GUEST_ROOT}/probes", "--await-region"]
    if rt.get("flight_recorder_us"):  # opt-in: the kernel's events frozen at the first slow release
        agent += ["--flight-recorder", str(int(rt["flight_recorder_us"]))]
    tmpfs_mib = max(16, (rt["memory_mib"] * MIB - rt["heap_mib"] * MIB - rt["rt_budget_bytes"]) // MIB // 4)
    return {"BOARD": board.name, "GUEST_ROOT": GUEST_ROOT, "TMPFS_MIB": str(tmpfs_mib),
            "LOAD_MODULES": load_modules(modules),
            "JVM_ARGS": " ".join(guest_jvm_args(board)), "AGENT_ARGS": " ".join(agent)}


def ensure_initramfs(board: Board, busybox: Path = Path("/bin/busybox"), root: Path | None = None) -> Path:
    """The qemu cell's initramfs: its /init, its modules (state disk, input path) and the RT
    cell's root at GUEST_ROOT, assembled by image.py."""
    from .. import image
    return image.ensure_initramfs(init_script(board), GUEST_MODULES, GUEST_ROOT, busybox=busybox, root=root)


def init_script(board: Board) -> str:
    """The RT cell's /init, rendered from hypervisor-cells/qemu/init.sh.in."""
    template = (paths.hypervisor_cells_dir() / "qemu" / "init.sh.in").read_text(encoding="utf-8")
    values = guest_agent_values(board)
    values["AGENT_ARGS"] += f" --state-device {STATE_DEVICE}"
    values["STATE_DEVICE"] = STATE_DEVICE
    return re.sub(r"@([A-Z_]+)@", lambda m: values[m.group(1)], template)


def ensure_state_disk(disk: Path) -> None:
    """Creates the cell's state disk blank (zeros: no record yet) when there is none; an existing
    one is the cell's and is left alone."""
    if disk.exists():
        if not disk.is_file() or disk.stat().st_size < STATE_DISK_BYTES:
            raise BoardError(f"the RT cell's state disk {disk} is not a file of at least {STATE_DISK_BYTES} bytes; "
                             f"move it away to start the cell with a blank one (that forgets every version)")
        return
    disk.parent.mkdir(parents=True, exist_ok=True)
    with open(disk, "xb") as f:
        f.truncate(STATE_DISK_BYTES)


# ------------------------------------------------------------------ accel

def probe_kvm() -> tuple[bool, str]:
    """KVM counts as usable only if a `-cpu host` VM starts and keeps running for a moment
    (here `-cpu host` aborts on MSR 0x10a). Cached per boot under build/run/kvm-probe.json."""
    cache = paths.run_root() / "kvm-probe.json"
    boot_id = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    try:
        c = json.loads(cache.read_text())
        if c.get("boot_id") == boot_id:
            return c["usable"], c["reason"]
    except (OSError, ValueError, KeyError):
        pass
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        usable, reason = False, "/dev/kvm not accessible"
    else:
        p = subprocess.Popen(["qemu-system-x86_64", "-accel", "kvm", "-cpu", "host", "-nodefaults",
                              "-display", "none", "-machine", "pc", "-m", "16", "-no-reboot"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, err = p.communicate(timeout=1.5)
            first = (err.decode(errors="replace").strip().splitlines() or ["no message"])[0]
            usable, reason = False, "qemu -accel kvm -cpu host exits: " + first[:160]
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            usable, reason = True, "qemu -accel kvm -cpu host runs"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"boot_id": boot_id, "usable": usable, "reason": reason}))
    return usable, reason


def choose_accel(board: Board) -> tuple[str, str, str]:
    """(accel, qemu cpu model, why). `auto` is KVM only for a cell on the host's clock: a cell
    in virtual time needs TCG (icount), and the probe cannot vouch for a guest kernel (on a
    machine whose /dev/kvm passes it, nested KVM stopped Debian's RT kernel early in its boot
    with "KVM internal error ... emulation failure" on a `lock cmpxchg16b`)."""
    want = board.rt.get("accel", "auto")
    if want == "tcg":
        return "tcg", board.rt.get("cpu_model", "max"), "board asks for tcg"
    if want == "auto" and icount.is_virtual(board):
        return "tcg", board.rt.get("cpu_model", "max"), "the cell runs in virtual time, which needs TCG"
    usable, reason = probe_kvm()
    if usable:
        return "kvm", "host", reason
    if want == "kvm":
        raise BoardError(f"board {board.name} asks for KVM but it is not usable here: {reason}")
    return "tcg", board.rt.get("cpu_model", "max"), f"KVM not usable ({reason})"


# ------------------------------------------------------------------ boot snapshot

def _restore(launch: Launch, argv: list[str], accel: str):
    """Starts the VM from its boot snapshot (snapshot.boot_restored), keyed by its argv, kernel,
    initramfs and QEMU."""
    from .. import snapshot
    key = snapshot.key_for(argv, Path(launch.values["RT_KERNEL"]), Path(launch.values["RT_INITRD"]))
    directory = launch.values.get("RT_SNAPSHOT_DIR")
    snap = snapshot.snapshot_file(launch.board.name, accel, Path(directory) if directory else None)
    return snapshot.boot_restored(launch, argv, snap, key,
                                  VM_RUN_FILES, f"QEMU {accel.upper()}", "~30 s under TCG")
