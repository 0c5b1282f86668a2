"""Rendering is deterministic and equals the committed golden files."""
import copy
import json
from pathlib import Path

import pytest
import yaml

from rtdroid import boardconfig as bc
from rtdroid import paths, render
from rtdroid.errors import BoardError
from rtdroid.hypervisors import qemu


@pytest.mark.parametrize("name", bc.available_boards())
def test_rendering_matches_golden(name):
    board = bc.load_board(name)
    assert render.compare_with_golden(board) == [], \
        "re-render with `rtdroid board render --all --update-golden` and review the diff"


@pytest.mark.parametrize("name", bc.available_boards())
def test_rendering_is_deterministic(name):
    board = bc.load_board(name)
    assert render.rendered_files(board) == render.rendered_files(bc.load_board(name))


def test_a_changed_board_no_longer_matches_golden(tmp_path, monkeypatch):
    d = yaml.safe_load((paths.board_configs_dir() / "qemu-x86_64.yaml").read_text())
    d["cells"][0]["memory_mib"] = 2048
    board = bc.validate_board(d, "board-configs/qemu-x86_64.yaml")
    bad = render.compare_with_golden(board)
    assert any(p.endswith("qemu-x86_64.json") for p in bad)


def test_qemu_rt_argv_carries_the_board():
    r = render.render(bc.load_board("qemu-x86_64"))
    argv = r["cells"]["rt"]["argv"]
    assert argv[:3] == ["taskset", "-c", "1"]
    assert argv[argv.index("-m") + 1] == "1024"
    assert "ivshmem-plain,memdev=shm,master=on" in argv   # peer mode would forbid the boot snapshot
    backend = argv[argv.index("-object") + 1]
    assert "mem-path=/dev/shm/rtdroid-${CHECKOUT}-qemu-x86_64.region" in backend and "size=4194304" in backend
    assert "-virtfs" not in argv                            # a mounted 9p export blocks migration
    assert argv[argv.index("-qmp") + 1] == "unix:${RUN_DIR}/qmp.sock,server=on,wait=off"
    assert argv[argv.index("-initrd") + 1] == "${RT_INITRD}"  # the build's, or one a lab deployed (--images)
    assert r["rt_image"]["boot"] == "snapshot"
    assert argv[argv.index("-append") + 1].startswith("console=ttyS0")
    android = r["cells"]["android"]["argv"]
    assert android[:3] == ["taskset", "-c", "0"] and android[-2:] == ["--peer-timeout-ms", "5000"]
    assert android[android.index("--control-port") + 1] == "7411"
    assert android[android.index("--adb-port") + 1] == "5555"
    assert android[android.index("--adb-keys") + 1] == "${RUN_DIR}/adb_keys"


def test_init_script_runs_the_agent_from_the_initramfs_root():
    init = qemu.init_script(bc.load_board("qemu-x86_64"))
    assert "@" not in init.replace("$@", "")  # every placeholder was filled
    assert "RT=/rt" in init and "mount -t 9p" not in init
    # one loop loads the modules the initramfs carries: the state disk's drivers, then the input
    # path; the agent keeps its record on the state disk
    assert init.count("insmod") == 1
    assert ("for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk "
            "evdev uinput; do") in init
    assert "--await-region --state-device /dev/vda" in init
    assert "/sys/kernel/realtime" in init and "0x1110" in init
    assert "org.rtdroid.rtcell.agent.Main" in init and "--budget-bytes 67108864" in init


def test_the_flight_recorder_is_opt_in_from_the_board_file(tmp_path):
    text = (paths.repo_root() / "board-configs" / "qemu-x86_64.yaml").read_text()
    assert "--flight-recorder" not in qemu.init_script(bc.load_board("qemu-x86_64"))
    armed = tmp_path / "qemu-x86_64.yaml"
    armed.write_text(text.replace("    vcpus: 1 ", "    flight_recorder_us: 4000\n    vcpus: 1 ", 1))
    init = qemu.init_script(bc.load_board(str(armed)))
    assert "--await-region --flight-recorder 4000 --state-device /dev/vda" in init
    assert "mount -t tracefs nodev /sys/kernel/tracing" in init
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("    vcpus: 1 ", "    flight_recorder_us: 0\n    vcpus: 1 ", 1))
    with pytest.raises(bc.BoardConfigError, match="flight_recorder_us: 0: schema rule minimum: 1"):
        bc.load_board(str(bad))


def test_resolve_argv_substitutes_and_splices(tmp_path):
    args = tmp_path / "jvm.args"
    args.write_text("# comment\n-Xmx1g\n\n-Dx=1\n")
    out = render.resolve_argv(["${A}/bin", f"@file:{args}", "@file:/nonexistent", "z"], {"A": "/h"})
    assert out == ["/h/bin", "-Xmx1g", "-Dx=1", "z"]


def test_the_state_disk_is_created_blank_once_and_then_left_to_the_cell(tmp_path):
    disk = tmp_path / "run" / qemu.STATE_DISK
    qemu.ensure_state_disk(disk)
    assert disk.read_bytes() == bytes(qemu.STATE_DISK_BYTES)
    disk.write_bytes(b"RTCELLVR" + bytes(qemu.STATE_DISK_BYTES - 8))  # what the cell wrote
    qemu.ensure_state_disk(disk)
    assert disk.read_bytes()[:8] == b"RTCELLVR"
    disk.write_bytes(b"short")
    with pytest.raises(BoardError, match="state disk .* is not a file of at least 131072 bytes"):
        qemu.ensure_state_disk(disk)


def test_the_benchmarks_run_the_rt_cells_jvm_flags():
    # bench/run.sh measures what ships: every flag the RT cell's JVM gets on every board, but the heap size
    run_sh = (Path(__file__).resolve().parents[3] / "bench" / "run.sh").read_text(encoding="utf-8")
    for flag in render.rt_jvm_args(256):
        if not flag.startswith(("-Xms", "-Xmx")):
            assert flag in run_sh.split(), flag


def test_the_host_board_keeps_the_android_cells_threads_at_sched_other():
    """The host board's cells share a kernel: its Android cell is started with --realtime-threads
    off; the emulated boards' are not (their RT cell has a kernel of its own)."""
    host = render.render(bc.load_board("host"))["cells"]["android"]["argv"]
    assert host[host.index("--realtime-threads") + 1] == "off"
    for name in ("qemu-x86_64", "qemu-arm64-xen"):
        assert "--realtime-threads" not in render.render(bc.load_board(name))["cells"]["android"]["argv"]


def test_host_rt_jvm_may_use_the_board_cpus_its_realtime_threads_only_the_cells():
    # The JVM's own threads must not be stuck behind a real-time thread on the cell's CPU
    # (process.py); the real-time threads pin themselves to the cell's CPUs (--cpus).
    argv = render.render(bc.load_board("host"))["cells"]["rt"]["argv"]
    assert argv[:3] == ["taskset", "-c", "0,1"]
    assert argv[argv.index("--cpus") + 1] == "1"


@pytest.mark.parametrize("apps,args", [("all", ["--app-process", "all"]),
                                       (["org.rtdroid.cochlear.ui"], ["--app-process", "org.rtdroid.cochlear.ui"]),
                                       ([], [])])
def test_app_processes_render_as_the_cells_app_process_arguments(apps, args):
    d = yaml.safe_load((paths.board_configs_dir() / "host.yaml").read_text())
    next(c for c in d["cells"] if c["role"] == "android")["app_processes"] = apps
    argv = render.render(bc.validate_board(d, "board-configs/host.yaml"))["cells"]["android"]["argv"]
    found = [a for i, a in enumerate(argv) if a == "--app-process" or (i > 0 and argv[i - 1] == "--app-process")]
    assert found == args


def test_app_processes_is_all_or_package_names():
    d = yaml.safe_load((paths.board_configs_dir() / "host.yaml").read_text())
    next(c for c in d["cells"] if c["role"] == "android")["app_processes"] = "every"
    with pytest.raises(bc.BoardConfigError):
        bc.validate_board(d, "board-configs/host.yaml")
