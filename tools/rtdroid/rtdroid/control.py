"""The Android cell's control interface: HTTP/JSON on 127.0.0.1:<control_port>.

The one client of it; the CLI, the demo and the Robot library all use this class, so a refused
request reads the same wherever it shows.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

from .errors import BoardError


class ControlError(BoardError):
    """The Android cell refused a request (`status` is its HTTP code) or could not be reached
    (`status` is None)."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class AndroidControl:
    """One Android cell's control port. A cell started with adb keys serves only requests that
    carry the token it hands to authorised adb clients (`adb shell cmd control token`):
    `for_board` fetches it."""

    def __init__(self, port: int, timeout: float = 30.0, token: str | None = None):
        self.base = f"http://127.0.0.1:{int(port)}"
        self.timeout = timeout
        self.headers = {"Content-Type": "application/json",
                        **({"Authorization": f"Bearer {token}"} if token else {})}

    @classmethod
    def for_board(cls, status: dict, timeout: float = 30.0) -> "AndroidControl":
        """The control port of a board that is up (`board status --json`), with the token adb gives
        the user's authorised key when the cell serves adb."""
        token = None
        if status.get("adb"):
            from .adb import Adb
            token = Adb(status["adb_port"]).shell("cmd", "control", "token").strip()
        return cls(int(status["control_port"]), timeout, token)

    def call(self, method: str, path: str, body: dict | None = None, raw: bool = False,
             timeout: float | None = None):
        """The decoded JSON answer (None for an empty one), or the bytes when `raw`."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=self.headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout if timeout is None else timeout) as r:
                payload = r.read()
        except urllib.error.HTTPError as e:
            detail = e.read().decode(errors="replace")
            try:
                detail = json.loads(detail).get("error", detail)
            except (ValueError, AttributeError):
                pass
            raise ControlError(f"Android cell refused {method} {path}: HTTP {e.code}: {detail}",
                               e.code) from None
        except (urllib.error.URLError, OSError) as e:
            why = getattr(e, "reason", None) or e
            raise ControlError(f"Android cell control port {self.base} unreachable: {why}") from None
        return payload if raw else json.loads(payload or b"null")

    def install_apk(self, apk: Path) -> dict:
        """Installs an app from its signed APK (the cell verifies the signature and takes the
        package, versionCode and signing certificate from it); the installed app's record."""
        return self.call("POST", "/apps/install", {"apk": str(apk)})

    def latency(self) -> dict:
        """Round trips measured by the proxy for app requests that got a reply (ns): roundTrip
        (app send -> app's view updated), intentToFrame, frameToDelivered, rtShare."""
        return self.call("GET", "/latency")

    def proxy_events(self, since_nanos: int = 0) -> dict:
        """The proxy's recent sends (app -> RT frame) and broadcasts (RT frame -> apps) that ended at
        or after ``since_nanos`` (the cell's CLOCK_MONOTONIC): ``now_nanos`` and ``events``."""
        return self.call("GET", f"/proxy/events?since={int(since_nanos)}")

    def screenshot(self, path: Path) -> Path:
        path.write_bytes(self.call("GET", "/screenshot", raw=True))
        return path
