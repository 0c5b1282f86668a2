"""`rtdroid validate`: the static validation of RT apps (dissertation chapter 5) for one board.

The analysis lives once, in the runtime (`org.rtdroid.runtime.validation`); this runs its
`ValidateMain` from the jar the Maven build leaves in rtdroid-runtime/target/ (with the JSON writer
it renders `--json` through, json/target/rtdroid-json-*.jar), with the board's RT
cell figures (CPU count, rt_budget_bytes), and passes its report and exit status through:
0 everything holds, 1 it fails (the reasons are printed), 2 a malformed manifest (file, line,
element, what).
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from . import paths
from .boardconfig import Board
from .errors import BoardError

MAIN_CLASS = "org.rtdroid.runtime.validation.ValidateMain"
BUILD_HINT = "`mvn -B -q -pl rtdroid-runtime -am install` from the repository root, JAVA_HOME=temurin-25"


def _built_jars(module: str, artifact: str) -> list[Path]:
    return sorted(p for p in (paths.repo_root() / module / "target").glob(f"{artifact}-*.jar")
                  if not p.name.endswith(("-sources.jar", "-tests.jar", "-javadoc.jar")))


def runtime_jar() -> Path:
    """The runtime jar the build produced (RTDROID_RUNTIME_JAR overrides it)."""
    jars = _built_jars("rtdroid-runtime", "rtdroid-runtime")
    override = paths.runtime_jar_override()
    if override is not None:
        jars = [override] if override.is_file() else []
    if not jars:
        raise BoardError(f"the runtime is not built: no rtdroid-runtime/target/rtdroid-runtime-*.jar (run {BUILD_HINT})")
    return jars[-1]


def json_jar() -> Path:
    """The JSON writer the runtime depends on (module json/, built with the runtime)."""
    jars = _built_jars("json", "rtdroid-json")
    if not jars:
        raise BoardError(f"the JSON writer is not built: no json/target/rtdroid-json-*.jar (run {BUILD_HINT})")
    return jars[-1]


def command(board: Board, manifests: list[str], json_out: bool, cheddar: str | None) -> list[str]:
    """The java command line that validates ``manifests`` for ``board``'s RT cell."""
    java = paths.java_home() / "bin" / "java"
    if not java.is_file():
        raise BoardError(f"Java 25 not found at {java} (set RTDROID_JAVA_HOME)")
    rt = board.rt
    classpath = os.pathsep.join((str(runtime_jar()), str(json_jar())))
    argv = [str(java), "-cp", classpath, MAIN_CLASS, "--board", board.name,
            "--cpus", str(len(rt["cpus"])), "--budget", str(rt["rt_budget_bytes"])]
    if json_out:
        argv.append("--json")
    if cheddar:
        argv += ["--cheddar", str(Path(cheddar).resolve())]
    return argv + ["--"] + [str(Path(m)) for m in manifests]


def run(board: Board, manifests: list[str], json_out: bool = False, cheddar: str | None = None) -> tuple[int, str, str]:
    """(exit status, report, error lines) of the validation."""
    r = subprocess.run(command(board, manifests, json_out, cheddar), capture_output=True, text=True)
    if r.returncode not in (0, 1, 2):
        raise BoardError(f"the validator stopped with status {r.returncode}: "
                         + (r.stderr.strip().splitlines() or ["no message"])[-1])
    return r.returncode, r.stdout, r.stderr
