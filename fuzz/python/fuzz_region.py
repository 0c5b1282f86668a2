"""atheris target: the Python region reader over a region image the other cell scribbled on.

The header is validated or refused with RegionError; past it, hostile indices, lengths, CRCs and
slot bytes are dropped and counted by the consumer, never raised. Inputs whose header fails are
retried behind a valid header (2 rings, 4 slots of 128 bytes) so the rings are reached, as the C
and Java targets do. Each image is read first as found, then by a cell attaching to it.
"""
import sys

import atheris

with atheris.instrument_imports():
    from xcc import frames as F
    from xcc import region as R

SMALL = (2, 4, 128)


def _drain(region) -> None:
    for ring in range(region.layout.rings):
        consumer = region.consumer(ring)
        for _ in range(2 * region.layout.slots + 2):
            result, data = consumer.poll_result()
            if result != "frame":
                continue
            assert len(data) <= region.layout.max_frame_bytes
            try:
                F.decode(data, region.layout.max_frame_bytes)
            except F.FrameError:
                consumer.count_undeliverable()


def test_one(data: bytes) -> None:
    if len(data) < 256 or len(data) > (1 << 20):
        return
    image = bytearray(data)
    try:
        R.validate_header(image)
    except R.RegionError:
        small = R.format_image(*SMALL)
        if len(image) < len(small):
            return
        image[:128] = small[:128]
    for attach in (False, True):
        try:
            region = R.attach_cell(image, data[-1] & 1) if attach else R.open_region(image, data[-1] & 1)
        except R.RegionError:
            return
        try:
            _drain(region)
        finally:
            region.close()


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one)
    atheris.Fuzz()
