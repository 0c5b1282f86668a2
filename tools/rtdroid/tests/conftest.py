"""Shared fixtures. Lifecycle tests run a private board (own name, port, run dir) against test
doubles of the two cells (tests/fakecells), so they never touch a board someone else runs."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rtdroid import paths
from rtdroid.boardconfig import load_board
from rtdroid_testutil import free_port

JAVA_HOME = Path(os.environ.get("RTDROID_JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64"))
HERE = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def private_digest_memo(tmp_path, monkeypatch):
    """Digests the tests compute are remembered in the test's directory, not in build/."""
    from rtdroid import digest
    monkeypatch.setattr(digest, "_memo_path", lambda: tmp_path / "digests.json")


@pytest.fixture(scope="session")
def fake_cells(tmp_path_factory) -> dict[str, Path]:
    """Compile the cell test doubles once: {'rt': lib dir, 'android': dist dir}."""
    out = tmp_path_factory.mktemp("fakecells")
    classes = out / "classes"
    sources = [str(p) for p in (HERE / "fakecells").rglob("*.java")]
    subprocess.run([str(JAVA_HOME / "bin" / "javac"), "--release", "21", "-d", str(classes)] + sources,
                   check=True)
    rt_lib, android = out / "rt" / "lib", out / "android"
    (android / "lib").mkdir(parents=True)
    rt_lib.mkdir(parents=True)
    jar = str(JAVA_HOME / "bin" / "jar")
    subprocess.run([jar, "cf", str(rt_lib / "fake-agent.jar"), "-C", str(classes), "org/rtdroid/rtcell"], check=True)
    subprocess.run([jar, "cf", str(android / "lib" / "fake-android.jar"), "-C", str(classes),
                    "org/rtdroid/android"], check=True)
    return {"rt": rt_lib, "android": android}


@pytest.fixture
def private_board(tmp_path, monkeypatch, fake_cells):
    """A process board of its own (unique name, free port), a private run dir and deploy key."""
    data = yaml.safe_load((paths.board_configs_dir() / "host.yaml").read_text())
    name = f"t{os.getpid()}-{tmp_path.name[-12:].lower().replace('_', '-')}"[:32]
    data["board"] = name
    data["cells"][1]["control_port"] = free_port()
    data["cells"][1]["adb_port"] = free_port()
    data["cells"][0]["boot_timeout_seconds"] = 20
    data["cells"][1]["boot_timeout_seconds"] = 20
    board_file = tmp_path / f"{name}.yaml"
    board_file.write_text(yaml.safe_dump(data))
    monkeypatch.setenv("RTDROID_RUN_DIR", str(tmp_path / "run"))
    monkeypatch.setenv("ANDROID_SDK_HOME", str(tmp_path / "android-sdk-home"))  # the adb key `board up` makes
    monkeypatch.setenv("RTDROID_RT_AGENT_LIB", str(fake_cells["rt"]))
    monkeypatch.setenv("RTDROID_ANDROID_CELL_DIST", str(fake_cells["android"]))
    keys = tmp_path / "keys"
    monkeypatch.setattr(paths, "keys_dir", lambda: keys)
    region = load_board(str(board_file)).region_path  # named for the private run dir's checkout id
    yield {"file": board_file, "name": name, "data": data, "region": region,
           "port": data["cells"][1]["control_port"], "run": tmp_path / "run"}
    # Never leave anything behind, even when a test failed half-way.
    from rtdroid import lifecycle
    try:
        st = lifecycle.load_state(name)
        if st:
            lifecycle._teardown(st, out=lambda s: None)
    finally:
        region.unlink(missing_ok=True)
        Path(str(region) + ".lock").unlink(missing_ok=True)


def pytest_configure(config):
    # Registered here too, so the marker is known when pytest runs from the repository root.
    config.addinivalue_line("markers", "integration: boots a real board (built cells, RT kernel, QEMU)")
