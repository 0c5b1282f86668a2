"""Helpers shared by the tests (a module of its own: several suites have a conftest.py)."""
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from rtdroid import lifecycle

BUILD_HINT = "build it first: make build (in the checkout)"


def rtdroid_cmd(*args) -> list[str]:
    return [sys.executable, "-m", "rtdroid.cli", *args]


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def require(path: Path, what: str) -> None:
    """Fails the test (not skips it) when a build output it needs is missing."""
    if not path.exists() or (path.is_dir() and not any(path.iterdir())):
        pytest.fail(f"{what} is not built: {path} missing; {BUILD_HINT}")


def rtdroid(*args, timeout=300):
    """Runs the rtdroid CLI: (exit code, stdout + stderr)."""
    r = subprocess.run(rtdroid_cmd(*args), capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout + r.stderr


def assert_board_gone(state: dict) -> None:
    """No cell of the board runs and its region and region lock files are gone."""
    for c in state["cells"].values():
        assert not lifecycle.process_alive(c), f"{c['name']} cell (pid {c['pid']}) still runs"
    assert not Path(state["region"]["path"]).exists(), "region file left behind"
    assert not Path(state["region"]["lock"]).exists(), "region lock file left behind"
