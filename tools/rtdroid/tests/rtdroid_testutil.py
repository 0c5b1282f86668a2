"""Helpers shared by the tests (a module of its own: several suites have a conftest.py)."""
import socket
import sys


def rtdroid_cmd(*args) -> list[str]:
    return [sys.executable, "-m", "rtdroid.cli", *args]


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
