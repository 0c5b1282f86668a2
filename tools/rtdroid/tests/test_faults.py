"""The scribble test's fields are the region layout's: every field a cell owns and heals (each
counter of a state line, ring header and consumer line, as region-layout.toml lists them) gets a
hostile value, and two healing cells put every one back."""

import threading

from rtdroid.faults import owned_fields, scribble_and_wait
from xcc import region as R


def test_every_counter_of_a_cells_lines_is_scribbled_on():
    lay = R.RegionLayout(rings=3, slots=8, slot_bytes=256)
    fields = {(cell, name) for cell, name, *_ in owned_fields(lay)}
    for cell in ("rt", "android"):
        for c in R.COUNTERS:
            if c.line == "state_line":
                assert (cell, c.label) in fields
            for ring in (1, 2):
                if c.line == "ring_header":
                    assert (cell, f"ring {ring} {c.label}") in fields
                if c.line == "consumer_line":
                    assert (cell, f"line {ring} {c.label}") in fields
    assert ("rt", "line 2 write_index_faults") in fields and ("android", "header_repairs") in fields
    assert not any(name.startswith(("ring 0", "line 0")) for _, name in fields)  # the agent's ring


def test_two_healing_cells_put_back_every_scribbled_field(tmp_path):
    path = tmp_path / "scribble.region"
    R.format(path, rings=3, slots=8, slot_bytes=256)
    cells = [R.attach_cell(str(path), R.RT_PEER), R.attach_cell(str(path), R.ANDROID_PEER)]
    stop = threading.Event()

    def heal():
        while not stop.is_set():
            for cell in cells:
                cell.heal(1)
            stop.wait(0.002)

    healer = threading.Thread(target=heal, daemon=True)
    healer.start()
    try:
        results = scribble_and_wait(path, timeout_s=2.0)
    finally:
        stop.set()
        healer.join()
        for cell in cells:
            cell.close()
    assert [r for r in results if not r["repaired"]] == []
    assert {"cell": "android", "field": "line 1 write_index_faults"} in [
        {k: r[k] for k in ("cell", "field")} for r in results]
