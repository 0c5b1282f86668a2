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
    """One Android cell's control port."""

    def __init__(self, port: int, timeout: float = 30.0):
        self.base = f"http://127.0.0.1:{int(port)}"
        self.timeout = timeout

    def call(self, method: str, path: str, body: dict | None = None, raw: bool = False,
             timeout: float | None = None):
        """The decoded JSON answer (None for an empty one), or the bytes when `raw`."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
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

    def latency(self) -> dict:
        """Round trips measured by the proxy for app requests that got a reply (ns): roundTrip
        (app send -> app's view updated), intentToFrame, frameToDelivered, rtShare."""
        return self.call("GET", "/latency")

    def screenshot(self, path: Path) -> Path:
        path.write_bytes(self.call("GET", "/screenshot", raw=True))
        return path
