"""The project's ivshmem server and client: QEMU's `ivshmem-doorbell` device (the shared region
with interrupts) takes its memory and its interrupt eventfds from a server over a UNIX socket, and
Debian ships none (QEMU keeps its own in contrib/). The protocol is QEMU's docs/specs/
ivshmem-spec.rst, "The ivshmem Client-Server Protocol": one-way, server to client, each message
one little-endian signed 64-bit number, some with one file descriptor (SCM_RIGHTS). On connect a
client gets, in order:

1. the protocol version, 0;
2. its ID (0..65535; the Doorbell register carries 16 bits of it);
3. -1 with the shared memory's file descriptor;
4. for every other client: its ID once per vector, each with the eventfd that interrupts it on
   that vector;
5. its own ID once per vector, each with the eventfd it is interrupted through.

Later messages are another client's ID, with an eventfd (it connected: as in 4) or without one (it
left). Interrupting a peer is writing 1 to its eventfd, which is what QEMU does for a guest's write
to the Doorbell register (ID << 16 | vector), and what :class:`Client` does for the host side.

The memory is a file the board owns (its region's /dev/shm file): the server opens it, never
creates or truncates it. Nothing here parses input from a client: the protocol has none.
"""
from __future__ import annotations

import os
import select
import selectors
import socket
import struct
import threading
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BoardError

PROTOCOL_VERSION = 0
MAX_ID = 65535
MAX_VECTORS = 64
_MESSAGE = struct.Struct("<q")


class IvshmemError(BoardError):
    """A refusal written for the user (entry prints its message as it is)."""


@dataclass
class _Peer:
    id: int
    conn: socket.socket
    eventfds: list[int] = field(default_factory=list)


def _send(conn: socket.socket, number: int, fd: int | None = None) -> None:
    data = _MESSAGE.pack(number)
    if fd is None:
        conn.sendall(data)
    else:
        socket.send_fds(conn, [data], [fd])


class Server:
    """Serves ``memory`` (an existing file) and ``vectors`` interrupt vectors per client on the UNIX
    socket ``socket_path``, from a thread of its own (:meth:`start`, :meth:`stop`)."""

    def __init__(self, socket_path: str | Path, memory: str | Path, vectors: int = 1):
        if not 1 <= vectors <= MAX_VECTORS:
            raise IvshmemError(f"vectors {vectors}: must be 1..{MAX_VECTORS}")
        self.socket_path = str(socket_path)
        self.vectors = vectors
        try:
            self._memory = os.open(memory, os.O_RDWR | os.O_CLOEXEC)
        except OSError as e:
            raise IvshmemError(f"ivshmem server: cannot open the shared memory {memory}: {e.strerror}") from None
        if os.fstat(self._memory).st_size == 0:
            os.close(self._memory)
            raise IvshmemError(f"ivshmem server: the shared memory {memory} is empty")
        self._peers: dict[int, _Peer] = {}
        self._lock = threading.Lock()
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = os.pipe()
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            os.unlink(self.socket_path)
        except FileNotFoundError:
            pass
        self._listener.bind(self.socket_path)
        self._listener.listen(8)
        self._thread: threading.Thread | None = None

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> "Server":
        self._thread = threading.Thread(target=self.serve, name="ivshmem-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        os.write(self._wake_w, b"x")
        if self._thread:
            self._thread.join(5)
        for p in list(self._peers.values()):
            self._drop(p, notify=False)
        for fd in (self._memory, self._wake_r, self._wake_w):
            os.close(fd)
        self._listener.close()
        try:
            os.unlink(self.socket_path)
        except FileNotFoundError:
            pass

    def __enter__(self) -> "Server":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def peers(self) -> list[int]:
        with self._lock:
            return sorted(self._peers)

    # ---------------------------------------------------------------- serving

    def serve(self) -> None:
        """Accepts clients and notices the ones that leave, until :meth:`stop`."""
        self._selector.register(self._listener, selectors.EVENT_READ, None)
        self._selector.register(self._wake_r, selectors.EVENT_READ, "stop")
        while True:
            for key, _ in self._selector.select():
                if key.data == "stop":
                    self._selector.close()
                    return
                if key.data is None:
                    conn, _ = self._listener.accept()
                    self._admit(conn)
                else:
                    # a client never sends: readable means it has gone (EOF) or broke
                    try:
                        gone = not key.fileobj.recv(64)
                    except OSError:
                        gone = True
                    if gone:
                        self._drop(key.data, notify=True)

    def _admit(self, conn: socket.socket) -> None:
        with self._lock:
            new_id = next((i for i in range(MAX_ID + 1) if i not in self._peers), None)
            if new_id is None:
                conn.close()
                return
            peer = _Peer(new_id, conn, [os.eventfd(0, os.EFD_CLOEXEC) for _ in range(self.vectors)])
            others = [p for p in self._peers.values()]
            try:
                _send(conn, PROTOCOL_VERSION)
                _send(conn, new_id)
                _send(conn, -1, self._memory)
                for other in others:
                    for fd in other.eventfds:
                        _send(conn, other.id, fd)
                for fd in peer.eventfds:
                    _send(conn, new_id, fd)
            except OSError:
                for fd in peer.eventfds:
                    os.close(fd)
                conn.close()
                return
            self._peers[new_id] = peer
            for other in others:
                try:
                    for fd in peer.eventfds:
                        _send(other.conn, new_id, fd)
                except OSError:
                    pass  # it is leaving: its EOF is next in the selector
        self._selector.register(conn, selectors.EVENT_READ, peer)

    def _drop(self, peer: _Peer, notify: bool) -> None:
        with self._lock:
            if self._peers.pop(peer.id, None) is None:
                return
            try:
                self._selector.unregister(peer.conn)
            except (KeyError, ValueError, RuntimeError):
                pass
            peer.conn.close()
            for fd in peer.eventfds:
                os.close(fd)
            if notify:
                for other in self._peers.values():
                    try:
                        _send(other.conn, peer.id)
                    except OSError:
                        pass


class Client:
    """A peer that is not a QEMU guest (the host side of a board): connects, takes its ID, the memory
    and every peer's eventfds, and rings a peer with :meth:`ring`."""

    def __init__(self, socket_path: str | Path, timeout: float = 5.0):
        self.conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.conn.settimeout(timeout)
        try:
            self.conn.connect(str(socket_path))
        except OSError as e:
            self.conn.close()
            raise IvshmemError(f"ivshmem client: cannot connect to {socket_path}: {e.strerror}") from None
        self.peers: dict[int, list[int]] = {}   # id -> eventfds that interrupt it, by vector
        self.own: list[int] = []                # the eventfds this client is interrupted through
        version, _ = self._receive()
        if version != PROTOCOL_VERSION:
            self.close()
            raise IvshmemError(f"ivshmem client: protocol version {version}, not {PROTOCOL_VERSION}")
        self.id, _ = self._receive()
        minus_one, self.memory = self._receive()
        if minus_one != -1 or self.memory is None:
            self.close()
            raise IvshmemError("ivshmem client: the server sent no shared memory")

    def _receive(self) -> tuple[int, int | None]:
        data, fds, _, _ = socket.recv_fds(self.conn, _MESSAGE.size, 1)
        if len(data) != _MESSAGE.size:
            raise IvshmemError("ivshmem client: the server closed the connection" if not data
                               else f"ivshmem client: a message of {len(data)} bytes")
        return _MESSAGE.unpack(data)[0], (fds[0] if fds else None)

    def update(self, wait: float = 0.0) -> None:
        """Takes the messages the server has sent (waiting up to ``wait`` s for the first)."""
        while select.select([self.conn], [], [], wait)[0]:
            wait = 0.0
            number, fd = self._receive()
            if number == self.id and fd is not None:
                self.own.append(fd)
            elif fd is not None:
                self.peers.setdefault(number, []).append(fd)
            else:
                for old in self.peers.pop(number, []):
                    os.close(old)

    def ring(self, peer: int, vector: int = 0) -> None:
        """Interrupts ``peer`` on ``vector``, as a guest's write to its Doorbell register does."""
        self.update()
        fds = self.peers.get(peer, [])
        if vector >= len(fds):
            raise IvshmemError(f"ivshmem client: peer {peer} has no vector {vector} (peers: {sorted(self.peers)})")
        os.eventfd_write(fds[vector], 1)

    def close(self) -> None:
        for fd in [self.memory] + self.own + [f for fds in self.peers.values() for f in fds]:
            if fd is not None:
                os.close(fd)
        self.peers, self.own, self.memory = {}, [], None
        self.conn.close()


def main(argv: list[str] | None = None) -> int:
    """`python -m rtdroid.ivshmem --socket PATH --memory FILE [--vectors N]`: serve until SIGTERM."""
    import argparse
    import signal
    ap = argparse.ArgumentParser(prog="rtdroid.ivshmem", description=__doc__.split("\n\n")[0])
    ap.add_argument("--socket", required=True, help="the UNIX socket QEMU's ivshmem-doorbell chardev connects to")
    ap.add_argument("--memory", required=True, help="the shared memory: an existing file (the region's)")
    ap.add_argument("--vectors", type=int, default=1, help=f"interrupt vectors per peer (1..{MAX_VECTORS})")
    a = ap.parse_args(argv)
    server = Server(a.socket, a.memory, a.vectors)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    with server:
        print(f"rtdroid.ivshmem: serving {a.memory} on {a.socket}, {a.vectors} vector(s) per peer", flush=True)
        stop.wait()
    return 0


if __name__ == "__main__":
    from . import entry
    raise SystemExit(entry.run(main, "rtdroid.ivshmem"))
