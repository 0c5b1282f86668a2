"""Integration: real cells on real boards. Run with `pytest -m integration`.

These tests FAIL (never skip) when something they need is not built: the RT cell agent
(rt-cell/agent/target/dist/lib), the echo app (rtdroid-runtime/examples/target/apps/echo), the
Android cell host (android-cell/target/dist), the RT kernel (build/rt-cell/kernel).
"""
from __future__ import annotations

import io
import json
import re
import subprocess
import time
import zipfile
from pathlib import Path

import pytest

from rtdroid import image, keys, lifecycle, paths
from rtdroid.echo import EchoPeer

import rtdroid_testutil as testutil
from rtdroid_testutil import require, rtdroid

pytestmark = pytest.mark.integration

ECHO_APP = paths.repo_root() / "rtdroid-runtime" / "examples" / "target" / "apps" / "echo"


def assert_board_gone(state: dict) -> None:
    """As rtdroid_testutil's, and no process of the board is left."""
    testutil.assert_board_gone(state)
    leftovers = subprocess.run(["pgrep", "-f", f"rtdroid-{state['board']}"], capture_output=True, text=True)
    assert leftovers.stdout.strip() == "", f"processes left: {leftovers.stdout}"


def sign(tmp: Path, jar: Path, manifest: Path, name: str, key: Path | None = None) -> Path:
    out = tmp / f"{name}.rtb"
    code, text = rtdroid("bundle", "--jar", str(jar), "--manifest", str(manifest), "-o", str(out),
                         *(["--key", str(key)] if key else []))
    assert code == 0, text
    return out


def rezip(src: Path, dst: Path, change) -> Path:
    """Copy a bundle changing entries: change(name, bytes) -> bytes or None (drop the entry)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = change(info.filename, zin.read(info))
            if data is not None:
                zout.writestr(info.filename, data)
    return dst


@pytest.fixture(scope="module")
def qemu_board(tmp_path_factory):
    """qemu-x86_64 with only its RT cell: this test process plays the Android side's peer 1."""
    require(paths.rt_agent_lib_dir(), "the RT cell agent")
    require(ECHO_APP / "app.jar", "the echo app")
    try:
        image.check_kernel()
    except image.ImageError as e:
        pytest.fail(str(e))
    keys.ensure_keys(out=lambda s: None)
    if lifecycle.running_boards():
        pytest.fail(f"a board is already up: {lifecycle.running_boards()[0][0]}; bring it down first")
    t0 = time.monotonic()
    code, text = rtdroid("board", "up", "--board", "qemu-x86_64", "--cells", "rt")
    up_s = time.monotonic() - t0
    print(text)
    state = lifecycle.load_state("qemu-x86_64")
    if code != 0:
        if state:
            lifecycle.down("qemu-x86_64", out=print)
        pytest.fail(f"board up failed:\n{text}")
    info = {"state": state, "up_seconds": up_s, "tmp": tmp_path_factory.mktemp("bundles"), "figures": {}}
    yield info
    code, text = rtdroid("board", "down", "--board", "qemu-x86_64")
    assert code == 0, text
    assert_board_gone(state)
    figures = paths.build_dir() / "run" / "boot-figures-qemu-x86_64.json"
    figures.write_text(json.dumps({"up_to_rt_ready_s": round(up_s, 3), **info["figures"]}, indent=2))


def test_rt_cell_runs_a_preempt_rt_kernel(qemu_board):
    console = Path(qemu_board["state"]["cells"]["rt"]["console"]).read_text(errors="replace")
    # /init prints the first on a cold boot; the agent the second (also after a snapshot restore).
    assert re.search(r"RTCELL realtime=1 |rtcell: kernel realtime=1 ", console), console[-2000:]
    assert "RTCELL READY" in console
    assert qemu_board["state"]["rt_kernel_realtime"] == 1
    code, text = rtdroid("board", "status", "--board", "qemu-x86_64")
    assert code == 0 and "peer rt: state READY" in text, text


def test_signed_echo_bundle_deploys_and_answers_a_ping(qemu_board):
    tmp = qemu_board["tmp"]
    bundle = sign(tmp, ECHO_APP / "app.jar", ECHO_APP / "manifest.xml", "echo")
    code, text = rtdroid("deploy", "rt", str(bundle))
    assert code == 0 and "OK" in text, text
    region = qemu_board["state"]["region"]["path"]
    with EchoPeer(region) as peer:
        reply = peer.ping(b"hello rt cell", correlation_id=4242, timeout=30)
        assert reply.payload == b"hello rt cell" and reply.correlation_id == 4242
        rtts = [peer.ping(b"x" * 64, correlation_id=i, timeout=10).round_trip_s for i in range(1, 21)]
    qemu_board["figures"]["first_echo_round_trip_s"] = round(reply.round_trip_s, 6)
    qemu_board["figures"]["echo_round_trip_median_s"] = sorted(rtts)[len(rtts) // 2]
    code, text = rtdroid("rt", "services", "--json")
    assert code == 0, text
    assert any(s["name"].split("/")[0] == "echo" for s in json.loads(text[text.index("["):])), text


def test_duplicate_deploy_is_refused(qemu_board):
    bundle = qemu_board["tmp"] / "echo.rtb"
    code, text = rtdroid("deploy", "rt", str(bundle))
    assert code == 1 and "DUPLICATE" in text, text


def test_tampered_bundle_is_refused(qemu_board):
    tmp = qemu_board["tmp"]
    good = sign(tmp, ECHO_APP / "app.jar", ECHO_APP / "manifest.xml", "echo2")
    bad = rezip(good, tmp / "tampered.rtb",
                lambda n, d: d.replace(b"echo", b"ech0", 1) if n == "manifest.xml" else d)
    code, text = rtdroid("deploy", "rt", str(bad))
    assert code == 1 and "BAD_SIGNATURE" in text, text


def test_bundle_signed_with_another_key_is_refused(qemu_board, tmp_path):
    keys.ensure_keys(tmp_path, out=lambda s: None)
    other = sign(tmp_path, ECHO_APP / "app.jar", ECHO_APP / "manifest.xml", "other", key=tmp_path / "deploy.key")
    code, text = rtdroid("deploy", "rt", str(other))
    assert code == 1 and "BAD_SIGNATURE" in text, text


def test_unsigned_bundle_is_refused(qemu_board):
    tmp = qemu_board["tmp"]
    unsigned = rezip(tmp / "echo.rtb", tmp / "unsigned.rtb",
                     lambda n, d: bytes(64) if n == "signature.ed25519" else d)
    code, text = rtdroid("deploy", "rt", str(unsigned))
    assert code == 1 and "BAD_SIGNATURE" in text, text


def sign_raw(out: Path, manifest: bytes, jar: bytes) -> Path:
    """Sign without the CLI's own manifest check, so the agent is the one that judges."""
    from cryptography.hazmat.primitives import serialization
    from xcc import bundle as xb
    key = serialization.load_pem_private_key((paths.keys_dir() / "deploy.key").read_bytes(), None)
    out.write_bytes(xb.pack(manifest, jar, key.sign(xb.signed_message(manifest, jar))))
    return out


def test_malformed_manifest_is_refused_when_bundling(qemu_board):
    tmp = qemu_board["tmp"]
    manifest = tmp / "broken-manifest.xml"
    manifest.write_text((ECHO_APP / "manifest.xml").read_text().replace("</receiver>", ""))
    code, text = rtdroid("bundle", "--jar", str(ECHO_APP / "app.jar"), "--manifest", str(manifest),
                         "-o", str(tmp / "broken.rtb"))
    assert code == 1 and "BAD_MANIFEST" in text and "line" in text, text


def test_broken_manifest_is_refused_by_the_agent_with_its_reason(qemu_board):
    tmp = qemu_board["tmp"]
    manifest = (ECHO_APP / "manifest.xml").read_bytes().replace(b'priority="80"', b'priority="banana"')
    manifest = manifest.replace(b'name="echo"', b'name="broken"', 1)
    bundle = sign_raw(tmp / "broken-agent.rtb", manifest, (ECHO_APP / "app.jar").read_bytes())
    code, text = rtdroid("deploy", "rt", str(bundle))
    assert code == 1 and "BAD_MANIFEST" in text and "priority" in text, text


def test_over_budget_manifest_is_refused(qemu_board):
    tmp = qemu_board["tmp"]
    text = (ECHO_APP / "manifest.xml").read_text()
    text = re.sub(r'<memSizes [^/]*/>', '<memSizes total="512M" persistent="256M" release="256M"/>', text)
    text = text.replace('name="echo"', 'name="hungry"', 1)
    manifest = tmp / "hungry.xml"
    manifest.write_text(text)
    bundle = sign(tmp, ECHO_APP / "app.jar", manifest, "hungry")
    code, out = rtdroid("deploy", "rt", str(bundle))
    assert code == 1 and "OVER_BUDGET" in out, out


def test_undeploy(qemu_board):
    code, text = rtdroid("undeploy", "rt", "echo")
    assert code == 0, text
    code, text = rtdroid("undeploy", "rt", "echo")
    assert code == 1 and "NOT_FOUND" in text, text

