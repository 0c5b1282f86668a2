#!/usr/bin/env python3
"""Generate the shared test vectors of the bridge (see README.md in this folder).

    build/venv/bin/python bridge/vectors/generate.py          # rewrite frames/ and regions/
    build/venv/bin/python bridge/vectors/generate.py --check  # exit 1 if the committed files differ

Valid frames are encoded by the official protobuf runtime (python protobuf 4.25.5, upb) through
xcc.frames.encode; hand-built bytes are used only where protobuf would not produce them (non-canonical
or invalid input). Region images are built with xcc.region and then patched where a vector needs a
hostile state. Every vector is checked against xcc.frames / xcc.region before it is written, and
the output is deterministic (no timestamps, no randomness), so regeneration reproduces the files.
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
import zlib
from pathlib import Path

from xcc import frames as F
from xcc import region as R

HERE = Path(__file__).resolve().parent
U64 = (1 << 64) - 1


# --- wire helpers for hand-built frames --------------------------------------------------------

def varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def tag(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def ld(number: int, payload: bytes) -> bytes:
    return tag(number, 2) + varint(len(payload)) + payload


def vf(number: int, value: int) -> bytes:
    return tag(number, 0) + varint(value)


def enc(fields: dict) -> bytes:
    return F.encode(F.from_dict(fields), max_frame_bytes=1 << 20)


HELLO = {"seq": 1, "send_time_nanos": 1000, "control": {"kind": "HELLO", "text": "xcc-python 0.1.0"}}


# --- frame vectors -----------------------------------------------------------------------------

def frame_vectors() -> list[dict]:
    v = []

    def valid(name, description, fields):
        v.append({"name": name, "description": description, "valid": True, "canonical": True,
                  "data": enc(fields), "fields": fields})

    def valid_raw(name, description, data):
        v.append({"name": name, "description": description, "valid": True, "canonical": False,
                  "data": data, "fields": F.to_dict(F.decode(data, max_frame_bytes=1 << 20))})

    def invalid(name, description, error_class, data):
        v.append({"name": name, "description": description, "valid": False, "error_class": error_class,
                  "data": data})

    # valid, canonical
    valid("control_hello", "HELLO with agent version text", HELLO)
    valid("control_empty", "an empty Control: the set oneof member is written as 62 00; seq 0 omitted",
          {"control": {}})
    valid("intent_empty", "an empty Intent body with seq 1", {"seq": 1, "intent": {}})
    valid("message_empty", "an empty Message body", {"seq": 2, "message": {}})
    valid("deploy_chunk_empty", "an empty DeployChunk body", {"seq": 3, "deploy_chunk": {}})
    valid("intent_echo_ping", "a typical echo request",
          {"seq": 42, "send_time_nanos": 1234567890123,
           "intent": {"action": "org.rtdroid.echo.PING", "channel": "echo", "sender_priority": 50,
                      "payload": "00010203040506070809", "correlation_id": 7,
                      "sender": "org.rtdroid.demo"}})
    valid("intent_echo_pong", "a typical echo reply with RT stamps",
          {"seq": 42, "send_time_nanos": 1234567999999,
           "intent": {"action": "org.rtdroid.echo.PONG", "channel": "echo", "sender_priority": 50,
                      "payload": "00010203040506070809", "correlation_id": 7,
                      "rt_receive_nanos": 5000000001, "rt_reply_nanos": 5000020002}})
    valid("intent_zero_values_omitted", "sender_priority 0, correlation_id 0, empty payload: all omitted",
          {"seq": 5, "send_time_nanos": 0,
           "intent": {"action": "a", "channel": "c", "sender_priority": 0, "payload": "", "correlation_id": 0}})
    valid("intent_max_bounds", "every Intent field at its bound or type maximum (470 bytes)",
          {"seq": U64, "send_time_nanos": U64,
           "intent": {"action": "a" * 63, "channel": "c" * 63, "sender_priority": 0xFFFFFFFF,
                      "payload": "ab" * 224, "correlation_id": U64, "sender": "s" * 47,
                      "rt_receive_nanos": U64, "rt_reply_nanos": U64}})
    valid("intent_utf8_strings", "multi-byte UTF-8 in action, channel and sender (2-, 3- and 4-byte sequences)",
          {"seq": 9, "intent": {"action": "org.rtdroid.écho", "channel": "ch\u00e8-\u4e2d\u6587",
                                "sender": "app.\U0001F600", "payload": "ff"}})
    valid("intent_utf8_at_bound", "action of exactly 63 bytes made of 3-byte characters (21 x U+20AC)",
          {"seq": 10, "intent": {"action": "\u20ac" * 21, "channel": "echo"}})
    # The payload is the app contract's SetConfig{volume: 80, noise_reduction: 1}
    # (bridge/contracts/cochlear.proto), in protobuf's canonical encoding: field 1, field 2 varints.
    valid("intent_cochlear_config", "SET_CONFIG carrying the cochlear contract's SetConfig (volume 80, nr 1)",
          {"seq": 11, "send_time_nanos": 99,
           "intent": {"action": "org.rtdroid.cochlear.SET_CONFIG", "channel": "cochlear.config",
                      "sender_priority": 70, "payload": bytes([0x08, 80, 0x10, 1]).hex(), "correlation_id": 3}})
    valid("message_negative_ints", "negative int32 values travel as 10-byte varints",
          {"seq": 12, "message": {"channel": "echo", "what": -1, "arg1": -2147483648, "arg2": 2147483647,
                                  "correlation_id": 1}})
    valid("message_max_payload", "Message payload at its 256-byte bound",
          {"seq": 13, "message": {"channel": "m" * 63, "what": 1, "payload": "5a" * 256}})
    valid("varints_multibyte", "seq and send_time_nanos at varint length boundaries (2^7, 2^35, 2^63)",
          {"seq": 128, "send_time_nanos": 1 << 63, "control": {"kind": "HEARTBEAT"}})
    valid("control_stats", "STATS with counters of every varint length",
          {"seq": 14, "control": {"kind": "STATS", "stats": {
              "frames_in": 127, "frames_out": 16383, "dropped_corrupt": 2097151, "dropped_undeliverable": 1 << 28,
              "dropped_full": 1 << 35, "resyncs": 1 << 56, "peer_restarts": U64}}})
    valid("control_service_info", "one SERVICE_INFO answer of LIST_SERVICES",
          {"seq": 15, "control": {"kind": "SERVICE_INFO", "service": {
              "name": "echo", "state": "RUNNING", "releases": 1000, "deadline_misses": 2,
              "worst_lateness_nanos": 150000, "index": 0, "count": 1}}})
    valid("control_service_info_wcrt", "SERVICE_INFO of a task with its measured worst response and analysed WCRT",
          {"seq": 19, "control": {"kind": "SERVICE_INFO", "service": {
              "name": "cochlear/ProcessingService/processingTask", "state": "RUNNING", "releases": 1250,
              "worst_lateness_nanos": 61000, "index": 1, "count": 5, "worst_response_nanos": 412000,
              "analysed_wcrt_nanos": 2000000}}})
    valid("control_service_info_execution", "SERVICE_INFO of a task whose releases used more CPU time than its WCET",
          {"seq": 20, "control": {"kind": "SERVICE_INFO", "service": {
              "name": "cochlear/RecordingService/recordingTask", "state": "RUNNING", "releases": 3000,
              "worst_lateness_nanos": 450000, "index": 0, "count": 5, "worst_response_nanos": 1800000,
              "analysed_wcrt_nanos": 1000000, "cpu_plus_one": 1, "worst_execution_nanos": 1250000,
              "analysed_cost_nanos": 1000000, "cost_overruns": 17, "last_cost_overrun": 140}}})
    valid("control_service_info_none", "LIST_SERVICES answer with count 0: an empty ServiceInfo is written",
          {"seq": 16, "control": {"kind": "SERVICE_INFO", "service": {}}})
    valid("control_deploy_result_refused", "DEPLOY_RESULT BAD_SIGNATURE with subject and text",
          {"seq": 17, "control": {"kind": "DEPLOY_RESULT", "code": 2, "subject": "echo",
                                  "text": "signature does not verify with the board's deploy key"}})
    valid("control_text_at_bound", "Control text of exactly 255 bytes and subject of 63",
          {"seq": 18, "control": {"kind": "ERROR", "code": 1, "subject": "s" * 63, "text": "t" * 255}})
    valid("control_unknown_kind", "kind 42 is not in the enum: proto3 enums are open, the codec accepts it",
          {"seq": 19, "control": {"kind": 42}})
    valid("control_negative_kind", "kind -1: enums are open and int32 on the wire, a negative value is a 10-byte varint "
          "that every codec accepts and re-encodes as it came",
          {"seq": 19, "control": {"kind": -1}})
    valid("control_min_kind", "kind -2^31, the smallest enum value the wire can carry",
          {"seq": 19, "control": {"kind": -2147483648}})
    valid("deploy_chunk_first", "first chunk: index 0 omitted",
          {"seq": 1, "send_time_nanos": 5, "deploy_chunk": {
              "bundle": "echo", "index": 0, "count": 3, "total_bytes": 1000, "bundle_crc32": 0xDEADBEEF,
              "data": "01" * 384}})
    valid("deploy_chunk_largest_real", "the largest chunk xcc.mgmt sends: 63-byte name, 16 MiB bundle, "
          "monotonic time below 2^63 (495 bytes)",
          {"seq": U64, "send_time_nanos": (1 << 63) - 1, "deploy_chunk": {
              "bundle": "b" * 63, "index": 43690, "count": 43691, "total_bytes": 16 * 1024 * 1024,
              "bundle_crc32": 0xFFFFFFFF, "data": "ee" * 384}})
    valid("deploy_chunk_sensor_trace", "a motion trace's chunk: content SENSOR_TRACE (1), the largest "
          "xcc.mgmt sends (63-byte name, 1 MiB trace)",
          {"seq": U64, "send_time_nanos": (1 << 63) - 1, "deploy_chunk": {
              "bundle": "t" * 63, "index": 2730, "count": 2731, "total_bytes": 1024 * 1024,
              "bundle_crc32": 0xFFFFFFFF, "data": "30" * 384, "content": "SENSOR_TRACE"}})
    valid("frame_exactly_496", "a frame of exactly the 496-byte cap",
          {"seq": U64, "send_time_nanos": U64, "deploy_chunk": {
              "bundle": "b" * 63, "index": 43690, "count": 43691, "total_bytes": 16 * 1024 * 1024,
              "bundle_crc32": 0xFFFFFFFF, "data": "ee" * 384}})

    # valid, not canonical (decoders must accept; encoders never produce)
    body = ld(12, vf(1, 1))
    valid_raw("noncanonical_field_order", "body before seq", body + vf(1, 7))
    valid_raw("noncanonical_zero_written", "seq 0 written explicitly", vf(1, 0) + body)
    valid_raw("noncanonical_long_varint", "seq 1 as a 3-byte varint 81 80 00", tag(1, 0) + b"\x81\x80\x00" + body)
    valid_raw("unknown_field_skipped", "unknown fields 15 (varint), 16 (fixed64), 17 (bytes), 18 (fixed32) "
              "are skipped", vf(15, 300) + tag(16, 1) + bytes(8) + ld(17, b"xyz") + tag(18, 5) + bytes(4) + body)
    valid_raw("unknown_field_in_intent", "an unknown field 20 inside Intent is skipped",
              ld(10, ld(2, b"echo") + ld(20, b"future")))

    # invalid
    invalid("empty_input", "zero bytes: a frame with no body", "NO_BODY", b"")
    invalid("no_body", "seq and send_time only", "NO_BODY", vf(1, 1) + vf(2, 2))
    invalid("unknown_body_kind", "field 14 (not a body member) carries a message: unknown frame kind",
            "NO_BODY", vf(1, 1) + ld(14, vf(1, 1)))
    invalid("truncated_varint", "seq's varint is cut after its first byte", "TRUNCATED", tag(1, 0) + b"\x96")
    invalid("truncated_tag", "the input ends inside a two-byte tag", "TRUNCATED", body + b"\x80")
    invalid("truncated_length", "control declares 5 bytes, 2 follow", "TRUNCATED", tag(12, 2) + b"\x05" + vf(1, 1))
    invalid("truncated_nested", "Intent.action declares 10 bytes inside a 3-byte Intent", "TRUNCATED",
            tag(10, 2) + b"\x03" + tag(1, 2) + b"\x0a" + b"a")
    invalid("truncated_fixed64_unknown", "unknown fixed64 field 16 with 3 bytes left", "TRUNCATED",
            body + tag(16, 1) + b"\x01\x02\x03")
    invalid("bad_varint_11_bytes", "seq as an 11-byte varint", "BAD_VARINT", tag(1, 0) + b"\x80" * 10 + b"\x01" + body)
    invalid("bad_varint_overflow", "seq's 10th varint byte is 02: the value overflows 64 bits", "BAD_VARINT",
            tag(1, 0) + b"\xff" * 9 + b"\x02" + body)
    invalid("bad_tag_field_zero", "tag 00: field number 0", "BAD_TAG", b"\x00\x00" + body)
    invalid("bad_tag_group", "unknown field 15 as a start-group (wire type 3)", "BAD_TAG", tag(15, 3) + tag(15, 4) + body)
    invalid("bad_tag_wire_type_7", "wire type 7", "BAD_TAG", tag(1, 7) + body)
    invalid("bad_tag_6_bytes", "seq's tag as a 6-byte varint 88 80 80 80 80 00: a tag is a varint32, at most "
            "5 bytes (found by fuzzing: official protobuf refuses it)", "BAD_TAG",
            b"\x88\x80\x80\x80\x80\x00" + b"\x01" + body)
    valid_raw("noncanonical_tag_5_bytes", "seq's tag as a 5-byte varint 88 80 80 80 00: the longest a tag may be",
              b"\x88\x80\x80\x80\x00" + b"\x01" + body)
    invalid("wrong_wire_type_seq", "seq (varint) sent length-delimited", "WRONG_WIRE_TYPE", ld(1, b"\x01") + body)
    invalid("wrong_wire_type_body", "control (message) sent as a varint", "WRONG_WIRE_TYPE", vf(12, 1))
    invalid("wrong_wire_type_fixed32", "Intent.sender_priority sent as fixed32", "WRONG_WIRE_TYPE",
            ld(10, tag(3, 5) + struct.pack("<I", 50)))
    invalid("duplicate_seq", "seq occurs twice", "DUPLICATE_FIELD", vf(1, 1) + vf(1, 2) + body)
    invalid("duplicate_body_members", "intent and control both set", "DUPLICATE_FIELD", ld(10, b"") + body)
    invalid("duplicate_body_same", "control occurs twice", "DUPLICATE_FIELD", body + body)
    invalid("duplicate_nested", "Intent.channel occurs twice", "DUPLICATE_FIELD", ld(10, ld(2, b"a") + ld(2, b"b")))
    invalid("over_bound_intent_payload", "Intent.payload of 225 bytes (bound 224)", "OVER_BOUND",
            vf(1, 1) + ld(10, ld(4, bytes(225))))
    invalid("over_bound_intent_action", "Intent.action of 64 bytes (bound 63)", "OVER_BOUND",
            ld(10, ld(1, b"a" * 64)))
    invalid("over_bound_intent_sender", "Intent.sender of 48 bytes (bound 47)", "OVER_BOUND",
            ld(10, ld(6, b"s" * 48)))
    invalid("over_bound_message_payload", "Message.payload of 257 bytes (bound 256)", "OVER_BOUND",
            ld(11, ld(5, bytes(257))))
    invalid("over_bound_control_text", "Control.text of 256 bytes (bound 255)", "OVER_BOUND",
            ld(12, vf(1, 5) + ld(4, b"t" * 256)))
    invalid("over_bound_service_state", "ServiceInfo.state of 16 bytes (bound 15)", "OVER_BOUND",
            ld(12, vf(1, 9) + ld(6, ld(2, b"x" * 16))))
    invalid("over_bound_deploy_data", "DeployChunk.data of 385 bytes (bound 384)", "OVER_BOUND",
            ld(13, ld(1, b"echo") + ld(6, bytes(385))))
    invalid("over_bound_uint32", "Intent.sender_priority = 2^32 does not fit uint32", "OVER_BOUND",
            ld(10, vf(3, 1 << 32)))
    invalid("over_bound_int32", "Message.what = 2^31 (positive, 5-byte varint) does not fit int32", "OVER_BOUND",
            ld(11, vf(2, 1 << 31)))
    invalid("invalid_utf8_byte", "Intent.action contains byte ff", "INVALID_UTF8", ld(10, ld(1, b"ab\xffcd")))
    invalid("invalid_utf8_overlong", "Intent.channel contains the overlong form c0 af", "INVALID_UTF8",
            ld(10, ld(2, b"\xc0\xaf")))
    invalid("invalid_utf8_surrogate", "Control.text contains an encoded surrogate ed a0 80", "INVALID_UTF8",
            ld(12, ld(4, b"\xed\xa0\x80")))
    invalid("invalid_utf8_nul", "Intent.channel contains U+0000 (\"ec\\0ho\"): refused by every codec", "INVALID_UTF8",
            ld(10, ld(2, b"ec\x00ho")))
    invalid("invalid_utf8_cut", "DeployChunk.bundle ends inside a 3-byte sequence", "INVALID_UTF8",
            ld(13, ld(1, b"echo\xe2\x82")))
    invalid("oversize_497", "a frame one byte over the 496-byte cap (otherwise valid: an Intent at its "
            "bounds plus an unknown field 15)", "OVERSIZE", _oversize_frame())
    return v


def _oversize_frame() -> bytes:
    """497 bytes, valid apart from the cap: an Intent at its bounds plus a 27-byte unknown field."""
    base = enc({"seq": U64, "send_time_nanos": U64, "intent": {
        "action": "a" * 63, "channel": "c" * 63, "sender_priority": 0xFFFFFFFF, "payload": "ab" * 224,
        "correlation_id": U64, "sender": "s" * 47, "rt_receive_nanos": U64, "rt_reply_nanos": U64}})
    pad = 497 - len(base)
    data = base + ld(15, b"p" * (pad - 2))
    assert len(data) == 497, len(data)
    return data


# --- region vectors ----------------------------------------------------------------------------

GEOMETRY = (2, 4, 128)  # R, S, slot_bytes: 2816-byte images


def _frame(seq: int, text: str = "") -> bytes:
    fields = {"seq": seq, "send_time_nanos": 1000 + seq, "intent": {"action": "org.rtdroid.echo.PING",
                                                                    "channel": "echo", "correlation_id": seq}}
    if text:
        fields["intent"]["payload"] = text.encode().hex()
    return enc(fields)


def _put(img, peer, ring, index, frame, *, n=None, crc=None, slot_index=None):
    """Write a slot as a producer would (no index published)."""
    lay = R.validate_header(img)
    off = lay.slot(peer, ring, index)
    img[off + 16:off + 16 + len(frame)] = frame
    struct.pack_into("<IIQ", img, off, len(frame) if n is None else n,
                     zlib.crc32(frame) if crc is None else crc, index if slot_index is None else slot_index)


def _set_w(img, peer, ring, w):
    lay = R.validate_header(img)
    struct.pack_into("<Q", img, lay.ring_header(peer, ring) + R.WRITE_INDEX_OFFSET, w)


def _set_rd(img, consumer_peer, ring, rd):
    lay = R.validate_header(img)
    struct.pack_into("<Q", img, lay.consumer_line(consumer_peer, ring) + R.READ_INDEX_OFFSET, rd)


def _ring_with(frames_by_index: dict, peer=1, ring=1, w=None, rd=0, patches=None):
    """A region whose ring ``ring`` of ``peer`` holds the given frames, W and the consumer's Rd set."""
    img = R.format_image(*GEOMETRY)
    for index, frame in frames_by_index.items():
        _put(img, peer, ring, index, frame, **(patches or {}).get(index, {}))
    _set_w(img, peer, ring, max(frames_by_index) + 1 if w is None else w)
    _set_rd(img, 1 - peer, ring, rd)
    return img


def _header_patch(field_offset, fmt, value, fix_crc=True):
    img = R.format_image(*GEOMETRY)
    struct.pack_into(fmt, img, field_offset, value)
    if fix_crc:
        struct.pack_into("<I", img, R.HEADER_CRC32_OFFSET, R.header_crc(img))
    return img


def region_vectors() -> list[dict]:
    v = []
    f = {i: _frame(i + 1, f"frame {i}") for i in range(12)}

    def consumer(name, description, img, polls, consumer_peer=0, ring=1):
        v.append({"name": name, "kind": "consumer", "description": description, "image": img,
                  "consumer_peer": consumer_peer, "ring": ring, "polls": polls})

    # formats
    v.append({"name": "format_r2_s4_b128", "kind": "format", "description": "a freshly formatted region",
              "geometry": [2, 4, 128], "image": R.format_image(2, 4, 128)})
    v.append({"name": "format_r3_s8_b128", "kind": "format", "description": "three rings of 8 slots",
              "geometry": [3, 8, 128], "image": R.format_image(3, 8, 128)})

    # header errors: one defect each, CRC recomputed unless the CRC is the defect
    he = [
        ("header_bad_magic", "magic is 'XCC2'", _header_patch(R.MAGIC_OFFSET, "<I", 0x32434358), "magic"),
        ("header_bad_version", "layout_version 2", _header_patch(R.LAYOUT_VERSION_OFFSET, "<H", 2), "layout_version"),
        ("header_bad_header_bytes", "header_bytes 64", _header_patch(R.HEADER_BYTES_OFFSET, "<H", 64), "header_bytes"),
        ("header_bad_crc", "header_crc32 off by one", _header_patch(R.HEADER_CRC32_OFFSET, "<I", R.header_crc(
            R.format_image(*GEOMETRY)) ^ 1, fix_crc=False), "header_crc32"),
        ("header_bad_peer_count", "peer_count 3", _header_patch(R.PEER_COUNT_OFFSET, "<I", 3), "peer_count"),
        ("header_rings_1", "rings_per_peer 1", _header_patch(R.RINGS_PER_PEER_OFFSET, "<I", 1), "rings_per_peer"),
        ("header_slots_not_pow2", "slots_per_ring 6", _header_patch(R.SLOTS_PER_RING_OFFSET, "<I", 6), "slots_per_ring"),
        ("header_slot_bytes_100", "slot_bytes 100 (not a multiple of 64)", _header_patch(R.SLOT_BYTES_OFFSET, "<I", 100),
         "slot_bytes"),
        ("header_bad_state_table", "state_table_offset 192", _header_patch(R.STATE_TABLE_OFFSET_OFFSET, "<I", 192),
         "state_table_offset"),
        ("header_bad_section_bytes", "section_bytes one line short", _header_patch(R.SECTION_BYTES_OFFSET, "<I", 1216),
         "section_bytes"),
        ("header_bad_section1", "section_offset[1] 1600", _header_patch(R.SECTION_OFFSET1_OFFSET, "<I", 1600), "section_offset[1]"),
        ("header_region_too_small", "region_bytes 2752 (< 256 + 2*section_bytes = 2816)",
         _header_patch(R.REGION_BYTES_OFFSET, "<I", 2752), "region_bytes"),
        ("header_region_over_mapping", "region_bytes 4096 but the image has 2816 bytes",
         _header_patch(R.REGION_BYTES_OFFSET, "<I", 4096), "region_bytes"),
    ]
    for name, description, img, field in he:
        v.append({"name": name, "kind": "attach_error", "description": description, "image": img,
                  "error_field": field})

    # consumers: the reader takes its private read index from its consumer line, then polls
    fr = lambda i: {"poll": "frame", "frame": f[i], "decode": "ok"}  # noqa: E731
    E, C, S = {"poll": "empty"}, {"poll": "corrupt"}, {"poll": "resync"}
    consumer("ring_three_frames", "three frames in peer 1's ring 1, read by peer 0",
             _ring_with({0: f[0], 1: f[1], 2: f[2]}), [fr(0), fr(1), fr(2), E, E])
    consumer("ring_full", "W - Rd == S: four frames waiting",
             _ring_with({0: f[0], 1: f[1], 2: f[2], 3: f[3]}), [fr(0), fr(1), fr(2), fr(3), E])
    consumer("ring_wrapped", "W = 7, Rd = 4: slots 0..2 hold indices 4..6 (second lap)",
             _ring_with({4: f[4], 5: f[5], 6: f[6]}, rd=4), [fr(4), fr(5), fr(6), E])
    consumer("management_ring_peer0", "peer 1 reads peer 0's management ring 0",
             _ring_with({0: enc(HELLO)}, peer=0, ring=0), [{"poll": "frame", "frame": enc(HELLO), "decode": "ok"}, E],
             consumer_peer=1, ring=0)
    consumer("corrupt_crc", "slot of index 1 has a wrong frame_crc32",
             _patched({0: f[0], 1: f[1], 2: f[2]}, {1: {"crc": zlib.crc32(f[1]) ^ 0x80}}),
             [fr(0), C, fr(2), E])
    torn = _ring_with({0: f[8]})  # lap 0 left frame 8 in slot 0
    _put(torn, 1, 1, 4, f[9])  # lap 1 writes index 4 into slot 0 ...
    torn_off = R.validate_header(torn).slot(1, 1, 4) + 16
    torn[torn_off + 10:torn_off + len(f[9])] = f[8][10:len(f[9])]  # ... but only its first 10 bytes landed
    _set_w(torn, 1, 1, 5)
    _set_rd(torn, 0, 1, 4)
    consumer("torn_write", "index 4 published while its slot holds 10 new bytes over the previous lap's frame",
             torn, [C, E])
    consumer("stale_slot_index", "index 5 published but the slot still says slot_index 1 (previous lap)",
             _patched({4: f[4], 5: f[5], 6: f[6]}, {5: {"slot_index": 1}}, rd=4), [fr(4), C, fr(6), E])
    consumer("bad_length_zero", "frame_bytes 0", _patched({0: f[0], 1: f[1]}, {0: {"n": 0}}), [C, fr(1), E])
    consumer("bad_length_over_slot", "frame_bytes 113 > slot_bytes - 16 = 112",
             _patched({0: f[0], 1: f[1]}, {0: {"n": 113}}), [C, fr(1), E])
    consumer("bad_length_huge", "frame_bytes 0xffffffff", _patched({0: f[0], 1: f[1]}, {0: {"n": 0xFFFFFFFF}}),
             [C, fr(1), E])
    consumer("bad_length_short", "frame_bytes one less than written: the CRC over the shorter copy fails",
             _patched({0: f[0], 1: f[1]}, {0: {"n": len(f[0]) - 1}}), [C, fr(1), E])
    # An incredible write index is a fault: counted once, nothing read, the read index kept until the
    # producer heals it (its heartbeat does not move in a vector, so it never is overdue here)...
    consumer("index_backwards", "write_index 2 behind read_index 5: a fault, read index kept for the heal",
             _ring_with({0: f[0], 1: f[1]}, w=2, rd=5), [E, E, E])
    consumer("index_far_ahead", "write_index 9 with read_index 0 (more than S ahead): a fault, nothing read",
             _ring_with({0: f[0], 1: f[1]}, w=9, rd=0), [E, E])
    consumer("index_huge", "write_index 2^64-1: a fault, no offset is taken from it",
             _ring_with({0: f[0]}, w=U64, rd=0), [E, E])
    # ... except on the management agent's ring 0 of peer 1: no heartbeat to wait on, resync at once.
    consumer("management_agent_index_far_ahead", "the agent's ring 0 with write_index 9, read_index 0: resync to 9",
             _ring_with({0: enc(HELLO)}, peer=1, ring=0, w=9, rd=0), [S, E], consumer_peer=0, ring=0)
    undecodable = b"\xff\xff\xff"
    consumer("undecodable_frame", "a slot with a correct CRC over bytes that are not a frame",
             _ring_with({0: undecodable, 1: f[1]}),
             [{"poll": "frame", "frame": undecodable, "decode": "TRUNCATED"}, fr(1), E])
    unknown = vf(1, 1) + ld(14, b"")
    consumer("unknown_kind_frame", "a ring-valid frame whose only body field is unknown (field 14)",
             _ring_with({0: unknown}), [{"poll": "frame", "frame": unknown, "decode": "NO_BODY"}, E])
    big = ld(12, vf(1, 5) + ld(4, b"t" * 106))  # 112 bytes: exactly slot_bytes - 16
    assert len(big) == 112, len(big)
    consumer("frame_fills_slot", "a 112-byte frame fills a 128-byte slot exactly",
             _ring_with({0: big, 1: f[1]}), [{"poll": "frame", "frame": big, "decode": "ok"}, fr(1), E])

    # producers: the writer takes its private write index from its ring header, then offers
    def producer(name, description, img, peer, ring, offers):
        before = bytearray(img)
        region = R.open_region(img, peer)
        p = region.producer(ring)
        results = [{"frame": fr_, "accepted": p.offer(fr_)} for fr_ in offers]
        region.close()
        v.append({"name": name, "kind": "producer", "description": description, "image": before,
                  "after": img, "producer_peer": peer, "ring": ring, "offers": results})

    producer("produce_fill", "five offers into an empty ring of 4: the fifth is refused and counted",
             R.format_image(*GEOMETRY), 1, 1, [f[0], f[1], f[2], f[3], f[4]])
    wrap = R.format_image(*GEOMETRY)
    _set_w(wrap, 0, 1, 6)
    _set_rd(wrap, 1, 1, 6)
    producer("produce_wrap", "W = Rd = 6: three offers land in slots 2, 3, 0", wrap, 0, 1, [f[5], f[6], f[7]])
    bad = R.format_image(*GEOMETRY)
    _set_w(bad, 1, 0, 2)
    _set_rd(bad, 0, 0, 7)
    producer("produce_reader_not_credible", "the consumer's read_index 7 is ahead of W = 2: treated as full",
             bad, 1, 0, [enc(HELLO)])

    # attach: the spec's attach protocol on a given image
    def attach(name, description, img, peer):
        before = bytearray(img)
        R.attach_cell(img, peer).close()
        v.append({"name": name, "kind": "attach", "description": description, "image": before, "after": img,
                  "peer": peer})

    attach("attach_fresh_rt", "peer 0 attaches to a fresh region: epoch 1, READY", R.format_image(*GEOMETRY), 0)
    restart = _ring_with({0: f[0], 1: f[1], 2: f[2]}, peer=1, ring=1, rd=1)
    struct.pack_into("<IIQ", restart, R.STATE_TABLE_OFFSET, R.STATE_READY, 3, 777)
    attach("attach_restart_skips_stale", "peer 0 restarts (epoch 3 -> 4) with 2 frames of peer 1 waiting: "
           "both skipped and counted in stale_skipped", restart, 0)
    nc = _ring_with({0: f[0]}, peer=0, ring=1, w=1, rd=9)
    attach("attach_read_index_not_credible", "peer 1 attaches; its read_index 9 is ahead of peer 0's W = 1: "
           "read_index = 1, nothing counted", nc, 1)
    return v


def _patched(frames_by_index, patches, rd=0):
    return _ring_with(frames_by_index, rd=rd, patches=patches)


# --- self-check and expectations --------------------------------------------------------------

def _decode_class(data: bytes, max_frame_bytes: int) -> str:
    try:
        F.decode(data, max_frame_bytes)
        return "ok"
    except F.FrameError as e:
        return e.error_class


def _consumer_line(img, peer, ring) -> dict:
    lay = R.validate_header(img)
    base = lay.consumer_line(peer, ring)
    return {name: struct.unpack_from("<Q", img, base + 8 * i)[0] for i, name in enumerate(R.CONSUMER_FIELDS)}


def _ring_header(img, peer, ring) -> dict:
    lay = R.validate_header(img)
    base = lay.ring_header(peer, ring)
    w, written, dropped, klass = struct.unpack_from("<QQQI", img, base)
    return {"write_index": w, "frames_written": written, "frames_dropped_full": dropped, "ring_class": klass}


def _state_lines(img) -> list:
    return [dict(zip(("state", "epoch", "heartbeat"), struct.unpack_from("<IIQ", img, R.STATE_TABLE_OFFSET + 64 * p)))
            for p in range(2)]


def finish_region_vector(vec: dict) -> dict:
    """Check a region vector against xcc.region and fill in the expected values."""
    img = vec["image"]
    kind = vec["kind"]
    if kind == "attach_error":
        try:
            R.validate_header(img)
        except R.RegionError as e:
            assert e.field == vec["error_field"], (vec["name"], e)
            vec["error_message"] = str(e)
        else:
            raise AssertionError(f"{vec['name']}: header validated")
        return vec
    lay = R.validate_header(img)
    vec["geometry"] = [lay.rings, lay.slots, lay.slot_bytes]
    if kind == "format":
        assert bytes(R.format_image(*vec["geometry"])) == bytes(img)
    elif kind == "consumer":
        work = bytearray(img)
        region = R.open_region(work, vec["consumer_peer"])
        c = region.consumer(vec["ring"])
        vec["initial_read_index"] = c.read_index
        for step in vec["polls"]:
            result, data = c.poll_result()
            assert result == step["poll"], (vec["name"], result, step)
            if result == "frame":
                assert data == step["frame"], (vec["name"], data.hex(), step["frame"].hex())
                cls = _decode_class(data, lay.max_frame_bytes)
                assert cls == step["decode"], (vec["name"], cls, step)
                if cls != "ok":
                    c.count_undeliverable()
            step["read_index"] = c.read_index
        region.close()
        vec["counters_after"] = _consumer_line(work, vec["consumer_peer"], vec["ring"])
        vec["producer_before"] = _ring_header(img, 1 - vec["consumer_peer"], vec["ring"])
    elif kind == "producer":
        vec["producer_after"] = _ring_header(vec["after"], vec["producer_peer"], vec["ring"])
    elif kind == "attach":
        vec["state_after"] = _state_lines(vec["after"])
        vec["consumer_lines_after"] = [_consumer_line(vec["after"], vec["peer"], r) for r in range(lay.rings)]
    return vec


# --- output ------------------------------------------------------------------------------------

def _json(obj) -> str:
    """Compact but diffable: one vector per line."""
    head = {k: v for k, v in obj.items() if k != "vectors"}
    body = ",\n  ".join(json.dumps(e, ensure_ascii=False) for e in obj["vectors"])
    return json.dumps(head, ensure_ascii=False)[:-1] + ',\n "vectors": [\n  ' + body + "\n ]\n}\n"


def render() -> dict[str, bytes]:
    """Every output file, relative to this folder, with its exact content."""
    out: dict[str, bytes] = {}
    entries, lines = [], ["# name valid|invalid [ERROR_CLASS]   (bridge/vectors/README.md)"]
    for vec in frame_vectors():
        data = vec["data"]
        if vec["valid"]:
            assert _decode_class(data, 1 << 20) == "ok", vec["name"]
            fields = F.to_dict(F.decode(data, 1 << 20))
            if vec["canonical"]:
                assert enc(vec["fields"]) == data
            vec["fields"] = fields
            if len(data) > F.MAX_FRAME_BYTES:
                raise AssertionError(f"{vec['name']}: {len(data)} bytes")
        else:
            got = _decode_class(data, F.MAX_FRAME_BYTES)
            assert got == vec["error_class"], (vec["name"], got, vec["error_class"])
        out[f"frames/{vec['name']}.bin"] = data
        entry = {"name": vec["name"], "file": f"{vec['name']}.bin", "bytes": len(data), "hex": data.hex(),
                 "valid": vec["valid"], "description": vec["description"]}
        if vec["valid"]:
            entry["canonical"] = vec["canonical"]
            entry["body"] = next(b for b in F.BODY_FIELDS if b in vec["fields"])
            entry["fields"] = vec["fields"]
        else:
            entry["error_class"] = vec["error_class"]
        entries.append(entry)
        lines.append(f"{vec['name']} valid" if vec["valid"] else f"{vec['name']} invalid {vec['error_class']}")
    out["frames/index.json"] = _json({"format": "xcc-frame-vectors", "version": 1,
                                      "max_frame_bytes": F.MAX_FRAME_BYTES,
                                      "error_classes": list(F.ERROR_CLASSES), "vectors": entries}).encode()
    out["frames/index.txt"] = ("\n".join(lines) + "\n").encode()

    entries, lines = [], ["# line grammar: see bridge/vectors/README.md"]
    for vec in map(finish_region_vector, region_vectors()):
        name = vec["name"]
        entry = {"name": name, "kind": vec["kind"], "description": vec["description"]}
        lines.append(f"vector {name} {vec['kind']}")
        if vec["kind"] == "attach_error":
            # the base image with its first 48 bytes (the header fields and CRC) replaced
            base = R.format_image(*GEOMETRY)
            assert bytes(base[48:]) == bytes(vec["image"][48:]), name
            lines.append("base format_r2_s4_b128.bin")
            lines.append(f"header {bytes(vec['image'][:48]).hex()}")
        else:
            out[f"regions/{name}.bin"] = bytes(vec["image"])
            entry["image"] = f"{name}.bin"
            lines.append(f"image {name}.bin")
        if "after" in vec:
            out[f"regions/{name}.after.bin"] = bytes(vec["after"])
            entry["after"] = f"{name}.after.bin"
            lines.append(f"after {name}.after.bin")
        if "geometry" in vec:
            entry["geometry"] = {"rings": vec["geometry"][0], "slots": vec["geometry"][1],
                                 "slot_bytes": vec["geometry"][2]}
            lines.append("geometry {} {} {}".format(*vec["geometry"]))
        kind = vec["kind"]
        if kind == "attach_error":
            entry["base"] = "format_r2_s4_b128.bin"
            entry["header_hex"] = bytes(vec["image"][:48]).hex()
            entry["error_field"] = vec["error_field"]
            entry["error_message"] = vec["error_message"]
            lines.append(f"attach_error {vec['error_field']}")
        elif kind == "consumer":
            entry.update(consumer_peer=vec["consumer_peer"], ring=vec["ring"],
                         initial_read_index=vec["initial_read_index"], producer_before=vec["producer_before"])
            entry["polls"] = []
            lines.append(f"consumer {vec['consumer_peer']} {vec['ring']}")
            for step in vec["polls"]:
                e = {"poll": step["poll"], "read_index": step["read_index"]}
                if step["poll"] == "frame":
                    e["frame_hex"] = step["frame"].hex()
                    e["decode"] = step["decode"]
                    lines.append(f"poll frame {step['read_index']} {step['frame'].hex()} {step['decode']}")
                else:
                    lines.append(f"poll {step['poll']} {step['read_index']}")
                entry["polls"].append(e)
            entry["counters_after"] = vec["counters_after"]
            lines += [f"expect {k} {val}" for k, val in vec["counters_after"].items()]
        elif kind == "producer":
            entry.update(producer_peer=vec["producer_peer"], ring=vec["ring"])
            entry["offers"] = [{"frame_hex": o["frame"].hex(), "accepted": o["accepted"]} for o in vec["offers"]]
            entry["producer_after"] = vec["producer_after"]
            lines.append(f"producer {vec['producer_peer']} {vec['ring']}")
            lines += [f"offer {o['frame'].hex()} {'true' if o['accepted'] else 'false'}" for o in vec["offers"]]
            lines += [f"expect {k} {val}" for k, val in vec["producer_after"].items()]
        elif kind == "attach":
            entry["peer"] = vec["peer"]
            entry["state_after"] = vec["state_after"]
            entry["consumer_lines_after"] = vec["consumer_lines_after"]
            lines.append(f"attach {vec['peer']}")
        lines.append("end")
        entries.append(entry)
    out["regions/index.json"] = _json({"format": "xcc-region-vectors", "version": 1, "vectors": entries}).encode()
    out["regions/index.txt"] = ("\n".join(lines) + "\n").encode()
    out["index.txt"] = _c_index(json.loads(out["frames/index.json"]), entries).encode()
    return out


def _c_index(frames_index: dict, region_entries: list) -> str:
    """The combined line index for readers without JSON (the C tests); grammar in README.md."""
    lines = ["# xcc vectors, combined line index (bridge/vectors/README.md, 'index.txt')"]
    for v in frames_index["vectors"]:
        path = f"frames/{v['file']}"
        if v["valid"]:
            lines.append(f"frame {v['name']} {path} {'ok' if v['canonical'] else 'accept'} {v['body']}")
        else:
            lines.append(f"frame {v['name']} {path} reject {v['error_class'].lower()}")
    for e in region_entries:
        if e["kind"] == "attach_error":
            lines.append(f"region {e['name']} regions/{e['base']} reject {e['error_field']} header={e['header_hex']}")
            continue
        lines.append(f"region {e['name']} regions/{e['image']} ok")
        if e["kind"] == "attach":
            lines.append(f"attach {e['name']} {e['peer']}")
        if e["kind"] == "producer":
            offers = ",".join(f"{o['frame_hex']}:{1 if o['accepted'] else 0}" for o in e["offers"])
            lines.append(f"produce {e['name']} {e['producer_peer']} {e['ring']} {offers}")
        if "after" in e:
            lines.append(f"region {e['name']}.after regions/{e['after']} ok")
        if e["kind"] == "consumer":
            results = []
            for step in e["polls"]:
                if step["poll"] == "frame":
                    frame = bytes.fromhex(step["frame_hex"])
                    results.append(f"ok:{len(frame)}:{zlib.crc32(frame):08x}")
                else:
                    results.append(step["poll"])
                if step["poll"] == "empty":
                    break
            c = e["counters_after"]
            lines.append(f"read {e['name']} {e['consumer_peer']} {e['ring']} {','.join(results)} "
                         f"accepted={c['frames_accepted']} corrupt={c['frames_corrupt']} resyncs={c['resyncs']} "
                         f"faults={c['write_index_faults']}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed files, write nothing")
    ap.add_argument("--out", type=Path, default=HERE, help="output folder (default: this folder)")
    args = ap.parse_args(argv)
    files = render()
    if args.check:
        bad = [name for name, data in files.items()
               if not (args.out / name).is_file() or (args.out / name).read_bytes() != data]
        extra = [str(p.relative_to(args.out)) for sub in ("frames", "regions") for p in (args.out / sub).glob("*")
                 if str(p.relative_to(args.out)) not in files]
        for name in bad:
            print(f"differs or missing: {name}", file=sys.stderr)
        for name in extra:
            print(f"not produced by generate.py: {name}", file=sys.stderr)
        return 1 if bad or extra else 0
    for sub in ("frames", "regions"):
        (args.out / sub).mkdir(parents=True, exist_ok=True)
        for old in (args.out / sub).glob("*"):  # only files this generator owns
            if f"{sub}/{old.name}" not in files and old.suffix in (".bin", ".json", ".txt"):
                old.unlink()
    for name, data in files.items():
        (args.out / name).write_bytes(data)
    total = sum(len(d) for d in files.values())
    print(f"wrote {len(files)} files, {total} bytes, under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
