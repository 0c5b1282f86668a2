"""Integration: the host board with both real cells (run with -m integration)."""
import json
import subprocess
import zipfile

import pytest

from rtdroid import lifecycle, paths

from rtdroid_testutil import assert_board_gone, require, rtdroid

pytestmark = pytest.mark.integration


def test_host_board_boots_both_cells_and_tears_down(tmp_path):
    require(paths.rt_agent_lib_dir(), "the RT cell agent")
    require(paths.android_cell_dist_dir() / "lib", "the Android cell host")
    if lifecycle.running_boards():
        pytest.fail("a board is already up; bring it down first")
    code, text = rtdroid("board", "up", "--board", "host")
    state = lifecycle.load_state("host")
    try:
        assert code == 0, text
        assert "rt cell ready" in text and "android cell ready" in text
        code, st = rtdroid("board", "status", "--board", "host", "--json")
        assert code == 0, st
        st = json.loads(st)
        assert st["board"] == "host" and st["cells"]["android"]["control_port"] == 7411, st
        peers = st["peers"]
        assert peers["rt"]["state"] == "READY" and peers["android"]["state"] == "READY", peers
        # The text status lists the Android cell's apps with their uids and states.
        code, text_status = rtdroid("board", "status", "--board", "host")
        assert code == 0 and "app org.rtdroid.proxy: uid " in text_status and "RUNNING (system)" in text_status, \
            text_status
        # The user's adb server lists the cell, as it lists an emulator.
        devices = subprocess.run(["adb", "devices"], capture_output=True, text=True, timeout=30).stdout
        assert f"127.0.0.1:{st['adb_port']}\tdevice" in devices, devices
        # A broken app package (a zip without AndroidManifest.xml, unsigned) is refused by the cell
        # with its reason.
        broken = tmp_path / "broken-app.apk"
        with zipfile.ZipFile(broken, "w") as z:
            z.writestr("classes.jar", b"not a jar")
        code, out = rtdroid("deploy", "android", str(broken))
        assert code == 1 and "refused" in out and "INSTALL_FAILED_INVALID_APK" in out \
            and "/data/local/tmp/broken-app.apk has no AndroidManifest.xml" in out, out
    finally:
        code2, text2 = rtdroid("board", "down", "--board", "host")
    assert code2 == 0, text2
    if state:
        assert_board_gone(state)

