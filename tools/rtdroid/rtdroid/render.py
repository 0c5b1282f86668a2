"""Render a board into what its hypervisor runs: the exact argv of each cell (and, for qemu, the
RT cell's initramfs recipe and /init). Deterministic and machine-independent: machine-specific
values are placeholders (${RTDROID_HOME}, ${RUN_DIR}, ${JAVA_HOME}, ${ACCEL}, ${QEMU_CPU},
${RT_KERNEL}, ${RT_AGENT_LIB} = rt-cell/agent/target/dist/lib,
${ANDROID_CELL_DIST} = android-cell/target/dist) that `board up` resolves; an argv element "@file:PATH" splices PATH's lines
(one JVM argument per line) when the file exists.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from . import paths
from .boardconfig import MIB, Board

# Where the RT cell's root (Java runtime, agent jars, deploy key) sits in the guest. It travels
# inside the initramfs rather than over a 9p share: QEMU refuses to migrate (snapshot) a VM with a
# mounted 9p export, and the boot snapshot is what brings the TCG cell up in seconds.
GUEST_ROOT = "/rt"
RT_AGENT_MAIN = "org.rtdroid.rtcell.agent.Main"
ANDROID_CELL_MAIN = "org.rtdroid.android.cell.Main"
ANDROID_TMP_DIR = "android-tmp"

# Fixed heap, pre-touched, generational ZGC (the only ZGC mode since JDK 24, so no -XX:+ZGenerational):
# FEASIBILITY.md measured ZGC keeping a 1 ms periodic thread's max lateness at C's level.
#
# The trap limits of 0 make C2 compile every branch of a method, taken yet or not, instead of
# speculating with uncommon traps. A trap deoptimises the method, and a real-time thread then runs
# it interpreted while the JIT compilers, SCHED_OTHER on the same CPUs, cannot run to recompile
# it: measured on the host board, the cochlear ProcessingTask at SCHED_FIFO 89 took 100% of its
# CPU for 0.94 s after the first configuration with noise reduction on took a branch it had never
# taken, until RT throttling let C2 in. This costs some peak speed, not predictability.
RT_JIT_ARGS = ["-XX:PerMethodTrapLimit=0", "-XX:PerBytecodeTrapLimit=0", "-XX:-UseTypeSpeculation"]

# No hsperfdata: by default the JVM keeps its performance counters in a file it maps from
# /tmp/hsperfdata_<user>, and its own threads (at safepoints too) write to it. When the disk is busy
# (every Android cell start writes Robolectric's ~200 MiB native runtime, flushed up to 30 s
# later), a write to a mapped file page can block in the kernel, and the threads waiting on that
# JVM thread with it: a known source of second-long JVM pauses. The RT cell needs no jstat/jps.
# bench/run.sh passes both lists too, so the benchmarks measure the cell's JVM.
RT_PERF_ARGS = ["-XX:-UsePerfData"]


def rt_jvm_args(heap_mib: int) -> list[str]:
    return (["--enable-native-access=ALL-UNNAMED", "-XX:+UseZGC",
             f"-Xms{heap_mib}m", f"-Xmx{heap_mib}m", "-XX:+AlwaysPreTouch"] + RT_JIT_ARGS + RT_PERF_ARGS)


def cpu_list(cpus: list[int]) -> str:
    return ",".join(str(c) for c in sorted(cpus))


def _android_argv(board: Board) -> list[str]:
    a = board.android
    return ["taskset", "-c", cpu_list(a["cpus"]),
            "${JAVA_HOME}/bin/java",
            "@file:${ANDROID_CELL_DIST}/jvm.args",
            # Its own temp dir, emptied at every start and removed by `board down`: Robolectric
            # extracts its ~200 MiB native runtime into a new temp dir on every start and never
            # deletes it (a killed cell cannot), which filled /tmp.
            "-Djava.io.tmpdir=${RUN_DIR}/" + ANDROID_TMP_DIR,
            "-cp", "${ANDROID_CELL_DIST}/lib/*",
            ANDROID_CELL_MAIN,
            "--region", str(board.region_path),
            "--control-port", str(board.control_port)]


def _render_process(board: Board) -> dict:
    rt = board.rt
    rt_argv = (["taskset", "-c", cpu_list(rt["cpus"]), "${JAVA_HOME}/bin/java"]
               + rt_jvm_args(rt["heap_mib"])
               + ["-cp", "${RT_AGENT_LIB}/*", RT_AGENT_MAIN,
                  "--region", str(board.region_path),
                  "--deploy-key", "${RTDROID_HOME}/build/keys/deploy.pub",
                  "--cpus", cpu_list(rt["cpus"]),
                  "--budget-bytes", str(rt["rt_budget_bytes"])])
    return {"cells": {
        rt["name"]: {"role": "rt", "argv": rt_argv, "ready_line": "RTCELL READY", "log": "rt.log"},
        board.android["name"]: {"role": "android", "argv": _android_argv(board),
                                "ready_line": "ANDROID CELL READY", "log": "android.log"},
    }}


def qemu_rt_jvm_args(board: Board) -> list[str]:
    """The guest JVM's flags (temporary files on the tmpfs)."""
    return rt_jvm_args(board.rt["heap_mib"]) + ["-Djava.io.tmpdir=/tmp"]


def qemu_init_script(board: Board) -> str:
    rt = board.rt
    template = (paths.hypervisor_cells_dir() / "qemu" / "init.sh.in").read_text(encoding="utf-8")
    # Inside the VM the cell's CPUs are its vCPUs 0..n-1; the host pins the VM to rt["cpus"].
    guest_cpus = cpu_list(list(range(rt.get("vcpus", 1))))
    jvm = qemu_rt_jvm_args(board)
    agent = ["--deploy-key", f"{GUEST_ROOT}/keys/deploy.pub", "--cpus", guest_cpus,
             "--budget-bytes", str(rt["rt_budget_bytes"]), "--await-region"]
    tmpfs_mib = max(16, (rt["memory_mib"] * MIB - rt["heap_mib"] * MIB - rt["rt_budget_bytes"]) // MIB // 4)
    values = {"BOARD": board.name, "GUEST_ROOT": GUEST_ROOT, "TMPFS_MIB": str(tmpfs_mib), "JVM_ARGS": " ".join(jvm), "AGENT_ARGS": " ".join(agent)}
    out = re.sub(r"@([A-Z_]+)@", lambda m: values[m.group(1)], template)
    return out


def qemu_backing_size(board: Board) -> int:
    return board.region["size_bytes"]


def _render_qemu(board: Board) -> dict:
    rt, region = board.rt, board.region
    rt_argv = ["taskset", "-c", cpu_list(rt["cpus"]),
               "qemu-system-x86_64",
               "-name", f"rtdroid-{board.name}-{rt['name']}",
               "-nodefaults", "-no-user-config", "-no-reboot",
               "-machine", "pc", "-accel", "${ACCEL}", "-cpu", "${QEMU_CPU}",
               "-smp", str(rt.get("vcpus", 1)), "-m", str(rt["memory_mib"]),
               "-display", "none", "-vga", "none", "-nic", "none",
               "-kernel", "${RT_KERNEL}",
               "-initrd", "${RTDROID_HOME}/build/rt-cell/initrd.cpio",
               "-append", board.data["tuning"]["rt_cmdline"],
               "-chardev", "socket,id=console,path=${RUN_DIR}/console.sock,server=on,wait=off,"
                           "logfile=${RUN_DIR}/console.log",
               "-serial", "chardev:console",
               "-object", f"memory-backend-file,id=shm,share=on,mem-path={board.region_path},"
                          f"size={qemu_backing_size(board)}",
               # master=on: this side owns the region in a migration (the boot snapshot); in
               # peer mode QEMU refuses to migrate at all.
               "-device", "ivshmem-plain,memdev=shm,master=on",
               # QMP: the board tooling stops, snapshots and restores the cell through it.
               "-qmp", "unix:${RUN_DIR}/qmp.sock,server=on,wait=off"]
    return {
        "cells": {
            rt["name"]: {"role": "rt", "argv": rt_argv, "ready_line": "RTCELL READY",
                         "log": "rt.log", "console": "console.log"},
            board.android["name"]: {"role": "android", "argv": _android_argv(board),
                                    "ready_line": "ANDROID CELL READY", "log": "android.log"},
        },
        "rt_image": {
            "kernel_package": "linux-image-rt-amd64",
            "kernel": "${RTDROID_HOME}/build/rt-cell/vmlinux (ELF for PVH boot, else the vmlinuz)",
            "initramfs": {
                "path": "${RTDROID_HOME}/build/rt-cell/initrd.cpio (uncompressed newc cpio)",
                "busybox": "/bin/busybox (busybox-static)",
                "init": f"hypervisor-cells/qemu/golden/{board.name}.init",
                "root": {
                    "built_in": "${RTDROID_HOME}/build/rt-cell/root",
                    "guest_path": GUEST_ROOT,
                    "contents": ["jdk/ (jlink'ed Java 25 runtime)", "glibc/ (the libraries that runtime links)",
                                 "lib/ (RT cell agent jars)", "keys/deploy.pub"],
                },
            },
            "boot": rt.get("boot", "cold"),
            "snapshot": "${RTDROID_HOME}/build/rt-cell/snapshot-<board>-<accel>.zst (QEMU migration stream)",
        },
    }


def render(board: Board) -> dict:
    region = board.region
    out = {
        "board": board.name,
        "hypervisor": board.hypervisor,
        "source": board.source,
        "region": {
            "path": str(board.region_path),
            "file_bytes": region["size_bytes"],
            "formatted_bytes": board.region_formatted_bytes,
            "rings": region["rings"], "slots": region["slots"], "slot_bytes": region["slot_bytes"],
        },
        "control_port": board.control_port,
    }
    out.update(_render_qemu(board) if board.hypervisor == "qemu" else _render_process(board))
    return out


def rendered_files(board: Board) -> dict[str, str]:
    """File name (relative to hypervisor-cells/<hv>/golden/) -> content."""
    files = {f"{board.name}.json": json.dumps(render(board), indent=2, sort_keys=True) + "\n"}
    if board.hypervisor == "qemu":
        files[f"{board.name}.init"] = qemu_init_script(board)
    return files


def golden_dir(board: Board) -> Path:
    return paths.hypervisor_cells_dir() / board.hypervisor / "golden"


def compare_with_golden(board: Board) -> list[str]:
    """Names of golden files that are missing or differ from a fresh rendering."""
    bad = []
    for name, text in rendered_files(board).items():
        p = golden_dir(board) / name
        if not p.is_file() or p.read_text(encoding="utf-8") != text:
            bad.append(str(p))
    return bad


def write_golden(board: Board) -> list[Path]:
    out = []
    for name, text in rendered_files(board).items():
        p = golden_dir(board) / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        out.append(p)
    return out


_PLACEHOLDER = re.compile(r"\$\{([A-Z_]+)\}")


def resolve_argv(argv: list[str], values: dict[str, str]) -> list[str]:
    """Substitute placeholders; splice '@file:PATH' elements (missing file: nothing)."""
    out: list[str] = []
    for a in argv:
        a = _PLACEHOLDER.sub(lambda m: values[m.group(1)], a)
        if a.startswith("@file:"):
            p = Path(a[len("@file:"):])
            if p.is_file():
                out.extend(line.strip() for line in p.read_text(encoding="utf-8").splitlines()
                           if line.strip() and not line.lstrip().startswith("#"))
            continue
        out.append(a)
    return out
