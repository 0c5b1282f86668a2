"""Frame codec: one ``rtdroid.xcc.v1.Frame`` per ring slot (bridge/proto/xcc.proto).

``encode(frame)`` returns the canonical protobuf encoding (fields in number order, defaults
omitted, a set oneof member always written) after checking every bound of xcc.options and the
frame cap (``slot_bytes - 16``, 496 bytes with the default 512-byte slot).

``decode(data)`` treats ``data`` as hostile. Before protobuf parses it, a strict wire-format scan
classifies every defect; the classes are shared with the Java and C codecs through
bridge/vectors/ (see bridge/vectors/README.md):

=================  ==========================================================================
OVERSIZE           the input is longer than the frame cap
TRUNCATED          the input ends inside a tag, a varint, a fixed-width value or a
                   length-delimited field (its length exceeds the bytes left in its message)
BAD_VARINT         a varint longer than 10 bytes, or whose 10th byte is above 1 (overflows 64 bits)
BAD_TAG            field number 0, a tag above 32 bits or longer than 5 bytes, or wire type 3, 4, 6 or 7
                   (groups are not part of this protocol)
WRONG_WIRE_TYPE    a known field arrives with a wire type other than its declared one
DUPLICATE_FIELD    a known field occurs twice in one message, or a second member of ``body``
OVER_BOUND         a string or bytes field longer than its xcc.options bound, or a varint out of
                   its field's range (uint32 >= 2^32; int32/enum outside the int32 range)
INVALID_UTF8       a string field that is not strict UTF-8 (no overlong forms, no surrogates) or
                   contains U+0000 (C peers keep strings NUL-terminated)
NO_BODY            no member of the ``body`` oneof is set (an empty input, or only unknown fields)
=================  ==========================================================================

Unknown fields (numbers the schema does not know) with wire types 0, 1, 2 and 5 are skipped, as
protobuf does; a frame whose only "body" is an unknown field number is therefore NO_BODY. Fields
may arrive in any order and varints need not be minimal: such frames decode but do not re-encode
to the same bytes. The first defect in a front-to-back scan decides the class.
"""

from __future__ import annotations

import re
from google.protobuf.descriptor import FieldDescriptor

from . import gen

pb2 = gen.load()
Frame = pb2.Frame
Intent = pb2.Intent
Message = pb2.Message
Control = pb2.Control
Stats = pb2.Stats
ServiceInfo = pb2.ServiceInfo
TimelineEntry = pb2.TimelineEntry
DeployChunk = pb2.DeployChunk

#: frame cap with the default 512-byte slot (slot_bytes - 16-byte slot header)
MAX_FRAME_BYTES = 496

BODY_FIELDS = ("intent", "message", "control", "deploy_chunk")

ERROR_CLASSES = (
    "OVERSIZE", "TRUNCATED", "BAD_VARINT", "BAD_TAG", "WRONG_WIRE_TYPE", "DUPLICATE_FIELD",
    "OVER_BOUND", "INVALID_UTF8", "NO_BODY",
)


class FrameError(ValueError):
    """A frame that must not be sent or delivered; ``error_class`` is one of ERROR_CLASSES."""

    def __init__(self, error_class: str, detail: str):
        assert error_class in ERROR_CLASSES, error_class
        super().__init__(f"{error_class}: {detail}")
        self.error_class = error_class
        self.detail = detail


def _load_bounds() -> dict[str, int]:
    """Byte bounds per full field name, from xcc.options.

    nanopb's ``max_size`` counts a string's NUL terminator, so a string carries max_size - 1
    bytes; a bytes field carries max_size bytes.
    """
    bounds = {}
    pattern = re.compile(r"^\s*(rtdroid\.xcc\.v1\.[A-Za-z0-9_.]+)\s+max_size:(\d+)\s*$")
    for lineno, line in enumerate(gen.options_path().read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = pattern.match(line)
        if not m:
            raise RuntimeError(f"xcc.options line {lineno}: cannot parse {line!r}")
        name, max_size = m.group(1), int(m.group(2))
        message_name, field_name = name.rsplit(".", 1)
        desc = pb2.DESCRIPTOR.pool.FindMessageTypeByName(message_name)
        fd = desc.fields_by_name.get(field_name)
        if fd is None:
            raise RuntimeError(f"xcc.options line {lineno}: {name} is not a field of xcc.proto")
        bounds[name] = max_size - 1 if fd.type == FieldDescriptor.TYPE_STRING else max_size
    return bounds


BOUNDS = _load_bounds()


def bound_of(message_name: str, field_name: str) -> int | None:
    """Largest byte length allowed for a string/bytes field, e.g. bound_of("Intent", "payload") == 224."""
    return BOUNDS.get(f"rtdroid.xcc.v1.{message_name}.{field_name}")


_VARINT_TYPES = {
    FieldDescriptor.TYPE_UINT64: "uint64",
    FieldDescriptor.TYPE_UINT32: "uint32",
    FieldDescriptor.TYPE_INT32: "int32",
    FieldDescriptor.TYPE_ENUM: "int32",
}
_LEN_TYPES = (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES, FieldDescriptor.TYPE_MESSAGE)
_WIRE_NAMES = {0: "varint", 1: "fixed64", 2: "length-delimited", 3: "start-group", 4: "end-group",
               5: "fixed32", 6: "invalid(6)", 7: "invalid(7)"}


def _read_varint(data: bytes, pos: int, end: int, what: str) -> tuple[int, int]:
    value = 0
    shift = 0
    for i in range(10):
        if pos >= end:
            raise FrameError("TRUNCATED", f"input ends inside the varint of {what} at byte {pos}")
        b = data[pos]
        pos += 1
        if i == 9 and b > 1:
            raise FrameError("BAD_VARINT", f"varint of {what} overflows 64 bits at byte {pos - 1}")
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, pos
    raise FrameError("BAD_VARINT", f"varint of {what} is longer than 10 bytes (byte {pos - 10})")


def _scan(data: bytes, start: int, end: int, desc, path: str) -> set[int]:
    """Validate one message occupying data[start:end]; return the known field numbers seen."""
    seen: set[int] = set()
    oneof_seen: dict[str, str] = {}
    pos = start
    while pos < end:
        tag_at = pos
        tag, pos = _read_varint(data, pos, end, f"a tag in {path}")
        if pos - tag_at > 5:
            # a tag is a varint32: official protobuf (upb) refuses a longer encoding even of a small value
            raise FrameError("BAD_TAG", f"tag at byte {tag_at} of {path} is {pos - tag_at} bytes long "
                                        f"(a tag is at most 5)")
        if tag > 0xFFFFFFFF:
            raise FrameError("BAD_TAG", f"tag {tag} at byte {tag_at} of {path} exceeds 32 bits")
        number, wire = tag >> 3, tag & 7
        if number == 0:
            raise FrameError("BAD_TAG", f"field number 0 at byte {tag_at} of {path}")
        if wire in (3, 4, 6, 7):
            raise FrameError("BAD_TAG", f"wire type {_WIRE_NAMES[wire]} at byte {tag_at} of {path} "
                                        f"(field {number}) is not used by this protocol")
        fd = desc.fields_by_number.get(number)
        if fd is None:  # unknown field: skip it as protobuf does
            if wire == 0:
                _, pos = _read_varint(data, pos, end, f"unknown field {number} of {path}")
            elif wire == 1 or wire == 5:
                width = 8 if wire == 1 else 4
                if end - pos < width:
                    raise FrameError("TRUNCATED", f"input ends inside unknown field {number} of {path}")
                pos += width
            else:
                length, pos = _read_varint(data, pos, end, f"the length of unknown field {number} of {path}")
                if length > end - pos:
                    raise FrameError("TRUNCATED", f"unknown field {number} of {path} declares {length} "
                                                  f"bytes, {end - pos} left")
                pos += length
            continue
        name = f"{path}.{fd.name}"
        expected = 2 if fd.type in _LEN_TYPES else 0
        if wire != expected:
            raise FrameError("WRONG_WIRE_TYPE", f"{name} (field {number}) arrived as {_WIRE_NAMES[wire]}, "
                                                f"declared {_WIRE_NAMES[expected]}")
        if number in seen:
            raise FrameError("DUPLICATE_FIELD", f"{name} occurs more than once")
        if fd.containing_oneof is not None:
            other = oneof_seen.get(fd.containing_oneof.name)
            if other is not None:
                raise FrameError("DUPLICATE_FIELD", f"{path}.{fd.containing_oneof.name} has two members: "
                                                    f"{other} and {fd.name}")
            oneof_seen[fd.containing_oneof.name] = fd.name
        seen.add(number)
        if expected == 0:
            value, pos = _read_varint(data, pos, end, name)
            kind = _VARINT_TYPES[fd.type]
            if kind == "uint32" and value > 0xFFFFFFFF:
                raise FrameError("OVER_BOUND", f"{name} = {value} does not fit uint32")
            if kind == "int32" and 0x7FFFFFFF < value < (1 << 64) - (1 << 31):
                raise FrameError("OVER_BOUND", f"{name} = {value} does not fit int32")
            continue
        length, pos = _read_varint(data, pos, end, f"the length of {name}")
        if length > end - pos:
            raise FrameError("TRUNCATED", f"{name} declares {length} bytes, {end - pos} left in {path}")
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            _scan(data, pos, pos + length, fd.message_type, name)
        else:
            bound = BOUNDS.get(fd.full_name)
            if bound is not None and length > bound:
                raise FrameError("OVER_BOUND", f"{name} ({fd.containing_type.name}.{fd.name}) is {length} bytes; "
                                               f"its bound is {bound} (xcc.options)")
            if fd.type == FieldDescriptor.TYPE_STRING:
                text = bytes(data[pos:pos + length])
                try:
                    text.decode("utf-8", errors="strict")
                except UnicodeDecodeError as e:
                    raise FrameError("INVALID_UTF8", f"{name} is not valid UTF-8 "
                                                     f"(byte {pos + e.start}: {e.reason})") from None
                if b"\0" in text:  # C peers hold strings NUL-terminated: an embedded NUL would cut them
                    raise FrameError("INVALID_UTF8", f"{name} contains U+0000 at byte {pos + text.index(0)}")
        pos += length
    return seen


def validate(data: bytes, max_frame_bytes: int = MAX_FRAME_BYTES) -> None:
    """Raise FrameError if ``data`` is not a valid frame; see the module doc for the classes."""
    if len(data) > max_frame_bytes:
        raise FrameError("OVERSIZE", f"frame is {len(data)} bytes; the cap is {max_frame_bytes}")
    seen = _scan(data, 0, len(data), Frame.DESCRIPTOR, "Frame")
    if not any(Frame.DESCRIPTOR.fields_by_name[b].number in seen for b in BODY_FIELDS):
        raise FrameError("NO_BODY", "the frame sets none of intent, message, control, deploy_chunk")


def decode(data: bytes, max_frame_bytes: int = MAX_FRAME_BYTES) -> Frame:
    """Decode hostile bytes into a Frame or raise FrameError."""
    data = bytes(data)
    validate(data, max_frame_bytes)
    frame = Frame()
    frame.ParseFromString(data)  # cannot fail after the scan above; protobuf rechecks anyway
    return frame


def encode(frame: Frame, max_frame_bytes: int = MAX_FRAME_BYTES) -> bytes:
    """Canonical bytes of ``frame``, or FrameError if it breaks a bound, has no body or is over the cap."""
    if frame.WhichOneof("body") is None:
        raise FrameError("NO_BODY", "the frame sets none of intent, message, control, deploy_chunk")
    data = frame.SerializeToString(deterministic=True)
    try:
        validate(data, max_frame_bytes=1 << 31)
    except FrameError as e:
        raise FrameError(e.error_class, f"cannot send this frame: {e.detail}") from None
    if len(data) > max_frame_bytes:
        raise FrameError("OVERSIZE", f"frame encodes to {len(data)} bytes; the cap is {max_frame_bytes} "
                                     f"(slot_bytes - 16); larger data travels as DeployChunk frames")
    return data


def body_name(frame: Frame) -> str | None:
    return frame.WhichOneof("body")


# --- JSON form used by bridge/vectors (bytes as lowercase hex, enums by name) -----------------

def to_dict(message) -> dict:
    """Fields that are present, in number order; a set empty sub-message is {}."""
    out = {}
    for fd, value in message.ListFields():
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            out[fd.name] = to_dict(value)
        elif fd.type == FieldDescriptor.TYPE_BYTES:
            out[fd.name] = value.hex()
        elif fd.type == FieldDescriptor.TYPE_ENUM:
            ev = fd.enum_type.values_by_number.get(value)
            out[fd.name] = ev.name if ev is not None else value
        else:
            out[fd.name] = value
    return out


def from_dict(d: dict, message_class=Frame):
    """Inverse of to_dict (also accepts explicit zero values, which proto3 then omits)."""
    message = message_class()
    _fill(message, d)
    return message


def _fill(message, d: dict) -> None:
    desc = message.DESCRIPTOR
    for key, value in d.items():
        fd = desc.fields_by_name.get(key)
        if fd is None:
            raise ValueError(f"{desc.name} has no field {key!r}")
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            sub = getattr(message, key)
            sub.SetInParent()
            _fill(sub, value)
        elif fd.type == FieldDescriptor.TYPE_BYTES:
            setattr(message, key, bytes.fromhex(value))
        elif fd.type == FieldDescriptor.TYPE_ENUM and isinstance(value, str):
            setattr(message, key, fd.enum_type.values_by_name[value].number)
        else:
            setattr(message, key, value)
