"""Integration: a real qemu RT cell that never gets to report ready (run with -m integration)."""
import os
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from rtdroid import boardconfig as bc
from rtdroid import image, lifecycle, paths

from rtdroid_testutil import rtdroid_cmd

pytestmark = pytest.mark.integration


def rtdroid(*args, timeout=300):
    r = subprocess.run(rtdroid_cmd(*args), capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout + r.stderr


def cold_boot(data: dict) -> None:
    """These tests act while the VM boots: a cold boot takes tens of seconds after /init (the
    agent's JVM), where a restore from the boot snapshot is ready in under a second."""
    next(c for c in data["cells"] if c["role"] == "rt")["boot"] = "cold"


def test_vm_that_never_reports_ready_times_out_with_console_lines(tmp_path, monkeypatch):
    """A real qemu RT cell given less time than it needs: refused with the console's last lines,
    and nothing is left (VM, region file). Runs the VM with the test-double agent in the share."""
    try:
        image.check_kernel()
    except image.ImageError as e:
        pytest.fail(str(e))
    if lifecycle.running_boards():
        pytest.fail("a board is already up; bring it down first")
    data = yaml.safe_load((paths.board_configs_dir() / "qemu-x86_64.yaml").read_text())
    data["board"] = f"tq{os.getpid()}"
    cold_boot(data)
    board_file = tmp_path / "tq.yaml"
    board_file.write_text(yaml.safe_dump(data))
    monkeypatch.setenv("RTDROID_RUN_DIR", str(tmp_path / "run"))
    t0 = time.monotonic()
    code, text = rtdroid("board", "up", "--board", str(board_file), "--cells", "rt", "--timeout", "1.5")
    assert code == 1, text
    assert "did not report ready within 1.5 s" in text and "console.log" in text, text
    assert "tearing down" in text
    assert not bc.load_board(str(board_file)).region_path.exists()
    assert time.monotonic() - t0 < 120
    leftovers = subprocess.run(["pgrep", "-f", f"rtdroid-{data['board']}-rt"], capture_output=True, text=True)
    assert leftovers.stdout.strip() == ""


def test_ctrl_c_while_the_vm_boots_leaves_nothing(tmp_path, monkeypatch):
    import signal
    try:
        image.check_kernel()
    except image.ImageError as e:
        pytest.fail(str(e))
    data = yaml.safe_load((paths.board_configs_dir() / "qemu-x86_64.yaml").read_text())
    data["board"] = f"tc{os.getpid()}"
    cold_boot(data)
    board_file = tmp_path / "tc.yaml"
    board_file.write_text(yaml.safe_dump(data))
    run_dir = tmp_path / "run"
    monkeypatch.setenv("RTDROID_RUN_DIR", str(run_dir))  # the region's name follows the run dir
    env = dict(os.environ, RTDROID_RUN_DIR=str(run_dir))
    p = subprocess.Popen(rtdroid_cmd("board", "up", "--board", str(board_file), "--cells", "rt"),
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        console = run_dir / data["board"] / "console.log"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (console.exists() and "RTCELL init" in console.read_text()):
            time.sleep(0.1)
        assert console.exists() and "RTCELL init" in console.read_text(), "the VM never reached /init"
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=60)
        assert p.returncode == 1 and "interrupted" in out and "stopped rt cell" in out, out
    finally:
        # Whatever failed above, no VM of this test outlives it (it would eat the next tests' CPU).
        if p.poll() is None:
            p.kill()
            p.wait()
        subprocess.run(rtdroid_cmd("board", "down", "--board", str(board_file)), env=env,
                       capture_output=True, timeout=120)
    assert not bc.load_board(str(board_file)).region_path.exists()
    left = subprocess.run(["pgrep", "-f", f"rtdroid-{data['board']}-rt"], capture_output=True, text=True)
    assert left.stdout.strip() == "", left.stdout
