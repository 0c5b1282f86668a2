"""A LAVA job deploys the images its board boots (the kernel and initramfs of qemu-x86_64's RT
cell, and a blank state disk for the cell's own storage), with their SHA-256, from the lab's own location, and every suite boots the board from
LAVA's copies (rtdroid.lava.images, `board up --images`)."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml

from rtdroid import boardconfig as bc
from rtdroid import hypervisors
from rtdroid.errors import BoardError
from rtdroid.lava import images, render
from rtdroid.progress import Progress


def _golden_job(name: str) -> dict:
    return yaml.safe_load(render.rendered_files(bc.load_board(name))[f"jobs/{name}.yaml"])


def test_qemu_x86_64s_job_deploys_its_images_with_checksums_and_boots_the_board_from_them():
    job = _golden_job("qemu-x86_64")
    first, deploy, boot, test = job["actions"]
    d = first["deploy"]
    assert d["to"] == "downloads" and d["namespace"] == images.NAMESPACE
    assert d["images"] == {
        "vmlinux": {"url": "https://artifacts.example.org/rtdroid/qemu-x86_64/vmlinux", "sha256sum": "SHA256-VMLINUX"},
        "initrd": {"url": "https://artifacts.example.org/rtdroid/qemu-x86_64/initrd.cpio", "sha256sum": "SHA256-INITRD"},
        "rt-state": {"url": "https://artifacts.example.org/rtdroid/qemu-x86_64/rt-state.img",
                     "sha256sum": "SHA256-RT-STATE"}}
    # the test shell's: every action names its namespace (LAVA refuses a job that names only some)
    assert deploy["deploy"]["to"] == "ssh"
    assert [a[k]["namespace"] for a in (deploy, boot, test) for k in a] == [render.ROOT_SIDE_NAMESPACE] * 3
    for definition in test["test"]["definitions"][1:]:
        step = definition["repository"]["run"]["steps"][-1]
        assert f"--images {images.DOWNLOADS}" in step, step
    assert images.DOWNLOADS == '"/var/lib/lava/dispatcher/tmp/$LAVA_JOB_ID/downloads/images"'


def test_a_xen_boards_job_deploys_xen_the_kernel_and_each_domus_initramfs():
    job = _golden_job("qemu-arm64-xen-smp")
    names = list(job["actions"][0]["deploy"]["images"])
    assert names[:3] == ["xen", "vmlinuz", "rt"] and names[-1] == "rt-state"
    assert len(names) == 3 + len(xen_domains("qemu-arm64-xen-smp"))
    assert f"--images {images.DOWNLOADS}" in yaml.safe_dump(job["actions"][-1], width=1000)


def xen_domains(name):
    from rtdroid.hypervisors import xen
    return xen.domains(bc.load_board(name))


@pytest.mark.parametrize("name", ["host", "jailhouse-rpi4"])
def test_boards_whose_rt_cell_boots_no_deployable_image_deploy_none(name):
    job = _golden_job(name)
    assert not any(a.get("deploy", {}).get("to") == "downloads" for a in job["actions"])
    assert "--images" not in yaml.safe_dump(job)


def test_a_health_check_deploys_nothing_it_runs_on_whatever_the_root_side_has():
    hc = render.health_check(bc.load_board("qemu-x86_64"))
    assert [list(a) for a in hc["actions"]] == [["deploy"], ["boot"], ["test"]]
    assert "--images" not in yaml.safe_dump(hc)


def test_publish_copies_the_built_images_and_names_their_sha256(tmp_path, monkeypatch):
    built = tmp_path / "build"
    built.mkdir()
    (built / "vmlinux").write_bytes(b"kernel" * 100)
    (built / "initrd.cpio").write_bytes(b"initramfs" * 100)
    monkeypatch.setattr(hypervisors.get("qemu"), "images",
                        lambda board, progress: {n: built / n for n in ("vmlinux", "initrd.cpio")})
    board = bc.load_board("qemu-x86_64")
    got = images.publish(board, tmp_path / "lab", out=lambda line: None)
    for name in ("vmlinux", "initrd.cpio"):
        copy = tmp_path / "lab" / "qemu-x86_64" / name
        assert copy.read_bytes() == (built / name).read_bytes()
        assert got[name] == images.Image(copy.resolve().as_uri(), hashlib.sha256(copy.read_bytes()).hexdigest())
    before = (tmp_path / "lab" / "qemu-x86_64" / "vmlinux").stat().st_mtime_ns
    assert images.publish(board, tmp_path / "lab", out=lambda line: None) == got
    assert (tmp_path / "lab" / "qemu-x86_64" / "vmlinux").stat().st_mtime_ns == before  # unchanged: not copied again
    job = render.job_definition(board, images=got)
    assert job["actions"][0]["deploy"]["images"]["initrd"] == {"url": got["initrd.cpio"].url,
                                                              "sha256sum": got["initrd.cpio"].sha256}


# Each hypervisor's deployed files, in the order board up asks for them: what it says while one is
# missing, then the files written; last, the variables its templates boot them with (the snapshot
# kept beside them).
@pytest.mark.parametrize("hv, board, steps, values", [
    ("qemu", "qemu-x86_64", [("no kernel", {"vmlinux": 1}), ("no initrd.cpio", {"initrd.cpio": 1})],
     lambda d: {"RT_KERNEL": str(d / "vmlinux"), "RT_INITRD": str(d / "initrd.cpio"), "RT_SNAPSHOT_DIR": str(d)}),
    ("xen", "qemu-arm64-xen", [("no xen, vmlinuz, rt.cpio", {"xen": 10, "vmlinuz": 300, "rt.cpio": 4000})],
     lambda d: {"XEN": str(d / "xen"),
                "XEN_RT_KERNEL": str(d / "vmlinuz"), "XEN_RT_KERNEL_BYTES": hex(300),
                "XEN_RT_INITRD": str(d / "rt.cpio"), "XEN_RT_INITRD_BYTES": hex(4000),
                "RT_SNAPSHOT_DIR": str(d)}),
])
def test_board_up_images_boots_the_deployed_copies_once_all_are_there(tmp_path, hv, board, steps, values):
    hypervisor, config, progress = hypervisors.get(hv), bc.load_board(board), Progress(1, lambda line: None)
    for missing, files in steps:
        with pytest.raises(BoardError, match=missing):
            hypervisor.prepare_from(config, tmp_path, progress)
        for name, size in files.items():
            (tmp_path / name).write_bytes(b"x" * size)
    assert hypervisor.prepare_from(config, tmp_path, progress) == values(tmp_path)
    # no state image deployed: the run directory's; one deployed: the cell runs on it
    size = {"qemu": 131072, "xen": 2 * 1024 * 1024}[hv]
    (tmp_path / "rt-state.img").write_bytes(bytes(size))
    assert hypervisor.prepare_from(config, tmp_path, progress) == dict(values(tmp_path),
                                                                       RT_STATE=str(tmp_path / "rt-state.img"))


@pytest.mark.parametrize("name, size, arg", [("qemu-x86_64", 131072, "file={}/rt-state.img,format=raw"),
                                             ("qemu-arm64-xen", 2 * 1024 * 1024, "mem-path={}/rt-state.img,share=on")])
def test_the_cell_runs_on_the_deployed_blank_state_image_else_the_run_directorys(name, size, arg, tmp_path):
    from rtdroid.hypervisors import guest, qemu, xen
    from rtdroid.render import render, resolve_argv
    board = bc.load_board(name)
    # what a lab deploys: the board's blank state image, built blank and made blank again
    blank = guest.blank_state_image(tmp_path / "build" / "rt-state.img", size)
    assert blank.read_bytes() == bytes(size)
    blank.write_bytes(b"RTCELLVR" + bytes(size - 8))
    assert guest.blank_state_image(blank, size).read_bytes() == bytes(size)
    assert "rt-state.img" in hypervisors.get(board.hypervisor).image_names(board)
    # board up --images DIR: the cell's state is DIR's copy (the job's, across its suites' restarts)
    rt = next(c for c in render(board)["cells"].values() if c["role"] == "rt")
    deployed = guest.deployed_state(blank.parent)
    assert arg.format(blank.parent) in " ".join(resolve_argv(rt["argv"], _Any(deployed)))
    assert guest.deployed_state(tmp_path) == {}
    assert (qemu.STATE_DISK, xen.STATE_BANK) == ("rt-state.img", "rt-state.img")


class _Any(dict):
    """The argv's other values, as placeholders."""
    def __missing__(self, key):
        return f"<{key}>"


def test_board_up_images_is_refused_where_the_board_boots_no_image_of_its_own(tmp_path):
    board = bc.load_board("host")
    with pytest.raises(BoardError, match="boots no images of its own"):
        hypervisors.get(board.hypervisor).prepare_from(board, tmp_path, Progress(1, lambda line: None))
