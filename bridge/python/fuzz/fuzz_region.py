"""atheris target for the region reader (header validation and Consumer.poll).

    build/venv/bin/python bridge/python/fuzz/fuzz_region.py -max_total_time=60 [corpus_dir]

The input is a hostile region image (seed it with bridge/vectors/regions after a scratch
directory). Properties: validation either yields a layout or raises RegionError; a reader over a
valid header only ever reports frame/empty/corrupt/resync, delivered frames fit a slot and carry a
correct CRC, the image never grows or shrinks, and nothing outside the consumer's own line changes.
"""

import struct
import sys
import zlib

import atheris

with atheris.instrument_imports():
    from xcc import frames as F
    from xcc import region as R

BASE = R.format_image(2, 4, 128)


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    mode = fdp.ConsumeIntInRange(0, 1)
    if mode == 0:
        img = bytearray(fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 8192)))
    else:  # a valid header over hostile sections: reach the ring reader more often
        img = bytearray(BASE)
        tail = fdp.ConsumeBytes(len(BASE) - 256)
        img[256:256 + len(tail)] = tail
    try:
        layout = R.validate_header(img)
    except R.RegionError as e:
        assert e.field
        return
    size = len(img)
    for peer in (0, 1):
        region = R.open_region(img, peer)
        for ring in range(layout.rings):
            line = layout.consumer_line(peer, ring)
            before = bytes(img)
            c = region.consumer(ring)
            for _ in range(layout.slots + 2):
                result, frame = c.poll_result()
                assert result in (R.POLL_FRAME, R.POLL_EMPTY, R.POLL_CORRUPT, R.POLL_RESYNC)
                if frame is not None:
                    assert 1 <= len(frame) <= layout.max_frame_bytes
                    slot = layout.slot(1 - peer, ring, c.read_index - 1)
                    assert struct.unpack_from("<I", img, slot + 4)[0] == zlib.crc32(frame)
                    try:
                        F.decode(frame, layout.max_frame_bytes)
                    except F.FrameError:
                        c.count_undeliverable()
            after = bytes(img)
            assert len(after) == size
            assert before[:line] == after[:line] and before[line + 64:] == after[line + 64:]
        region.close()


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
