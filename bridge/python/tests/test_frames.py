import random

import pytest
from google.protobuf.descriptor import FieldDescriptor

from xcc import frames as F

U64 = (1 << 64) - 1


def roundtrip(frame):
    data = F.encode(frame)
    back = F.decode(data)
    assert back == frame
    assert F.encode(back) == data
    return data


def test_bounds_come_from_xcc_options():
    assert F.bound_of("Intent", "action") == 63  # nanopb counts the NUL of strings
    assert F.bound_of("Intent", "payload") == 224
    assert F.bound_of("Intent", "sender") == 47
    assert F.bound_of("Message", "payload") == 256
    assert F.bound_of("Control", "text") == 255
    assert F.bound_of("ServiceInfo", "state") == 15
    assert F.bound_of("DeployChunk", "data") == 384
    assert F.bound_of("TimelineEntry", "track") == 63
    assert len(F.BOUNDS) == 14


def test_round_trip_every_body():
    roundtrip(F.Frame(seq=1, send_time_nanos=2, intent=F.Intent(action="a", channel="echo", sender_priority=99,
                                                                 payload=b"\x00\xff", correlation_id=U64,
                                                                 sender="s", rt_receive_nanos=3, rt_reply_nanos=4)))
    roundtrip(F.Frame(seq=U64, message=F.Message(channel="c", what=-5, arg1=-(1 << 31), arg2=(1 << 31) - 1,
                                                 payload=b"p" * 256, correlation_id=9)))
    roundtrip(F.Frame(control=F.Control(kind=F.Control.STATS, stats=F.Stats(frames_in=U64, resyncs=1))))
    roundtrip(F.Frame(control=F.Control(kind=F.Control.SERVICE_INFO, service=F.ServiceInfo(name="x", count=1))))
    roundtrip(F.Frame(control=F.Control(kind=F.Control.TIMELINE, timeline=F.TimelineEntry(
        track="a" * 63, label="l" * 31, index=2, count=3, seq=U64, flags=63, actual_end_nanos=U64, tid=7, kind=1))))
    roundtrip(F.Frame(deploy_chunk=F.DeployChunk(bundle="echo", index=1, count=2, total_bytes=400,
                                                 bundle_crc32=0xFFFFFFFF, data=b"d" * 384)))


def test_empty_body_member_is_written():
    frame = F.Frame()
    frame.control.SetInParent()
    assert F.encode(frame) == b"\x62\x00"
    assert F.decode(b"\x62\x00").WhichOneof("body") == "control"


def test_encode_refuses_no_body():
    with pytest.raises(F.FrameError) as e:
        F.encode(F.Frame(seq=1))
    assert e.value.error_class == "NO_BODY"


def _string_and_bytes_fields():
    for name, bound in F.BOUNDS.items():
        message_name, field_name = name.split(".")[-2:]
        yield message_name, field_name, bound


def _frame_with(message_name, field_name, value):
    frame = F.Frame(seq=1)
    if message_name == "Intent":
        target = frame.intent
    elif message_name == "Message":
        target = frame.message
    elif message_name == "Control":
        target = frame.control
    elif message_name == "ServiceInfo":
        target = frame.control.service
    elif message_name == "TimelineEntry":
        target = frame.control.timeline
    else:
        target = frame.deploy_chunk
    setattr(target, field_name, value)
    return frame


@pytest.mark.parametrize("message_name,field_name,bound", list(_string_and_bytes_fields()))
def test_every_bound_at_and_over(message_name, field_name, bound):
    fd = getattr(F, message_name).DESCRIPTOR.fields_by_name[field_name]
    make = (lambda n: "\u00e9" * (n // 2) + "x" * (n % 2)) if fd.type == FieldDescriptor.TYPE_STRING \
        else (lambda n: b"\xab" * n)
    at = _frame_with(message_name, field_name, make(bound))
    data = F.encode(at, max_frame_bytes=4096)
    assert F.decode(data, max_frame_bytes=4096) == at
    over = _frame_with(message_name, field_name, make(bound + 1))
    with pytest.raises(F.FrameError) as e:
        F.encode(over, max_frame_bytes=4096)
    assert e.value.error_class == "OVER_BOUND"
    assert f"{message_name}.{field_name}" in str(e.value) and str(bound) in str(e.value)
    raw = over.SerializeToString()
    with pytest.raises(F.FrameError) as e:
        F.decode(raw, max_frame_bytes=4096)
    assert e.value.error_class == "OVER_BOUND"


def test_frame_cap():
    frame = F.Frame(seq=U64, send_time_nanos=U64, control=F.Control(kind=5, subject="s" * 63, text="t" * 255,
                                                                     stats=F.Stats(frames_in=U64, frames_out=U64)))
    data = F.encode(frame, max_frame_bytes=4096)
    assert len(data) == 374
    with pytest.raises(F.FrameError) as e:
        F.encode(frame, max_frame_bytes=300)
    assert e.value.error_class == "OVERSIZE" and "300" in str(e.value)
    with pytest.raises(F.FrameError) as e:
        F.decode(data, max_frame_bytes=300)
    assert e.value.error_class == "OVERSIZE"


def test_largest_intent_fits_default_slot():
    frame = F.Frame(seq=U64, send_time_nanos=U64, intent=F.Intent(
        action="a" * 63, channel="c" * 63, sender_priority=0xFFFFFFFF, payload=b"p" * 224, correlation_id=U64,
        sender="s" * 47, rt_receive_nanos=U64, rt_reply_nanos=U64))
    assert len(F.encode(frame)) == 470 <= F.MAX_FRAME_BYTES



def test_random_bytes_only_raise_frame_error():
    rng = random.Random(1234)
    seeds = [F.encode(F.Frame(seq=7, intent=F.Intent(action="act", channel="echo", payload=b"xyz"))),
             F.encode(F.Frame(control=F.Control(kind=4, stats=F.Stats(frames_in=300)))),
             F.encode(F.Frame(deploy_chunk=F.DeployChunk(bundle="b", data=b"123")))]
    outcomes = set()
    for i in range(3000):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 4)):
            op = rng.randint(0, 2)
            if op == 0 and data:
                data[rng.randrange(len(data))] = rng.randrange(256)
            elif op == 1 and data:
                del data[rng.randrange(len(data)):]
            else:
                data.insert(rng.randrange(len(data) + 1), rng.randrange(256))
        try:
            F.decode(bytes(data))
            outcomes.add("ok")
        except F.FrameError as e:
            outcomes.add(e.error_class)
    assert "ok" in outcomes and "TRUNCATED" in outcomes and len(outcomes) >= 5


def test_scan_agrees_with_protobuf_on_accepted_input():
    """Whatever the strict scan accepts, protobuf parses to the same message it re-encodes."""
    rng = random.Random(99)
    base = F.encode(F.Frame(seq=3, message=F.Message(channel="ch", what=-1, payload=b"ab")))
    for _ in range(2000):
        data = bytearray(base)
        data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            frame = F.decode(bytes(data))
        except F.FrameError:
            continue
        assert F.Frame.FromString(bytes(data)) == frame


def test_dict_form_round_trip():
    fields = {"seq": 5, "control": {"kind": "DEPLOY_RESULT", "code": 2, "text": "bad"}}
    frame = F.from_dict(fields)
    assert F.to_dict(frame) == fields
    assert F.to_dict(F.from_dict({"intent": {}})) == {"intent": {}}

def _varint(v):
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


@pytest.mark.parametrize("value,ok", [(0xFFFFFFFF, True), (1 << 32, False), (U64, False)])
def test_uint32_range(value, ok):
    body = b"\x18" + _varint(value)  # Intent.sender_priority
    data = b"\x52" + bytes([len(body)]) + body
    if ok:
        assert F.decode(data).intent.sender_priority == value
    else:
        with pytest.raises(F.FrameError) as e:
            F.decode(data)
        assert e.value.error_class == "OVER_BOUND"


@pytest.mark.parametrize("value,ok", [((1 << 31) - 1, True), (1 << 31, False), (U64, True),
                                      ((1 << 64) - (1 << 31), True), ((1 << 64) - (1 << 31) - 1, False)])
def test_int32_range(value, ok):
    body = b"\x10" + _varint(value)  # Message.what
    data = b"\x5a" + bytes([len(body)]) + body
    if ok:
        F.decode(data)
    else:
        with pytest.raises(F.FrameError) as e:
            F.decode(data)
        assert e.value.error_class == "OVER_BOUND"
