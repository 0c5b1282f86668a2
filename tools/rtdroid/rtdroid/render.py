"""Render a board into what its hypervisor runs: the region, the exact argv of each cell and
whatever the board's hypervisor module adds (hypervisors/<name>.py: for qemu, the RT cell's
initramfs recipe and /init). The Android cell is the same on every board: a pinned host JVM. Deterministic and machine-independent: machine-specific
values are placeholders (${RTDROID_HOME}, ${RUN_DIR}, ${JAVA_HOME}, ${ACCEL}, ${QEMU_CPU},
${RT_KERNEL}, ${RT_AGENT_LIB} = rt-cell/agent/target/dist/lib,
${ANDROID_CELL_DIST} = android-cell/target/dist) that `board up` resolves; an argv element "@file:PATH" splices PATH's lines
(one JVM argument per line) when the file exists.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from . import adb, hypervisors, paths
from .boardconfig import Board

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
# bench/run.sh passes these lists and RT_GC_ARGS too, so the benchmarks measure the cell's JVM
# (tools/rtdroid/tests/test_render.py holds them equal).
RT_PERF_ARGS = ["-XX:-UsePerfData"]


# The JVM's own threads (VM thread, ZGC's director, drivers and workers, JIT compilers) at nice
# -10: above the cell's ordinary (SCHED_OTHER, nice 0) Java threads, below every SCHED_FIFO one.
# HotSpot maps Java priority 9 (NearMaxPriority, which it gives those threads) to this nice value
# only under ThreadPriorityPolicy=1; ordinary Java threads (priority 5) stay at nice 0. A
# safepoint (every ZGC pause is one) ends only when the VM thread has run, and a real-time thread
# returning from poll(2) or park during one waits for that end: at nice 0 the VM thread got 1/31
# of a CPU shared with 30 allocating threads, and the sensor benchmark's listener waited up to
# milliseconds (p99 15.7x the unloaded one). Fiji VM's real-time collector is placed the same way
# (below the real-time threads, above the rest). Not SCHED_FIFO: the VM thread waits for ordinary
# threads to reach the safepoint, which a SCHED_FIFO VM thread would keep off its CPU. Needs root
# (CAP_SYS_NICE); without it the JVM warns once and its threads stay at nice 0. Lifting the VM
# thread alone (-XX:JavaPriority9_To_OSPriority=0 -XX:VMThreadPriority=-10: ZGC's threads at 0) was
# no better: sensor benchmark, 30 memory-noise threads, p99 28.8x the unloaded one against 20.4x,
# p99.9 28.6 ms against 8.2 ms (one --quick run each, 2026-11-24).
#
# The JIT compilers stay at nice 0 (CompilerThreadPriority is a nice value under this policy), with
# the ordinary threads whose code they compile. At nice -10 they starved those threads while they
# held the JVM's compile-queue lock, which a real-time thread also takes when a method it runs
# reaches a compile threshold, and that lock has no priority inheritance: traced in the
# qemu-x86_64 cell (virtual time), the cochlear ProcessingTask (SCHED_FIFO 89) blocked 0.1 ms into
# a release behind the agent's main thread (nice 0, preempted while queueing compilations) and
# waited 3.8 ms while C2 (nice -10) had the CPU: responses of 5-9 ms against the 8 ms deadline
# while the apps warm up; 2.6 ms at most with the compilers at nice 0 (docs/rtdroid-runtime.md).
RT_JVM_NICE = -10
RT_COMPILER_NICE = 0
RT_GC_ARGS = ["-XX:ThreadPriorityPolicy=1", f"-XX:JavaPriority9_To_OSPriority={RT_JVM_NICE}",
              f"-XX:CompilerThreadPriority={RT_COMPILER_NICE}"]


# A safepoint that has waited 200 ms for a thread makes the VM print, once per VM, the threads that
# have not reached it (the cell's console): the thread that held every other Java thread names
# itself. Nothing is printed, and nothing costs, while safepoints are reached in time.
RT_DIAG_ARGS = ["-XX:+SafepointTimeout", "-XX:SafepointTimeoutDelay=200"]


def rt_jvm_args(heap_mib: int) -> list[str]:
    return (["--enable-native-access=ALL-UNNAMED", "-XX:+UseZGC",
             f"-Xms{heap_mib}m", f"-Xmx{heap_mib}m", "-XX:+AlwaysPreTouch"]
            + RT_GC_ARGS + RT_JIT_ARGS + RT_PERF_ARGS + RT_DIAG_ARGS)


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
            "--region", board.rendered_region_path,
            "--control-port", str(board.control_port),
            # adb's device side; the keys file is the board's (`board up` writes the user's key)
            "--adb-port", str(board.adb_port), "--adb-keys", "${RUN_DIR}/" + adb.KEYS_FILE,
            # the region spec's peer_timeout (default 1 s), when the board sets its own
            *(["--peer-timeout-ms", str(a["peer_timeout_ms"])] if "peer_timeout_ms" in a else []),
            # its real-time broadcast path at SCHED_OTHER, when the board says so
            *(["--realtime-threads", "off"] if a.get("realtime_threads") is False else []),
            # the apps that run each in a process of its own, under its own uid
            # ("all": every app, as on Android)
            *[arg for pkg in _app_processes(a) for arg in ("--app-process", pkg)]]


def _app_processes(android: dict) -> list:
    apps = android.get("app_processes", [])
    return [apps] if apps == "all" else apps


def render(board: Board) -> dict:
    region = board.region
    out = {
        "board": board.name,
        "hypervisor": board.hypervisor,
        "source": board.source,
        "region": {
            "path": board.rendered_region_path,
            "file_bytes": region["size_bytes"],
            "formatted_bytes": board.region_formatted_bytes,
            "rings": region["rings"], "slots": region["slots"], "slot_bytes": region["slot_bytes"],
        },
        "control_port": board.control_port,
        "adb_port": board.adb_port,
    }
    hv = hypervisors.get(board.hypervisor)
    out["cells"] = {
        board.rt["name"]: hv.render_rt(board),
        board.android["name"]: {"role": "android", "argv": _android_argv(board),
                                "ready_line": "ANDROID CELL READY", "log": "android.log"},
    }
    out.update(hv.render_extra(board))
    return out


def rendered_files(board: Board) -> dict[str, str]:
    """File name (relative to hypervisor-cells/<hv>/golden/) -> content."""
    files = {f"{board.name}.json": json.dumps(render(board), indent=2, sort_keys=True) + "\n"}
    files.update(hypervisors.get(board.hypervisor).golden_files(board))
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
    return write_rendered(board, golden_dir(board))


def rendered_dir(board: Board) -> Path:
    """Where `rtdroid board render --write` puts a board's rendering: build/render/<board>/."""
    return paths.build_dir() / "render" / board.name


def write_rendered(board: Board, directory: Path) -> list[Path]:
    out = []
    for name, text in rendered_files(board).items():
        p = directory / name
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
