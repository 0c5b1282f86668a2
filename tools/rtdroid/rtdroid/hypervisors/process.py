"""The `process` hypervisor (host board): the RT cell is a JVM on the host, partitioned by CPU
affinity alone: its real-time threads pin themselves to the cell's CPUs (`--cpus`), while the JVM
process may use all of the board's CPUs, so that the JVM's own SCHED_OTHER threads (JIT compilers,
GC, VM thread) are not stuck behind a real-time thread on the cell's CPU. Golden rendering:
hypervisor-cells/process/golden/."""
from __future__ import annotations

from pathlib import Path

from .. import paths, probes
from ..errors import BoardError
from ..render import RT_AGENT_MAIN, cpu_list, resolve_argv, rt_jvm_args
from .base import Hypervisor, Launch, Problem

RT_STATE_DIR = "rt-state"
_VM_KEYS = ("kernel", "accel", "cpu_model", "vcpus", "boot", "clock")


class Process(Hypervisor):
    name = "process"

    def check(self, data: dict) -> list[Problem]:
        probs: list[Problem] = []
        for i, c in enumerate(data["cells"]):
            if c["role"] != "rt":
                continue
            for key in _VM_KEYS:
                if key in c:
                    probs.append((f"cells[{i}].{key}", c[key],
                                  "only a qemu board's RT cell boots a VM; a process board has no " + key))
        for k, dev in enumerate(data.get("devices", [])):
            if dev["type"] == "ivshmem-plain":
                probs.append((f"devices[{k}].type", dev["type"], "ivshmem devices exist only on qemu boards"))
        cmdline = data["tuning"]["rt_cmdline"]
        if cmdline.strip():
            probs.append(("tuning.rt_cmdline", cmdline, "a process board boots no kernel: leave it empty"))
        return probs

    def render_rt(self, board) -> dict:
        rt = board.rt
        # The whole board's CPUs for the process, the cell's for its real-time threads. A
        # real-time thread can wait on one of the JVM's own threads without blocking: traced, a
        # cochlear task looped 930 ms in HotSpot's handle_wrong_method while the thread making
        # the called method not entrant sat preempted on the same CPU, until Linux's RT throttle
        # (docs/rtdroid-runtime.md, "The JVM's own threads"). On another CPU that thread runs on.
        argv = (["taskset", "-c", cpu_list(board.data["cpus"]), "${JAVA_HOME}/bin/java"]
                + rt_jvm_args(rt["heap_mib"])
                + ["-cp", "${RT_AGENT_LIB}/*", RT_AGENT_MAIN,
                   "--region", board.rendered_region_path,
                   "--deploy-key", "${RTDROID_HOME}/build/keys/deploy.pub",
                   "--cpus", cpu_list(rt["cpus"]),
                   "--budget-bytes", str(rt["rt_budget_bytes"]),
                   # The cell's own state (the version deployed last per application): kept in the
                   # board's run directory, which `board restart rt`, `down` and `up` leave alone.
                   "--state-dir", "${RUN_DIR}/" + RT_STATE_DIR,
                   # the characterisation probes (rtdroid characterise), built for this machine
                   "--probes", "${RTDROID_HOME}/build/probes/" + probes.host_arch()])
        return {"role": "rt", "argv": argv, "ready_line": "RTCELL READY", "log": "rt.log"}

    def prepare(self, board, start_rt: bool, progress) -> dict[str, str]:
        lib = paths.rt_agent_lib_dir()
        probes.cell_dir(probes.host_arch())
        if start_rt and not any(lib.glob("*.jar")):
            raise BoardError(f"RT cell agent not built: no jars in {lib} "
                             "(run `mvn -B -q install` from the repository root, JAVA_HOME=temurin-25)")
        return {}

    def start(self, launch: Launch):
        p = launch.start_process(resolve_argv(launch.argv, launch.values), launch.run / "rt.log")
        return p, (f"RT cell agent, pid {p.pid}, real-time threads on CPUs {launch.board.rt['cpus']}, "
                   f"the JVM's own threads on {launch.board.data['cpus']}")

    def ready_file(self, run: Path, rendered: dict) -> Path:
        return run / rendered["log"]
