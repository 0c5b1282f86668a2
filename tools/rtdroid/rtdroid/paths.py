"""Where things are: the repository root and everything under build/.

The root is RTDROID_HOME when set, else found from this package's location (tools/rtdroid/rtdroid).
"""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path


def repo_root() -> Path:
    env = os.environ.get("RTDROID_HOME")
    if env:
        return Path(env).resolve()
    return Path(__file__).resolve().parents[3]


def _env_or(variable: str, default: Path | None) -> Path | None:
    """The path the environment variable names when it is set (and not empty), else ``default``."""
    env = os.environ.get(variable)
    return Path(env) if env else default


def build_dir() -> Path:
    return repo_root() / "build"


def board_configs_dir() -> Path:
    return repo_root() / "board-configs"


def hypervisor_cells_dir() -> Path:
    return repo_root() / "hypervisor-cells"


def run_root() -> Path:
    """RTDROID_RUN_DIR relocates board state (tests use a private one)."""
    return _env_or("RTDROID_RUN_DIR", build_dir() / "run")


def run_dir(board: str) -> Path:
    return run_root() / board


def checkout_id() -> str:
    """What names this checkout's run-time files outside it (a board's region in /dev/shm): the
    checkout's folder name and a digest of its run directory, so that two checkouts on one machine
    (or CI beside a user) never take each other's board for their own or for one left over."""
    name = re.sub(r"[^a-z0-9_-]", "", repo_root().name.lower())[:16] or "rtdroid"
    return f"{name}-{hashlib.sha256(str(run_root().resolve()).encode()).hexdigest()[:6]}"


def rt_cell_build_dir() -> Path:
    return build_dir() / "rt-cell"


def keys_dir() -> Path:
    return build_dir() / "keys"


def rt_agent_lib_dir() -> Path:
    """RTDROID_RT_AGENT_LIB overrides it (tests run the lifecycle against a test double)."""
    return _env_or("RTDROID_RT_AGENT_LIB", repo_root() / "rt-cell" / "agent" / "target" / "dist" / "lib")


def android_cell_dist_dir() -> Path:
    """RTDROID_ANDROID_CELL_DIST overrides it (tests)."""
    return _env_or("RTDROID_ANDROID_CELL_DIST", repo_root() / "android-cell" / "target" / "dist")


def java_home() -> Path:
    return Path(os.environ.get("RTDROID_JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64"))


def runtime_jar_override() -> Path | None:
    """RTDROID_RUNTIME_JAR names the runtime jar `rtdroid validate` runs (tests)."""
    return _env_or("RTDROID_RUNTIME_JAR", None)
