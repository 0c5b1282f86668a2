"""atheris target for the frame decoder (xcc.frames.decode).

    build/venv/bin/pip install -r bridge/python/requirements-fuzz.txt
    build/venv/bin/python bridge/python/fuzz/fuzz_frames.py -max_total_time=60 [corpus_dir]

Seeds: pass bridge/vectors/frames as a corpus directory (read-only use: atheris writes new inputs
into the FIRST directory given, so give a scratch directory first, e.g. build/fuzz/frames).
Properties: decode either returns a Frame or raises FrameError (nothing else); an accepted frame
re-encodes (if within the cap) to bytes that decode to the same frame; protobuf agrees with it.
"""

import sys

import atheris

with atheris.instrument_imports():
    from xcc import frames as F


def test_one_input(data: bytes) -> None:
    try:
        frame = F.decode(data)
    except F.FrameError as e:
        assert e.error_class in F.ERROR_CLASSES
        return
    assert F.Frame.FromString(data) == frame
    try:
        again = F.encode(frame)
    except F.FrameError as e:
        # canonical re-encoding can only grow past the cap (e.g. unknown fields kept); never a bound
        assert e.error_class == "OVERSIZE", e
        return
    assert F.decode(again) == frame


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
