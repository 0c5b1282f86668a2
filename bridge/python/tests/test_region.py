import random
import struct
import subprocess
import sys
import zlib

import pytest

from xcc import frames as F
from xcc import region as R


def frame(seq, payload=b""):
    return F.encode(F.Frame(seq=seq, intent=F.Intent(action="org.rtdroid.echo.PING", channel="echo",
                                                      payload=payload, correlation_id=seq)))


def pair(path_or_buf):
    """(android, rt) cells attached to the same region."""
    return R.attach_cell(path_or_buf, R.ANDROID_PEER), R.attach_cell(path_or_buf, R.RT_PEER)


def test_layout_follows_the_spec_formula():
    lay = R.RegionLayout(3, 64, 512)
    assert lay.section_bytes == 64 * 3 + 3 * (64 + 64 * 512)
    assert lay.region_bytes == 256 + 2 * lay.section_bytes
    assert lay.max_frame_bytes == 496
    assert lay.section_offset(1) == 256 + lay.section_bytes
    assert lay.slot(1, 2, 65) == lay.ring_header(1, 2) + 64 + 1 * 512
    for off in (lay.consumer_line(0, 2), lay.ring_header(1, 1), lay.slot(0, 1, 3), lay.state_line(1)):
        assert off % 64 == 0


@pytest.mark.parametrize("args,field", [((1, 4, 128), "rings_per_peer"), ((9, 4, 128), "rings_per_peer"),
                                        ((2, 3, 128), "slots_per_ring"), ((2, 8192, 128), "slots_per_ring"),
                                        ((2, 4, 100), "slot_bytes"), ((2, 4, 8192), "slot_bytes")])
def test_layout_bounds(args, field):
    with pytest.raises(R.RegionError) as e:
        R.RegionLayout(*args)
    assert e.value.field == field and str(args[["rings_per_peer", "slots_per_ring", "slot_bytes"].index(field)]) \
        in str(e.value)


def test_format_file_and_dump(region_file):
    d = R.dump(region_file)
    assert d["header"]["magic"] == 0x31434358 and d["header"]["rings_per_peer"] == 3
    assert d["header"]["header_crc32"] == zlib.crc32(region_file.read_bytes()[:44])
    assert [p["state"] for p in d["peers"]] == ["RESET", "RESET"]
    assert [r["producer"]["ring_class"] for r in d["peers"][1]["rings"]] == [0, 1, 2]
    assert region_file.stat().st_size == R.RegionLayout(3, 8, 256).region_bytes


def test_format_truncates_a_previous_region(tmp_path):
    path = tmp_path / "r"
    R.format(path, 3, 64, 512)
    R.format(path, 2, 4, 128)
    assert path.stat().st_size == 2816
    assert R.dump(path)["header"]["slots_per_ring"] == 4


def test_header_rules_name_the_field(tmp_path):
    img = R.format_image(2, 4, 128)
    struct.pack_into("<H", img, 4, 7)
    struct.pack_into("<I", img, 44, R.header_crc(img))
    with pytest.raises(R.RegionError) as e:
        R.attach_cell(img, 0)
    assert e.value.field == "layout_version" and "7" in str(e.value)
    short = R.format_image(2, 4, 128)[:2048]
    with pytest.raises(R.RegionError) as e:
        R.open_region(bytearray(short), 0)
    assert e.value.field == "region_bytes"
    with pytest.raises(R.RegionError):
        R.open_region(bytearray(64), 0)


@pytest.mark.parametrize("open_it", [lambda p: R.open_region(p, 1), R.dump, R.attach_management,
                                     lambda p: R.attach_cell(p, 0)])
@pytest.mark.parametrize("offset,field", [(0, "magic"), (20, "header_crc32"), (45, "header_crc32")])
def test_a_corrupt_file_header_is_a_region_error_and_the_mapping_is_closed(tmp_path, open_it, offset, field):
    # a view of the mapping left exported by the validation made closing the mmap raise
    # BufferError ("cannot close exported pointers exist") in place of the RegionError
    path = tmp_path / "r"
    R.format(path, 3, 8, 256)
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(b"\xff")
    with pytest.raises(R.RegionError) as e:
        open_it(path)
    assert e.value.field == field


def test_attach_sets_state_epoch_heartbeat(region_file):
    android, rt = pair(region_file)
    assert rt.peer_state(0) == R.STATE_READY and rt.peer_epoch(0) == 1 and rt.peer_heartbeat(0) == 1
    rt.heartbeat()
    assert android.peer_heartbeat(0) == 2
    rt.close()
    rt = R.attach_cell(region_file, R.RT_PEER)
    assert android.peer_epoch(0) == 2
    assert android.observe_peer() and android.peer_restarts == 1
    assert not android.observe_peer()
    android.close(), rt.close()


def test_round_trip_many_laps(region_file):
    android, rt = pair(region_file)
    p, c = android.producer(1), rt.consumer(1)
    sent, got = [], []
    for i in range(1, 200):
        for _ in range(i % 5):
            data = frame(len(sent) + 1, bytes([i % 256]) * (i % 60))
            if p.offer(data):
                sent.append(data)
        while (d := c.poll()) is not None:
            got.append(d)
    while (d := c.poll()) is not None:
        got.append(d)
    assert got == sent and len(sent) > 300
    counters = c.counters()
    assert counters["frames_accepted"] == len(sent) and counters["frames_corrupt"] == counters["resyncs"] == 0
    assert R.dump(region_file)["peers"][1]["rings"][1]["producer"]["frames_written"] == len(sent)


def test_offer_refuses_oversize_before_touching_the_ring(region_file):
    android, rt = pair(region_file)
    before = region_file.read_bytes()
    with pytest.raises(ValueError, match="240"):
        android.producer(1).offer(b"x" * 241)
    with pytest.raises(ValueError):
        android.producer(1).offer(b"")
    assert region_file.read_bytes() == before


def test_stale_frames_skipped_on_restart(region_file):
    android, rt = pair(region_file)
    p = android.producer(2)
    for i in range(3):
        assert p.offer(frame(i + 1))
    rt.close()
    rt = R.attach_cell(region_file, R.RT_PEER)  # restart: the three frames were for the old incarnation
    c = rt.consumer(2)
    assert c.poll() is None
    assert c.counters()["stale_skipped"] == 3
    assert p.offer(frame(4))
    assert F.decode(c.poll()).seq == 4


def corrupt_setup():
    img = R.format_image(2, 4, 128)
    android, rt = pair(img)
    return img, android, rt, android.producer(1), rt.consumer(1)


def slot_off(img, index):
    return R.validate_header(img).slot(1, 1, index)


@pytest.mark.parametrize("patch", ["len0", "len_big", "len_huge", "crc", "slot_index", "torn"])
def test_corrupt_slot_is_counted_and_skipped(patch):
    img, android, rt, p, c = corrupt_setup()
    assert p.offer(frame(1, b"abcdefgh")) and p.offer(frame(2))
    off = slot_off(img, 0)
    if patch == "len0":
        struct.pack_into("<I", img, off, 0)
    elif patch == "len_big":
        struct.pack_into("<I", img, off, 113)
    elif patch == "len_huge":
        struct.pack_into("<I", img, off, 0xFFFFFFFF)
    elif patch == "crc":
        img[off + 4] ^= 1
    elif patch == "slot_index":
        struct.pack_into("<Q", img, off + 8, 4)
    else:  # a torn write: the tail of the frame is not what the CRC covered
        img[off + 16 + 20] ^= 0x55
    assert c.poll_result() == (R.POLL_CORRUPT, None)
    assert F.decode(c.poll()).seq == 2
    assert c.poll() is None
    assert c.counters()["frames_corrupt"] == 1 and c.counters()["frames_accepted"] == 1


def test_crc_checked_on_private_copy():
    """A writer that changes the slot after the reader copied it cannot change what is delivered."""
    img, android, rt, p, c = corrupt_setup()
    assert p.offer(frame(1, b"original"))
    got = c.poll()
    img[slot_off(img, 0) + 16:slot_off(img, 0) + 40] = b"\xff" * 24
    assert F.decode(got).intent.payload == b"original"


@pytest.mark.parametrize("w,rd", [(2, 5), (9, 0), ((1 << 64) - 1, 0), (0, 3)])
def test_incredible_index_is_a_fault_until_the_producer_beat_twice_then_resyncs(w, rd):
    img, android, rt, p, c = corrupt_setup()
    lay = R.validate_header(img)
    struct.pack_into("<Q", img, lay.ring_header(1, 1), w)
    c.read_index = rd
    for _ in range(2):
        assert c.poll_result() == (R.POLL_EMPTY, None)  # waits for the producer's heal
    assert c.read_index == rd and c.counters()["write_index_faults"] == 1 and c.counters()["resyncs"] == 0
    android.heartbeat()
    assert c.poll_result() == (R.POLL_EMPTY, None)  # one beat: its heal may still be under way
    android.heartbeat()
    assert c.poll_result() == (R.POLL_RESYNC, None)  # two beats and no heal: it stands by it
    assert c.read_index == w and c.counters()["resyncs"] == 1
    assert struct.unpack_from("<Q", img, lay.consumer_line(0, 1))[0] == w
    assert struct.unpack_from("<Q", img, lay.consumer_line(0, 1) + 48)[0] == 1  # write_index_faults, shared
    assert c.poll_result() == (R.POLL_EMPTY, None)


def test_the_management_agents_ring_has_no_heartbeat_to_wait_on_and_is_resynchronised_at_once():
    img, android, rt, p, c = corrupt_setup()
    agent = R.attach_management(img)
    assert agent.producer(0).offer(frame(1))
    struct.pack_into("<Q", img, R.validate_header(img).ring_header(R.ANDROID_PEER, 0), 9)
    c0 = rt.consumer(0)
    assert c0.poll_result() == (R.POLL_RESYNC, None)
    assert c0.read_index == 9 and c0.counters()["write_index_faults"] == c0.counters()["resyncs"] == 1


@pytest.mark.parametrize("scribble", [0, 99, (1 << 64) - 1])  # backwards, too far ahead, huge
def test_frames_unread_when_the_write_index_is_scribbled_are_read_after_the_heal(scribble):
    img, android, rt, p, c = corrupt_setup()
    for i in range(4):
        assert p.offer(frame(i + 1))
    assert F.decode(c.poll()).seq == 1
    struct.pack_into("<Q", img, R.validate_header(img).ring_header(1, 1), scribble)
    assert c.poll_result() == (R.POLL_EMPTY, None)
    assert android.heal(1) >= 1  # the producer puts its write index back (heal, then beat)
    android.heartbeat()
    android.heartbeat()
    assert [F.decode(c.poll()).seq for _ in range(3)] == [2, 3, 4]
    assert c.poll_result() == (R.POLL_EMPTY, None)
    assert c.counters()["write_index_faults"] == 1 and c.counters()["resyncs"] == 0


def test_producer_treats_incredible_reader_as_full():
    img, android, rt, p, c = corrupt_setup()
    lay = R.validate_header(img)
    struct.pack_into("<Q", img, lay.consumer_line(0, 1), 99)
    assert not p.offer(frame(1))
    assert R.dump(img)["peers"][1]["rings"][1]["producer"]["frames_dropped_full"] == 1


def test_peer_restart_resetting_its_write_index():
    img, android, rt, p, c = corrupt_setup()
    for i in range(3):
        p.offer(frame(i + 1))
        c.poll()
    android.close()
    lay = R.validate_header(img)
    struct.pack_into("<Q", img, lay.ring_header(1, 1), 0)  # a restarted peer that zeroes its index
    android = R.attach_cell(img, R.ANDROID_PEER)
    assert rt.observe_peer() and rt.peer_restarts == 1
    assert c.poll_result()[0] == R.POLL_EMPTY  # a fault: the producer may still heal it
    android.heartbeat()
    android.heartbeat()  # it beat twice and stands by index 0
    assert c.poll_result()[0] == R.POLL_RESYNC
    p2 = android.producer(1)
    assert p2.offer(frame(10))
    assert F.decode(c.poll()).seq == 10


def test_flood_drops_are_bounded_and_counted():
    img, android, rt, p, c = corrupt_setup()
    offered = accepted = delivered = 0
    for i in range(10000):
        offered += 1
        accepted += p.offer(frame(i + 1))
        if i % 10 == 0:  # the RT side drains ten times slower than the Android side writes
            delivered += c.poll() is not None
    while c.poll() is not None:
        delivered += 1
    hdr = R.dump(img)["peers"][1]["rings"][1]["producer"]
    assert hdr["frames_written"] == accepted == delivered
    assert hdr["frames_dropped_full"] == offered - accepted > 8000
    assert c.counters()["frames_corrupt"] == 0


def test_undecodable_and_unknown_kind_are_undeliverable():
    img, android, rt, p, c = corrupt_setup()
    p.offer(b"\x08\x01\x72\x00")  # field 14: unknown frame kind
    p.offer(b"\x52\x05\x0a")  # truncated protobuf
    classes = []
    while (data := c.poll()) is not None:
        try:
            F.decode(data)
        except F.FrameError as e:
            classes.append(e.error_class)
            c.count_undeliverable()
    assert classes == ["NO_BODY", "TRUNCATED"]
    assert c.counters()["frames_undeliverable"] == 2 and c.counters()["frames_accepted"] == 2


def test_hostile_writer_never_crashes_the_reader():
    """Random garbage in the other peer's whole section: only counted results, offsets stay inside."""
    rng = random.Random(7)
    img, android, rt, p, c = corrupt_setup()
    lay = R.validate_header(img)
    start, end = lay.section_offset(1), lay.section_offset(1) + lay.section_bytes
    for _ in range(3000):
        for _ in range(rng.randint(1, 8)):
            off = rng.randrange(start, end)
            img[off] = rng.randrange(256)
        if rng.random() < 0.3:
            struct.pack_into("<Q", img, lay.ring_header(1, 1), rng.choice([c.read_index + rng.randint(0, 4),
                                                                          rng.getrandbits(64)]))
        result, data = c.poll_result()
        assert result in (R.POLL_FRAME, R.POLL_EMPTY, R.POLL_CORRUPT, R.POLL_RESYNC)
        if data is not None:
            assert 1 <= len(data) <= lay.max_frame_bytes
    assert len(img) == lay.region_bytes


def test_attach_management_owns_only_ring0(region_file):
    android, rt = pair(region_file)
    rt.producer(0).offer(F.encode(F.Frame(control=F.Control(kind=F.Control.HELLO))))  # an old answer
    before = R.dump(region_file)
    mg = R.attach_management(region_file)
    after = R.dump(region_file)
    assert after["peers"][1]["state"] == before["peers"][1]["state"]
    assert after["peers"][1]["epoch"] == before["peers"][1]["epoch"]
    assert after["peers"][0]["rings"][0]["consumer"]["stale_skipped"] == 1
    assert mg.consumer(0).poll() is None
    mg.close()


def test_data_ring_for():
    assert [R.data_ring_for(p, 3) for p in (99, 50, 49, 0)] == [1, 1, 2, 2]
    assert {R.data_ring_for(p, 2) for p in range(100)} == {1}
    with pytest.raises(ValueError):
        R.data_ring_for(100, 3)


def test_two_processes_through_a_shared_file(region_file):
    """A producer in another process writes through its own mapping; this process reads all in order."""
    rt = R.attach_cell(region_file, R.RT_PEER)
    c = rt.consumer(1)
    code = f"""
import time
from xcc import region as R, frames as F
a = R.attach_cell({str(region_file)!r}, R.ANDROID_PEER)
p = a.producer(1)
for i in range(1, 3001):
    data = F.encode(F.Frame(seq=i, intent=F.Intent(channel="echo", payload=i.to_bytes(4, "little"))))
    while not p.offer(data):
        time.sleep(0.0001)
"""
    proc = subprocess.Popen([sys.executable, "-c", code])
    seqs = []
    import time
    deadline = time.monotonic() + 60
    while len(seqs) < 3000 and time.monotonic() < deadline:
        data = c.poll()
        if data is None:
            time.sleep(0.0001)
            continue
        f = F.decode(data)
        assert int.from_bytes(f.intent.payload, "little") == f.seq
        seqs.append(f.seq)
    assert proc.wait(30) == 0
    assert seqs == list(range(1, 3001))
    assert c.counters()["frames_corrupt"] == 0


def test_format_in_place_keeps_the_file_and_writes_a_valid_region(tmp_path):
    p = tmp_path / "backing"
    p.write_bytes(b"\xa5" * (4 << 20))            # a VM's 4 MiB ivshmem backing with old contents
    layout = R.format_in_place(str(p), rings=3, slots=16, slot_bytes=512)
    data = p.read_bytes()
    assert len(data) == 4 << 20                     # neither truncated nor resized
    assert R.validate_header(bytearray(data)) == layout
    assert data[layout.region_bytes:] == b"\xa5" * ((4 << 20) - layout.region_bytes)


def test_format_in_place_refuses_a_file_too_small(tmp_path):
    p = tmp_path / "backing"
    p.write_bytes(bytes(4096))
    with pytest.raises(R.RegionError, match="region_bytes"):
        R.format_in_place(str(p), rings=3, slots=256, slot_bytes=512)
    assert p.read_bytes() == bytes(4096)
