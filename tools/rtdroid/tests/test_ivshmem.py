"""The project's ivshmem server against its own client, by QEMU's protocol (docs/specs/
ivshmem-spec.rst): IDs, the memory, every peer's eventfds, rings and departures."""
from __future__ import annotations

import mmap
import os
import time

import pytest

from rtdroid import ivshmem


def until(client, done):
    """Takes the server's messages until ``done()`` (they come from the server's thread)."""
    for _ in range(100):
        if done():
            return
        client.update(wait=0.05)
    assert done()


@pytest.fixture
def memory(tmp_path):
    m = tmp_path / "region"
    m.write_bytes(b"\0" * 4096)
    return m


def test_clients_get_ids_the_memory_and_each_others_eventfds(tmp_path, memory):
    with ivshmem.Server(tmp_path / "s", memory, vectors=2) as server:
        a = ivshmem.Client(tmp_path / "s")
        b = ivshmem.Client(tmp_path / "s")
        try:
            assert (a.id, b.id) == (0, 1)
            until(a, lambda: len(a.own) == 2 and len(a.peers.get(1, [])) == 2)
            until(b, lambda: len(b.own) == 2 and len(b.peers.get(0, [])) == 2)
            assert sorted(a.peers) == [1] and sorted(b.peers) == [0]
            # one memory: what one writes the other reads, and it is the board's file
            with mmap.mmap(a.memory, 4096) as ma, mmap.mmap(b.memory, 4096) as mb:
                ma[0:5] = b"hello"
                assert mb[0:5] == b"hello"
            assert memory.read_bytes()[:5] == b"hello"
            a.ring(1, vector=1)
            assert os.eventfd_read(b.own[1]) == 1
            assert server.peers() == [0, 1]
        finally:
            b.close()
        until(a, lambda: a.peers == {})
        a.close()


def test_a_departed_ids_slot_is_reused_and_a_ring_to_no_peer_is_refused(tmp_path, memory):
    with ivshmem.Server(tmp_path / "s", memory) as server:
        a = ivshmem.Client(tmp_path / "s")
        a.close()
        for _ in range(500):  # the server notices the departure on its own thread
            if not server.peers():
                break
            time.sleep(0.01)
        c = ivshmem.Client(tmp_path / "s")
        try:
            assert c.id == 0
            with pytest.raises(ivshmem.IvshmemError, match="peer 7 has no vector 0"):
                c.ring(7)
        finally:
            c.close()


def test_a_missing_or_empty_memory_is_one_line(tmp_path):
    with pytest.raises(ivshmem.IvshmemError, match="cannot open the shared memory .*nothing: No such file"):
        ivshmem.Server(tmp_path / "s", tmp_path / "nothing")
    (tmp_path / "empty").write_bytes(b"")
    with pytest.raises(ivshmem.IvshmemError, match="is empty"):
        ivshmem.Server(tmp_path / "s", tmp_path / "empty")
