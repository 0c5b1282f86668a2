"""atheris target: the Python frame decoder over any bytes the other cell could write into a slot.

A frame decodes or is refused with FrameError (its error class names the rule); a frame that
decodes re-encodes into bytes that decode to the same frame. Anything else is a finding.
"""
import sys

import atheris

with atheris.instrument_imports():
    from xcc import frames as F


def test_one(data: bytes) -> None:
    try:
        frame = F.decode(data)
    except F.FrameError as e:
        assert e.error_class, "a refusal names its error class"
        return
    again = F.decode(F.encode(frame))
    assert again == frame, "a decoded frame re-encodes to the same frame"


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one)
    atheris.Fuzz()
