"""The RT cell booted by LAVA's QEMU boot method (rtdroid.lava.qemu_boot): its device type starts the
board's own QEMU command line, the one `rtdroid board up` starts, but for what LAVA owns (the
console on its stdio, the deployed images as image_args, no QMP) and under the board lock."""
from __future__ import annotations

import shlex

import yaml

from rtdroid import boardconfig as bc
from rtdroid.lava import qemu_boot, render
from rtdroid.render import render as render_board


def test_lavas_qemu_command_line_is_the_boards_but_for_what_lava_owns():
    board = bc.load_board("qemu-x86_64")
    ours = next(c for c in render_board(board)["cells"].values() if c["role"] == "rt")["argv"]
    lavas = qemu_boot.command_line(board)
    dropped = [a for a in ours if a not in lavas]
    assert dropped == ["${ACCEL}", "${QEMU_CPU}", "-kernel", "${RT_KERNEL}", "-initrd", "${RT_INITRD}",
                       "socket,id=console,path=${RUN_DIR}/console.sock,server=on,wait=off,"
                       "logfile=${RUN_DIR}/console.log",
                       board.rendered_region_path.join(["memory-backend-file,id=shm,share=on,mem-path=",
                                                        ",size=4194304"]),
                       "-drive", "file=${RT_STATE},format=raw,if=none,id=state",
                       "-qmp", "unix:${RUN_DIR}/qmp.sock,server=on,wait=off"]
    assert [a for a in lavas if a not in ours] == [
        "tcg", "max", "stdio,id=console,signal=off",
        "memory-backend-file,id=shm,share=on,mem-path={{ rtdroid_region }},size=4194304"]
    assert lavas[:4] == ["taskset", "-c", "1", "qemu-system-x86_64"] and "shift=0,sleep=off" in lavas


def test_the_job_deploys_the_images_as_the_command_lines_arguments_and_waits_for_the_agent():
    board = bc.load_board("qemu-x86_64")
    files = render.rendered_files(board)
    job = yaml.safe_load(files["lava-qemu/jobs/qemu-x86_64.yaml"])
    deploy, boot = (a[k] for a in job["actions"] for k in a)
    assert deploy["to"] == "tmpfs" and {k: v["image_arg"] for k, v in deploy["images"].items()} == {
        "kernel": "-kernel {kernel}", "initrd": "-initrd {initrd}",
        "state": "-drive file={state},format=raw,if=none,id=state"}
    assert all(v["sha256sum"] for v in deploy["images"].values())
    assert boot["method"] == "qemu" and boot["prompts"] == ["rtcell: runtime started; awaiting the region"]
    template = files["lava-qemu/device-types/rtdroid-qemu-x86_64-lava-qemu.jinja2"]
    options = [yaml.safe_load(line.strip()[2:]) for line in template.splitlines() if line.startswith("          - ")]
    assert options[0] == "{{ rtdroid_board_lock }}"  # flock LOCK taskset ... qemu-system-x86_64 ...
    # LAVA joins command and options with spaces and splits them as a shell would
    region = "/dev/shm/rtdroid-lava-x.region"  # the device's value
    assert shlex.split(" ".join(options[1:]).replace("{{ rtdroid_region }}", region)) == \
        [a.replace("{{ rtdroid_region }}", region) for a in qemu_boot.command_line(board)]
    assert "lava-qemu/devices/qemu-x86_64-lava-qemu-01.jinja2" in files
    # the kernel boots quiet (no `Linux version` banner for LAVA to wait for): /init's first line stands for it
    assert "quiet" in board.data["tuning"]["rt_cmdline"].split()
    assert "{% set kernel_start_message = kernel_start_message|default('RTCELL realtime=') %}" in template


def test_only_the_qemu_boards_get_one():
    for name in ("host", "qemu-arm64-xen", "jailhouse-rpi4"):
        assert not any(p.startswith("lava-qemu/") for p in render.rendered_files(bc.load_board(name)))
