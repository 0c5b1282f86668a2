"""`board up` / `down` on a process board against test doubles of the cells: progress, readiness,
refusals, timeouts, crashes, Ctrl-C, and that nothing is left behind."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import struct
from pathlib import Path

import pytest

from rtdroid import boardconfig as bc
from rtdroid import lifecycle

from rtdroid_testutil import rtdroid_cmd


def pids_of(state):
    return [c["pid"] for c in state["cells"].values()]


def assert_nothing_left(board, pids):
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists() or \
            Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] in "ZX", f"pid {pid} still runs"
    assert not board["region"].exists()
    assert not Path(str(board["region"]) + ".lock").exists()
    assert lifecycle.load_state(board["name"]) is None


def test_up_then_down_leaves_nothing(private_board):
    lines = []
    state = lifecycle.up(str(private_board["file"]), out=lines.append)
    assert [l[:5] for l in lines[:7]] == [f"[{i}/7]" for i in range(1, 8)]
    assert any("region formatted" in l for l in lines)
    # The Android cell (the longest start) is started first, so that a start of the RT cell that
    # blocks (a qemu board's snapshot restore) runs while its JVM starts.
    started = [l.split("] ", 1)[1].split(" cell started")[0] for l in lines if " cell started" in l]
    assert started == ["android", "rt"]
    assert all(c["ready"] for c in state["cells"].values())
    pids = pids_of(state)
    assert all(lifecycle.process_alive(c) for c in state["cells"].values())
    st = lifecycle.status(private_board["name"])[private_board["name"]]
    assert st["up"] and st["peers"]["rt"]["state"] == "READY"
    saved = json.loads((private_board["run"] / private_board["name"] / "state.json").read_text())
    assert saved["region"]["path"] == str(private_board["region"])
    assert lifecycle.down(private_board["name"], out=lambda s: None) == 1
    assert_nothing_left(private_board, pids)


def test_second_up_is_refused(private_board):
    state = lifecycle.up(str(private_board["file"]), out=lambda s: None)
    try:
        with pytest.raises(lifecycle.BoardError, match="already up"):
            lifecycle.up(str(private_board["file"]), out=lambda s: None)
        assert all(lifecycle.process_alive(c) for c in state["cells"].values())
    finally:
        lifecycle.down(private_board["name"], out=lambda s: None)


def test_region_file_in_use_is_refused_and_nothing_starts(private_board):
    region = private_board["region"]
    region.write_bytes(b"\0" * 4096)
    with open(region, "rb"):  # held open by "another process" (this one)
        with pytest.raises(lifecycle.BoardError, match="already exists"):
            lifecycle.up(str(private_board["file"]), out=lambda s: None)
    assert region.read_bytes() == b"\0" * 4096  # not formatted over
    assert lifecycle.load_state(private_board["name"]) is None
    region.unlink()


def test_control_port_in_use_is_refused(private_board):
    s = socket.socket()
    s.bind(("127.0.0.1", private_board["port"]))
    s.listen()
    try:
        with pytest.raises(lifecycle.BoardError, match=f"port {private_board['port']}.*already in use"):
            lifecycle.up(str(private_board["file"]), out=lambda s: None)
    finally:
        s.close()
    assert not private_board["region"].exists()


def test_cell_that_never_reports_ready_times_out_with_its_last_lines(private_board, monkeypatch):
    monkeypatch.setenv("FAKE_MODE", "never-ready")
    out = []
    with pytest.raises(lifecycle.BoardError) as e:
        lifecycle.up(str(private_board["file"]), boot_timeout=3, out=out.append)
    assert "did not report ready within 3 s" in str(e.value)
    assert "last 30 lines" in str(e.value) and "fake RT agent" in str(e.value) or \
        "android" in str(e.value)
    assert any("tearing down" in l for l in out)
    assert not private_board["region"].exists()
    assert lifecycle.load_state(private_board["name"]) is None


def test_cell_that_crashes_is_reported_and_the_rest_torn_down(private_board, monkeypatch):
    monkeypatch.setenv("FAKE_MODE", "crash")
    with pytest.raises(lifecycle.BoardError, match="rt cell exited with status 3"):
        lifecycle.up(str(private_board["file"]), cells=["rt"], out=lambda s: None)
    assert not private_board["region"].exists()


def test_missing_cell_build_is_a_clear_error(private_board, monkeypatch, tmp_path):
    monkeypatch.setenv("RTDROID_RT_AGENT_LIB", str(tmp_path / "empty"))
    with pytest.raises(lifecycle.BoardError, match="RT cell agent not built"):
        lifecycle.up(str(private_board["file"]), out=lambda s: None)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_up_tears_down_what_it_started(private_board, sig):
    env = dict(os.environ, FAKE_MODE="never-ready")
    p = subprocess.Popen(rtdroid_cmd("board", "up", "--board", str(private_board["file"]), "--timeout", "60"),
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    state_file = private_board["run"] / private_board["name"] / "state.json"
    deadline = time.monotonic() + 120
    state = None
    while time.monotonic() < deadline:
        if state_file.exists():
            state = json.loads(state_file.read_text())
            if len(state["cells"]) == 2:
                break
        time.sleep(0.05)
    assert state and len(state["cells"]) == 2, "cells never started"
    time.sleep(0.3)
    p.send_signal(sig)
    # A hang detector, not a budget: teardown gives each cell up to 5 s for SIGTERM and 5 s more
    # after SIGKILL, and a loaded machine stretches every step of it.
    out, _ = p.communicate(timeout=120)
    assert p.returncode != 0
    assert "tearing down" in out and "interrupted" in out
    assert_nothing_left(private_board, pids_of(state))


def test_down_removes_a_leftover_region_of_a_killed_up(private_board):
    # Simulate a `board up` killed with SIGKILL: state and region remain, cells are gone.
    state = lifecycle.up(str(private_board["file"]), out=lambda s: None)
    for c in state["cells"].values():
        os.killpg(c["pid"], signal.SIGKILL)
    time.sleep(0.3)
    assert lifecycle.down(str(private_board["file"]), out=lambda s: None) == 1
    assert_nothing_left(private_board, pids_of(state))


@pytest.fixture
def private_qemu_board(private_board, tmp_path):
    """The qemu-x86_64 board under a private name (and region file)."""
    import yaml
    from rtdroid import paths
    data = yaml.safe_load((paths.board_configs_dir() / "qemu-x86_64.yaml").read_text())
    data["board"] = private_board["name"]
    f = tmp_path / "qemu-private.yaml"
    f.write_text(yaml.safe_dump(data))
    return dict(private_board, file=f, data=data)


def test_qemu_board_without_a_kernel_is_refused_and_leaves_nothing(private_qemu_board, monkeypatch, tmp_path):
    from rtdroid import paths
    monkeypatch.setattr(paths, "rt_cell_build_dir", lambda: tmp_path / "no-rt-cell")
    with pytest.raises(lifecycle.BoardError, match="no RT kernel fetched"):
        lifecycle.up(str(private_qemu_board["file"]), cells=["rt"], out=lambda s: None)
    assert not private_qemu_board["region"].exists()
    assert lifecycle.load_state(private_qemu_board["name"]) is None


def test_status_json_is_one_flat_object(private_board):
    lifecycle.up(str(private_board["file"]), out=lambda s: None)
    try:
        r = subprocess.run(rtdroid_cmd("board", "status", "--json"), capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        st = json.loads(r.stdout)
        assert st["board"] == private_board["name"] and st["up"]
        assert st["cells"]["android"]["control_port"] == private_board["port"]
        assert st["peers"]["rt"]["state"] == "READY"
    finally:
        lifecycle.down(private_board["name"], out=lambda s: None)
    r = subprocess.run(rtdroid_cmd("board", "status", "--json"), capture_output=True, text=True)
    assert r.returncode == 1 and json.loads(r.stdout)["up"] is False


def test_board_file_error_is_refused_before_anything_starts(private_board):
    f = private_board["file"]
    f.write_text(f.read_text().replace("size_bytes: 1048576", "size_bytes: 1000000"))
    with pytest.raises(bc.BoardConfigError) as e:
        lifecycle.up(str(f), out=lambda s: None)
    assert f"{f}:" in str(e.value) and "power of two" in str(e.value)
    assert not private_board["region"].exists()
    assert lifecycle.load_state(private_board["name"]) is None
    assert not private_board["run"].exists() or not any(private_board["run"].iterdir())


def test_link_problems_name_what_a_scribbling_cell_left_wrong():
    from xcc import region as xr
    img = xr.format_image(3, 8, 256)
    xr.attach_cell(img, xr.RT_PEER).close()
    xr.attach_cell(img, xr.ANDROID_PEER, owns_management_ring=False).close()
    both = {"rt", "android"}
    assert lifecycle.link_problems(xr.dump(img), both) == []
    lay = xr.RegionLayout(3, 8, 256)
    struct.pack_into("<Q", img, lay.ring_header(xr.ANDROID_PEER, 1), 1 << 40)   # write index moved
    struct.pack_into("<I", img, lay.state_line(xr.RT_PEER), 3)                  # RT state STOPPING
    problems = lifecycle.link_problems(xr.dump(img), both)
    assert "rt cell is STOPPING" in problems
    assert any(p.startswith("android ring 1: write index 1099511627776 and read index 0") for p in problems)
    # a cell that is not running is not expected to keep its side
    assert lifecycle.link_problems(xr.dump(img), {"android"}) == []


def test_two_checkouts_name_their_regions_apart(tmp_path, monkeypatch):
    """A board's region file in /dev/shm is named for the checkout (its run directory) too, so a
    second checkout's board, or CI's beside a user's, never finds the other's "left over"; the
    rendering keeps the checkout a placeholder, so golden files are the same on every machine."""
    from rtdroid.boardconfig import load_board
    from rtdroid.render import render
    names = set()
    for run in ("a", "b"):
        monkeypatch.setenv("RTDROID_RUN_DIR", str(tmp_path / run / "build" / "run"))
        names.add(load_board("host").region_path)
    assert len(names) == 2 and all(p.name.endswith("-host.region") for p in names)
    assert render(load_board("host"))["region"]["path"] == "/dev/shm/rtdroid-${CHECKOUT}-host.region"


def test_a_port_held_by_another_checkouts_board_names_that_checkout(tmp_path):
    """The Android cell's ports are the board file's: when another checkout's board holds one,
    `board up` refuses naming that board and checkout (a cell runs in <checkout>/build/run/<board>)."""
    from rtdroid_testutil import free_port
    port = free_port()
    other = tmp_path / "other-checkout" / "build" / "run" / "qemu-x86_64"
    other.mkdir(parents=True)
    holder = subprocess.Popen([sys.executable, "-c", "import socket,sys,time; s=socket.socket(); "
                               "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
                               f"s.bind(('127.0.0.1', {port})); s.listen(); print('up', flush=True); time.sleep(60)"],
                              cwd=other, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "up"
        from rtdroid.procs import port_holder
        assert port_holder(port) == (f": pid {holder.pid} holds it, a cell of board qemu-x86_64 of the checkout "
                                     f"{tmp_path / 'other-checkout'} (`rtdroid board down` there frees it)")
    finally:
        holder.kill()
        holder.wait()
