"""The committed vectors are what generate.py produces, and they mean what README.md says.

The second half reads the vectors only through index.json and the .bin files, the way the Java and
C tests do, so a change of meaning in the README's terms shows up here too.
"""

import json
import struct
import sys
from pathlib import Path

import pytest

from xcc import frames as F
from xcc import region as R

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import generate  # noqa: E402

FRAMES = json.loads((HERE / "frames" / "index.json").read_text())["vectors"]
REGIONS = json.loads((HERE / "regions" / "index.json").read_text())["vectors"]


def test_committed_files_equal_generator_output():
    files = generate.render()
    for name, data in files.items():
        assert (HERE / name).read_bytes() == data, f"{name} differs: run bridge/vectors/generate.py"
    committed = {f"{d}/{p.name}" for d in ("frames", "regions") for p in (HERE / d).iterdir()} | {"index.txt"}
    assert committed == set(files), committed ^ set(files)


def test_generation_is_deterministic():
    assert generate.render() == generate.render()


def test_total_size_stays_small():
    total = sum(p.stat().st_size for d in ("frames", "regions") for p in (HERE / d).iterdir())
    total += (HERE / "index.txt").stat().st_size
    assert total < 200 * 1024


def test_index_txt_matches_json():
    lines = [ln.split() for ln in (HERE / "frames" / "index.txt").read_text().splitlines() if not ln.startswith("#")]
    assert [ln[0] for ln in lines] == [v["name"] for v in FRAMES]
    for ln, v in zip(lines, FRAMES):
        assert ln[1] == ("valid" if v["valid"] else "invalid")
        if not v["valid"]:
            assert ln[2] == v["error_class"]


@pytest.mark.parametrize("vec", FRAMES, ids=lambda v: v["name"])
def test_frame_vector(vec):
    data = (HERE / "frames" / vec["file"]).read_bytes()
    assert data.hex() == vec["hex"] and len(data) == vec["bytes"]
    if vec["valid"]:
        frame = F.decode(data)
        assert F.to_dict(frame) == vec["fields"]
        assert frame.WhichOneof("body") == vec["body"]
        if vec["canonical"]:
            assert F.encode(F.from_dict(vec["fields"])) == data
        else:
            assert F.encode(F.from_dict(vec["fields"])) != data
    else:
        with pytest.raises(F.FrameError) as e:
            F.decode(data)
        assert e.value.error_class == vec["error_class"]


def test_every_error_class_has_a_vector():
    assert {v["error_class"] for v in FRAMES if not v["valid"]} == set(F.ERROR_CLASSES)


def _image(name):
    return bytearray((HERE / "regions" / name).read_bytes())


@pytest.mark.parametrize("vec", REGIONS, ids=lambda v: v["name"])
def test_region_vector(vec):
    kind = vec["kind"]
    if kind == "attach_error":
        img = _image(vec["base"])
        img[:48] = bytes.fromhex(vec["header_hex"])
        with pytest.raises(R.RegionError) as e:
            R.open_region(img, 0)
        assert e.value.field == vec["error_field"]
        return
    img = _image(vec["image"])
    g = vec["geometry"]
    assert R.validate_header(img) == R.RegionLayout(g["rings"], g["slots"], g["slot_bytes"])
    if kind == "format":
        assert R.format_image(g["rings"], g["slots"], g["slot_bytes"]) == img
    elif kind == "consumer":
        region = R.open_region(img, vec["consumer_peer"])
        consumer = region.consumer(vec["ring"])
        assert consumer.read_index == vec["initial_read_index"]
        for step in vec["polls"]:
            result, data = consumer.poll_result()
            assert result == step["poll"]
            assert consumer.read_index == step["read_index"]
            if result == "frame":
                assert data.hex() == step["frame_hex"]
                try:
                    F.decode(data, region.layout.max_frame_bytes)
                    got = "ok"
                except F.FrameError as e:
                    got = e.error_class
                    consumer.count_undeliverable()
                assert got == step["decode"]
        assert consumer.counters() == vec["counters_after"]
        region.close()
    elif kind == "producer":
        region = R.open_region(img, vec["producer_peer"])
        producer = region.producer(vec["ring"])
        assert [producer.offer(bytes.fromhex(o["frame_hex"])) for o in vec["offers"]] == \
            [o["accepted"] for o in vec["offers"]]
        region.close()
        assert img == _image(vec["after"])
    elif kind == "attach":
        R.attach_cell(img, vec["peer"]).close()
        assert img == _image(vec["after"])
        for p, line in enumerate(vec["state_after"]):
            assert struct.unpack_from("<IIQ", img, 128 + 64 * p) == (line["state"], line["epoch"], line["heartbeat"])
    else:
        pytest.fail(f"unknown kind {kind}")
