"""Debian's stock `adb` client against a board's Android cell, which speaks adb's device side
(android-cell/host, package `adb`): the user's key authorised for the board, connect and
disconnect, install, start, logcat, screenshots. The CLI, the demo and the Robot library use it,
so an Android developer's commands and the project's are the same commands.

The user's key is `~/.android/adbkey` (made with `adb keygen` when missing, as the adb server
does on its first start); `board up` writes its public half into the board's authorised-keys
file, as the Android emulator authorises its host user's key. Nothing else is authorised.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

from .errors import BoardError

ANDROID_NS = "{http://schemas.android.com/apk/res/android}"
KEYS_FILE = "adb_keys"


class AdbError(BoardError):
    """adb failed, or the device refused what it was asked."""


def binary() -> str:
    adb = shutil.which("adb")
    if not adb:
        raise AdbError("Debian's adb client is not installed: run tools/setup.sh (make build does)")
    return adb


def user_key() -> Path:
    """The user's adb public key, made first when the user has none."""
    sdk_home = os.environ.get("ANDROID_SDK_HOME")  # where adb 29 looks, else ~/.android
    home = Path(sdk_home) / ".android" if sdk_home else Path.home() / ".android"
    pub = home / "adbkey.pub"
    if not pub.is_file():
        home.mkdir(parents=True, exist_ok=True)
        p = subprocess.run([binary(), "keygen", str(home / "adbkey")], capture_output=True, text=True, timeout=60)
        if p.returncode != 0 or not pub.is_file():
            raise AdbError(f"adb keygen {home / 'adbkey'} failed: {p.stderr.strip() or p.stdout.strip()}")
    return pub


def authorise(run_dir: Path) -> Path:
    """The board's authorised-keys file, holding the user's key."""
    keys = run_dir / KEYS_FILE
    keys.write_text(user_key().read_text())
    keys.chmod(0o600)
    return keys


def apk_identity(apk: Path) -> tuple[str, str | None]:
    """(package, launcher activity class) from a cell APK's manifest (plain XML in these APKs)."""
    try:
        with zipfile.ZipFile(apk) as z:
            root = ET.fromstring(z.read("AndroidManifest.xml"))
    except (OSError, KeyError, zipfile.BadZipFile, ET.ParseError) as e:
        raise AdbError(f"{apk}: cannot read its AndroidManifest.xml ({e})") from None
    pkg = root.get("package") or ""
    for act in root.iter("activity"):
        actions = {a.get(ANDROID_NS + "name") for a in act.iter("action")}
        categories = {c.get(ANDROID_NS + "name") for c in act.iter("category")}
        if "android.intent.action.MAIN" in actions and "android.intent.category.LAUNCHER" in categories:
            name = act.get(ANDROID_NS + "name") or ""
            return pkg, (pkg + name if name.startswith(".") else name)
    return pkg, None


class Adb:
    """The adb client for one board's Android cell (serial 127.0.0.1:<adb_port>)."""

    def __init__(self, port: int, timeout: float = 60.0):
        self.serial = f"127.0.0.1:{int(port)}"
        self.timeout = timeout

    def _run(self, args: list[str], timeout: float | None = None, device: bool = True) -> subprocess.CompletedProcess:
        cmd = [binary(), *(["-s", self.serial] if device else []), *args]
        try:
            return subprocess.run(cmd, capture_output=True, timeout=timeout or self.timeout)
        except subprocess.TimeoutExpired:
            raise AdbError(f"`{' '.join(cmd)}` did not finish in {timeout or self.timeout:g} s") from None

    def connect(self) -> bool:
        """Connects the user's adb server to the cell and waits until its transport is a device
        (`adb connect` answers "connected to" as soon as the socket is open, before the cell's adbd
        has authorised the key: a command sent then got "device ... not found" after a restart);
        True when this started that server. A connection left from a cell that has since restarted
        is dropped first (adb would keep it "offline" until its own reconnect timer fired)."""
        p = self._run(["disconnect", self.serial], device=False)
        started = b"daemon started successfully" in p.stdout + p.stderr
        started = self._connect() or started
        deadline = time.monotonic() + self.timeout
        while (state := self.state()) != "device":
            if time.monotonic() > deadline:
                raise AdbError(f"adb: {self.serial} connected but is {state or 'gone'} after {self.timeout:g} s, "
                               f"not a device (adb -s {self.serial} get-state)")
            if not state:  # the server dropped the transport: connect again
                started = self._connect() or started
            time.sleep(0.2)
        return started

    def _connect(self) -> bool:
        p = self._run(["connect", self.serial], device=False)
        out = (p.stdout + p.stderr).decode(errors="replace")
        if "connected to" not in out:
            raise AdbError(f"adb connect {self.serial} failed: {out.strip()}")
        return "daemon started successfully" in out

    def state(self) -> str:
        """The transport's state as the adb server sees it ("device", "offline", "unauthorized",
        ...); "" when it has no transport of this serial."""
        p = self._run(["get-state"], timeout=15)
        if p.returncode != 0:
            err = p.stderr.decode(errors="replace")
            m = re.search(r"device (?:still )?(offline|unauthorized|authorizing|connecting)", err)
            return m.group(1) if m else ""
        return p.stdout.decode(errors="replace").strip()

    def disconnect(self, stop_server: bool = False) -> None:
        self._run(["disconnect", self.serial], device=False, timeout=15)
        if stop_server:
            self._run(["kill-server"], device=False, timeout=15)

    def shell(self, *command: str, check: bool = True) -> str:
        p = self._run(["shell", *command])
        out = p.stdout.decode(errors="replace")
        if check and p.returncode != 0:
            raise AdbError(f"adb shell {' '.join(command)} failed (status {p.returncode}): "
                           f"{(out + p.stderr.decode(errors='replace')).strip()}")
        return out

    def install(self, apk: Path) -> str:
        """Installs a signed APK (adb pushes it, the cell's package manager verifies it); its package."""
        p = self._run(["install", str(apk)], timeout=max(self.timeout, 120))
        out = (p.stdout + p.stderr).decode(errors="replace")
        if p.returncode != 0 or "Success" not in out:
            m = re.search(r"Failure \[(.*)\]", out, re.S)
            raise AdbError(f"adb install {apk.name} refused: {m.group(1) if m else out.strip()}")
        return apk_identity(apk)[0]

    def start(self, apk: Path) -> str:
        """Starts the app's launcher activity and waits for it (`am start -W`); am's answer."""
        pkg, launcher = apk_identity(apk)
        if not launcher:
            raise AdbError(f"{apk.name}: its manifest names no MAIN/LAUNCHER activity")
        return self.shell("am", "start", "-W", "-n", f"{pkg}/{launcher}")

    def logcat(self) -> str:
        return self._run(["logcat", "-d"]).stdout.decode(errors="replace")

    def screencap(self) -> bytes:
        p = self._run(["exec-out", "screencap", "-p"])
        if p.returncode != 0 or p.stdout[:8] != b"\x89PNG\r\n\x1a\n":
            raise AdbError(f"adb exec-out screencap -p gave no PNG ({len(p.stdout)} bytes): "
                           f"{p.stderr.decode(errors='replace').strip()}")
        return p.stdout
