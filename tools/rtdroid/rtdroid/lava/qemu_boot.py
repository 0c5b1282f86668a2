"""The RT cell booted by LAVA itself: LAVA's QEMU boot method (`boot: method: qemu`, lava_dispatcher
actions/boot/qemu.py) starting the board's own QEMU command line, as `rtdroid board render` shows it,
with the images the job deployed (`deploy: to: tmpfs`, their SHA-256 checked by LAVA): the kernel,
the initramfs and the blank state disk, each passed as its option (`image_arg`). LAVA owns that
QEMU: it starts it as a child of the dispatcher, keeps its console (the serial line, on QEMU's
stdio) in the job log, waits there for the agent's first line, fails the boot on a kernel panic
(LAVA's own kernel-message check), and stops it at the end of the job.

What differs from `rtdroid board up`'s command line, and why: the console is QEMU's stdio (LAVA's
connection) rather than a socket with a log file; the accelerator and CPU model are the board's
resolved ones (TCG in virtual time); `flock` on the board lock wraps it, as every run that boots a
board here; the region file is a device variable (each worker host names its own). The boot ends
at the agent's `awaiting the region` line: what runs on the RT cell after it needs the Android
cell and the region formatted by `rtdroid board up`, which owns the lifetime of the QEMU it boots
(tools/lab/README.md says why the suites run that way).

Only the qemu hypervisor's boards: a Xen board's machine boots a device tree that `board up`
writes per run from QEMU's own dump of the machine and the images' sizes.
"""
from __future__ import annotations

import json
import shlex

from ..boardconfig import Board
from ..render import render
from .images import Image

# Under golden/lava-qemu/: apart from the ssh devices, so the local lab (tools/lab/lab.sh) adds none.
SUBDIR = "lava-qemu"
PROMPT = "rtcell: runtime started; awaiting the region"  # the agent's first line (rt-cell/agent Main)
ARCH = "amd64"
BOARD_LOCK = "/var/lib/lava/dispatcher/rtdroid-board.lock"
# What LAVA waits for first, as the kernel's start (its `kernel-start-message`, by default the
# banner `Linux version [0-9]`): the board boots its kernel `quiet`, which silences the banner
# (LAVA then waits out the boot's timeout), so the /init's first line stands for it.
KERNEL_START = "RTCELL realtime="


def applies(board: Board) -> bool:
    return board.hypervisor == "qemu"


def device_type(board: Board) -> str:
    return f"rtdroid-{board.name}-lava-qemu"


def command_line(board: Board) -> list[str]:
    """The board's RT cell QEMU argv for LAVA: without the images (the job's image_args add them),
    the console on stdio, its values resolved; the region file is the template's variable."""
    rt = next(c for c in render(board)["cells"].values() if c["role"] == "rt")
    argv, out, i = rt["argv"], [], 0
    while i < len(argv):
        a = argv[i]
        if a in ("-kernel", "-initrd") or (a == "-drive" and "${RT_STATE}" in argv[i + 1]):
            i += 2
            continue
        if a == "-chardev" and argv[i + 1].startswith("socket,id=console"):
            out += ["-chardev", "stdio,id=console,signal=off"]
            i += 2
            continue
        if a == "-qmp":  # board up's handle on the cell (stop, snapshot, restore): LAVA has none
            i += 2
            continue
        out.append(a)
        i += 1
    values = {"${ACCEL}": "tcg", "${QEMU_CPU}": board.rt.get("cpu_model", "max"),
              board.rendered_region_path: "{{ rtdroid_region }}"}
    for k, v in values.items():
        out = [a.replace(k, v) for a in out]
    return out


def device_type_template(board: Board) -> str:
    argv = command_line(board)
    options = [shlex.quote(a) if "{{" not in a else a for a in argv]
    lines = "\n".join(f"          - {json.dumps(o)}" for o in ["{{ rtdroid_board_lock }}", *options])
    return (f"{{# device_type: {device_type(board)} #}}\n"
            f"{{# Device type for board {board.name}'s RT cell booted by LAVA's QEMU boot method, rendered by "
            f"`rtdroid lava render` from {board.source} #}}\n"
            "{% extends 'base.jinja2' %}\n"
            f"{{% set rtdroid_region = rtdroid_region|default('/dev/shm/rtdroid-lava-{board.name}.region') %}}\n"
            f"{{% set rtdroid_board_lock = rtdroid_board_lock|default('{BOARD_LOCK}') %}}\n"
            f"{{% set kernel_start_message = kernel_start_message|default('{KERNEL_START}') %}}\n"
            "{% block body %}\n"
            f"available_architectures:\n- {ARCH}\n"
            "actions:\n"
            "  deploy:\n"
            "    connections:\n"
            "      serial:\n"
            "    methods:\n"
            "      image:\n"
            "        parameters:\n"
            "          guest: {size: 64, interface: ide, driveid: lavatest}\n"
            "  boot:\n"
            "    connections:\n"
            "      serial:\n"
            "    methods:\n"
            "      qemu:\n"
            "        parameters:\n"
            "          # the board's own QEMU command line under the board lock (LAVA adds each deployed image)\n"
            "          command: flock\n"
            "          options:\n"
            f"{lines}\n"
            "{% endblock body %}\n")


def device_dictionary(board: Board, index: int = 1) -> str:
    return (f"{{# device_type: {device_type(board)} #}}\n"
            f"{{# Device {board.name}-lava-qemu-{index:02d}, rendered by `rtdroid lava render` from "
            f"{board.source} #}}\n"
            f"{{% extends '{device_type(board)}.jinja2' %}}\n"
            f"{{% set rtdroid_region = '/dev/shm/rtdroid-lava-{board.name}-{index:02d}.region' %}}\n")


def job_definition(board: Board, images: dict[str, Image], metadata: dict) -> dict:
    args = {"kernel": "-kernel {kernel}", "initrd": "-initrd {initrd}",
            "state": "-drive file={state},format=raw,if=none,id=state"}
    labels = {"vmlinux": "kernel", "bzImage": "kernel", "initrd.cpio": "initrd", "rt-state.img": "state"}
    return {
        "device_type": device_type(board),
        "job_name": f"rtdroid {board.name}: the RT cell booted by LAVA's QEMU boot method with the board's "
                    f"command line",
        "priority": "medium",
        "visibility": "public",
        "timeouts": {"job": {"minutes": 30}, "action": {"minutes": 20}, "connection": {"minutes": 2}},
        "context": {"arch": ARCH},
        "metadata": metadata,
        "actions": [
            {"deploy": {"to": "tmpfs", "timeout": {"minutes": 10},
                        "images": {labels[n]: {"url": i.url, "sha256sum": i.sha256, "image_arg": args[labels[n]]}
                                   for n, i in images.items()}}},
            # the cold boot under TCG (no boot snapshot: LAVA starts the machine), after the board lock
            {"boot": {"method": "qemu", "media": "tmpfs", "prompts": [PROMPT], "timeout": {"minutes": 20}}},
        ],
    }
