"""The Android cell's control client against a local HTTP server that answers as the cell does."""
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from rtdroid.control import AndroidControl, ControlError


class _Cell(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _answer(self, code: int, body: bytes, kind: str = "application/json"):
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/state":
            self._answer(200, b'{"apps": []}')
        elif self.path == "/screenshot":
            self._answer(200, b"\x89PNG", "image/png")
        elif self.path == "/empty":
            self._answer(200, b"")
        else:
            self._answer(404, b'{"error": "no such path"}')

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/apps/install" and body.get("bundle") == "bad":
            self._answer(400, b'{"error": "AndroidManifest.xml missing"}')
        elif self.path == "/plain":
            self._answer(500, b"not json")
        else:
            self._answer(200, json.dumps({"echo": body}).encode())


@pytest.fixture
def cell():
    server = HTTPServer(("127.0.0.1", 0), _Cell)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield AndroidControl(server.server_address[1], timeout=5)
    server.shutdown()
    server.server_close()


def test_json_answers_bytes_and_empty(cell, tmp_path):
    assert cell.call("GET", "/state") == {"apps": []}
    assert cell.call("POST", "/apps/x/launch", {"a": 1}) == {"echo": {"a": 1}}
    assert cell.call("GET", "/empty") is None
    assert cell.screenshot(tmp_path / "s.png").read_bytes() == b"\x89PNG"


def test_refusal_names_request_code_and_cell_reason(cell):
    with pytest.raises(ControlError) as e:
        cell.call("POST", "/apps/install", {"bundle": "bad"})
    assert e.value.status == 400
    assert str(e.value) == "Android cell refused POST /apps/install: HTTP 400: AndroidManifest.xml missing"
    with pytest.raises(ControlError, match="HTTP 500: not json"):
        cell.call("POST", "/plain", {})


def test_unreachable_port_says_so():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: connection refused
        with pytest.raises(ControlError, match=f"127.0.0.1:{port} unreachable") as e:
            AndroidControl(port, timeout=2).call("GET", "/state")
    assert e.value.status is None
