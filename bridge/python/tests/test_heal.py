"""Self-healing (region-spec.md, "A peer's own fields"), the twin of Java's SelfHealingTest and C's
test_heal_*: every field of the layout a peer owns (its state line, each of its data rings' headers,
each of its consumer lines), scribbled on by the other cell, is put back by the owner's
``Region.heal`` from its private truth, and frames flow both ways again afterwards. Both peers,
every field."""

import struct
from dataclasses import dataclass

import pytest

from xcc import region as R

RINGS, SLOTS = 3, 8
LAYOUT = R.RegionLayout(RINGS, SLOTS, 256)


@dataclass(frozen=True)
class Field:
    name: str
    owner: int
    offset: int
    u32: bool
    hostile: int

    def __str__(self):
        return ("rt " if self.owner == R.RT_PEER else "android ") + self.name


def owned_fields():
    fields = []
    for peer in (R.RT_PEER, R.ANDROID_PEER):
        state = LAYOUT.state_line(peer)
        fields += [Field("state", peer, state + R.STATE_OFFSET, True, R.STATE_STOPPING),
                   Field("epoch", peer, state + R.EPOCH_OFFSET, True, 77),
                   Field("heartbeat", peer, state + R.HEARTBEAT_OFFSET, False, 0),
                   Field("header_repairs", peer, state + R.HEADER_REPAIRS_OFFSET, False, 999)]
        for ring in range(1, RINGS):
            header = LAYOUT.ring_header(peer, ring)
            fields += [Field(f"ring {ring} write_index", peer, header + R.WRITE_INDEX_OFFSET, False, 1 << 40),
                       Field(f"ring {ring} frames_written", peer, header + R.FRAMES_WRITTEN_OFFSET, False, 999),
                       Field(f"ring {ring} frames_dropped_full", peer, header + R.FRAMES_DROPPED_FULL_OFFSET, False, 999),
                       Field(f"ring {ring} ring_class", peer, header + R.RING_CLASS_OFFSET, True, 7)]
            line = LAYOUT.consumer_line(peer, ring)
            fields += [Field(f"line {ring} {name}", peer, line + 8 * i, False, 1 << 40 if i == 0 else 999)
                       for i, name in enumerate(R.CONSUMER_FIELDS)]
    return fields


FIELDS = owned_fields()


def test_the_list_covers_every_field_the_spec_gives_a_peer():
    # per peer: state line 4, and per data ring 4 ring-header fields + 7 consumer-line fields
    assert len(FIELDS) == 2 * (4 + 11 * (RINGS - 1))
    assert len({(f.owner, f.offset) for f in FIELDS}) == len(FIELDS)


def attached():
    img = R.format_image(RINGS, SLOTS, 256)
    rt = R.attach_cell(img, R.RT_PEER)
    android = R.attach_cell(img, R.ANDROID_PEER, owns_management_ring=False)
    return img, rt, android


def load(img, f):
    return struct.unpack_from("<I" if f.u32 else "<Q", img, f.offset)[0]


def store(img, f, value):
    struct.pack_into("<I" if f.u32 else "<Q", img, f.offset, value)


def pass_of(peer):
    """One pass of a peer's loop with nothing to send: it polls every data ring it reads."""
    for ring in range(1, RINGS):
        assert peer.consumer(ring).poll() is None, "nothing was sent"


def exchange(rt, android, rounds, per_round):
    """``rounds`` rounds of ``per_round`` frames each way on every data ring, all received in order."""
    for _ in range(rounds):
        for ring in range(1, RINGS):
            for sender, receiver in ((rt, android), (android, rt)):
                out, into = sender.producer(ring), receiver.consumer(ring)
                for _ in range(per_round):
                    seq = out.counters()["frames_written"]
                    frame = seq.to_bytes(8, "little") + bytes(16)
                    assert out.offer(frame), f"ring {ring} accepts frame {seq}"
                    assert into.poll() == frame, f"ring {ring} delivers frame {seq}"


@pytest.mark.parametrize("f", FIELDS, ids=str)
def test_the_owner_puts_a_scribbled_field_back_and_traffic_flows_again(f):
    img, rt, android = attached()
    peers = (rt, android)
    exchange(rt, android, 1, 3)
    before = load(img, f)
    store(img, f, f.hostile)  # the other cell scribbles; the owner's next heal puts it back
    owner, other = peers[f.owner], peers[1 - f.owner]
    pass_of(other)  # the other side reads what was scribbled (and resyncs to it)
    assert owner.heal(1) == 1, f"{f} repaired once"
    assert load(img, f) == before, f"{f} back to the owner's value"
    assert owner.repairs == 1
    assert owner.heal(1) == 0, "nothing left to repair"
    assert other.heal(1) == 0, "the other peer owns nothing of it"
    pass_of(other)
    exchange(rt, android, 10, 2 * SLOTS)


@pytest.mark.parametrize("f", [f for f in FIELDS if f.name.endswith("_index")], ids=str)
def test_without_healing_a_moved_read_index_stops_the_link_a_moved_write_index_does_not(f):
    """The failure healing exists for, shown for the read index, whose loss stops traffic; a moved
    write index is a fault the consumer waits on without moving its read index, so the producer's
    own next frame publishes its index again and nothing is lost."""
    img, rt, android = attached()
    exchange(rt, android, 1, 3)
    store(img, f, f.hostile)
    ring = int(f.name.split()[1])
    owner, other = (rt, android) if f.owner == R.RT_PEER else (android, rt)
    producer_peer, consumer_peer = (owner, other) if f.name.endswith("write_index") else (other, owner)
    pass_of(consumer_peer)  # it reads the moved index first (a moved write index: a fault, it waits)
    delivered = 0
    for _ in range(2 * SLOTS):
        producer_peer.producer(ring).offer(bytes(32))
        delivered += consumer_peer.consumer(ring).poll() is not None
    if f.name.endswith("write_index"):
        c = consumer_peer.consumer(ring).counters()
        assert delivered == 2 * SLOTS and c["resyncs"] == 0 and c["write_index_faults"] == 1, (f, delivered, c)
    else:
        assert delivered == 0, f"{f} moved: nothing gets through until the owner heals"


def test_heal_leaves_own_changes_and_other_owners_alone():
    img, rt, android = attached()
    rt.set_state(R.STATE_STOPPING)  # the owner's own change is its new truth
    assert rt.heal(1) == 0 and android.heal(1) == 0
    assert android.peer_state(R.RT_PEER) == R.STATE_STOPPING
    # the Android cell heals from ring 1: ring 0 and consumer line 0 are the management agent's
    ring0 = LAYOUT.ring_header(R.ANDROID_PEER, 0)
    struct.pack_into("<Q", img, ring0 + R.WRITE_INDEX_OFFSET, 5)
    assert android.heal(1) == 0 and struct.unpack_from("<Q", img, ring0)[0] == 5
    struct.pack_into("<Q", img, ring0 + R.WRITE_INDEX_OFFSET, 0)
    # the management agent heals ring 0 and consumer line 0 only, never the state line
    mg = R.attach_management(img)
    line0 = LAYOUT.consumer_line(R.ANDROID_PEER, 0)
    struct.pack_into("<Q", img, ring0 + R.FRAMES_WRITTEN_OFFSET, 999)
    struct.pack_into("<Q", img, line0 + R.READ_INDEX_OFFSET, 1 << 40)
    state = LAYOUT.state_line(R.ANDROID_PEER)
    struct.pack_into("<I", img, state + R.STATE_OFFSET, R.STATE_FAILED)
    data1 = LAYOUT.ring_header(R.ANDROID_PEER, 1)
    struct.pack_into("<Q", img, data1 + R.WRITE_INDEX_OFFSET, 1 << 40)
    assert mg.heal(0) == 2 and mg.repairs == 2
    assert struct.unpack_from("<Q", img, line0)[0] == 0
    assert struct.unpack_from("<I", img, state)[0] == R.STATE_FAILED  # the cell's, not the agent's
    # which the Android cell's own heal puts back, with its data ring's write index
    assert android.heal(1) == 2 and android.peer_state(R.ANDROID_PEER) == R.STATE_READY
    assert struct.unpack_from("<Q", img, data1)[0] == 0
    mg.close()


def test_a_tool_that_only_opened_the_region_owns_nothing():
    img, rt, android = attached()
    tool = R.open_region(img, R.ANDROID_PEER)
    struct.pack_into("<I", img, LAYOUT.state_line(R.ANDROID_PEER) + R.EPOCH_OFFSET, 77)
    struct.pack_into("<Q", img, LAYOUT.ring_header(R.ANDROID_PEER, 1), 1 << 40)
    assert tool.heal(0) == 0
    assert android.heal(1) == 2


def test_a_cell_puts_a_scribbled_header_back_counts_it_and_the_tools_read_the_region_again():
    """Issue 38, defect 5: garbage over the header blinded every tool while the cells ran on."""
    img, rt, android = attached()
    exchange(rt, android, 1, 3)
    formatted = bytes(img[:R.HEADER_BYTES])
    img[0:48] = b"\xef\xbe\xad\xde" * 12
    struct.pack_into("<I", img, 100, 1)  # and a reserved word
    with pytest.raises(R.RegionError):
        R.dump(img)
    assert rt.heal(1) == 13, "12 words of garbage and one reserved word put back"
    assert bytes(img[:R.HEADER_BYTES]) == formatted, "byte for byte the formatted header"
    assert rt.header_repairs == 13 and rt.repairs == 13
    dumped = R.dump(img)
    assert dumped["peers"][R.RT_PEER]["header_repairs"] == 13 and dumped["peers"][R.ANDROID_PEER]["header_repairs"] == 0
    assert [c.value for c in R.counters(img) if c.label == "header_repairs"] == [13, 0]
    assert android.heal(1) == 0, "the other cell found it healed"
    # either cell heals it; a restarted cell carries its count on
    struct.pack_into("<I", img, R.SLOT_BYTES_OFFSET, 64)
    assert android.heal(1) == 1 and rt.heal(1) == 0
    assert R.attach_cell(img, R.RT_PEER).header_repairs == 13
