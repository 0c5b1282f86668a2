"""Every rendered job and health check is one LAVA accepts (`make test-lab`; needs Debian's LAVA
packages, not a running lab): LAVA's job schema, which the server applies at submission, and the
dispatcher's own validation (`lava-run --validate`) of each board's job on its device, the
device dictionary rendered through LAVA's device-type templates as the server renders it:
for the real board (jailhouse-rpi4) LAVA's `bcm2711-rpi-4-b`, whose u-boot boot and TFTP/NFS
deploy the job uses. The golden files are the rendering (tools/rtdroid/tests/test_lava.py); their
placeholder artifact URLs point at stand-in files here (the dispatcher checks that each exists)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from rtdroid.lava import render

GOLDEN = render.golden_dir()
RTDROID = Path(sys.executable).parent / "rtdroid"
BOARDS = sorted(p.stem for p in (GOLDEN / "jobs").glob("*.yaml"))
LAVA_QEMU = GOLDEN / "lava-qemu"  # the RT cell booted by LAVA's QEMU boot method (rtdroid.lava.qemu_boot)


def _validate(*args) -> subprocess.CompletedProcess:
    return subprocess.run([str(RTDROID), "lava", "validate", *map(str, args)], capture_output=True, text=True,
                          timeout=600)


def _local_job(board: str, tmp: Path, under: Path = GOLDEN) -> Path:
    """The board's golden job, its artifact URLs pointing at stand-in files in tmp."""
    text = (under / "jobs" / f"{board}.yaml").read_text()
    base = f"https://artifacts.example.org/rtdroid/{board}"
    for name in set(re.findall(re.escape(base) + r"/([^\s'\"]+)", text)):
        (tmp / name).write_bytes(b"")
    if (tmp / "rootfs.tar.xz").exists():  # the dispatcher opens the NFS root's archive
        subprocess.run(["tar", "cJf", str(tmp / "rootfs.tar.xz"), "-C", str(tmp), "--files-from", "/dev/null"],
                       check=True)
    job = tmp / "job.yaml"
    job.write_text(text.replace(base, f"file://{tmp}"))
    return job


def test_every_rendered_job_and_health_check_passes_lavas_schema():
    files = sorted((GOLDEN / "jobs").glob("*.yaml")) + sorted((GOLDEN / "health-checks").glob("*.yaml")) \
        + sorted((GOLDEN / LAVA_QEMU / "jobs").glob("*.yaml"))
    p = _validate(*files)
    assert p.returncode == 0 and p.stdout.count("ok ") == len(files), p.stdout + p.stderr


@pytest.mark.parametrize("board", BOARDS)
def test_the_dispatcher_validates_each_boards_job_on_its_device(board, tmp_path):
    p = _validate("--device", GOLDEN / "devices" / f"{board}-01.jinja2", "--templates", GOLDEN / "device-types",
                  _local_job(board, tmp_path))
    assert p.returncode == 0, p.stdout + p.stderr
    if board == "jailhouse-rpi4":  # LAVA's own device type for the hardware: u-boot over TFTP with an NFS root
        assert "bcm2711-rpi-4-b" in (GOLDEN / "devices" / f"{board}-01.jinja2").read_text()


def test_the_dispatcher_validates_the_rt_cell_booted_by_lavas_qemu_boot_method(tmp_path):
    # LAVA's pipeline for it: the tmpfs deploy of kernel, initramfs and state disk, each an image_arg
    # of the board's QEMU command line, which the dispatcher starts and watches for the agent's line
    p = _validate("--device", LAVA_QEMU / "devices" / "qemu-x86_64-lava-qemu-01.jinja2",
                  "--templates", LAVA_QEMU / "device-types", _local_job("qemu-x86_64", tmp_path, LAVA_QEMU))
    assert p.returncode == 0, p.stdout + p.stderr


def test_what_lava_refuses_is_reported(tmp_path):
    # the checks can fail: an action timeout over the job's (what the server refuses at submission),
    # and a job whose kernel is not where it says (what the dispatcher refuses)
    job = _local_job("jailhouse-rpi4", tmp_path)
    over = tmp_path / "over.yaml"
    over.write_text(job.read_text().replace("action:\n    minutes: 20", "action:\n    minutes: 40"))
    (tmp_path / "Image").unlink()
    p = _validate("--device", GOLDEN / "devices" / "jailhouse-rpi4-01.jinja2", job, over)
    assert p.returncode == 1
    assert re.search(r"^invalid .*job.yaml: .*Image file '.*/Image' does not exist", p.stdout, re.M), p.stdout
    assert re.search(r"^invalid .*over.yaml: .*Global timeout is larger than job timeout", p.stdout, re.M), p.stdout
