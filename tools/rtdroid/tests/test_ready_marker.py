"""The host reads a cell's readiness marker only at the start of a line of its console (issue 38
defect 1: a refusal quoting a manifest put "RTCELL READY" in the middle of, and at the start of,
lines of rt.log)."""
import re

from rtdroid import hypervisors, lifecycle


def ready(text: str, hv: str = "process") -> bool:
    return re.search(lifecycle._ready_pattern("rt", hypervisors.get(hv).console_line_prefix), text) is not None


def test_the_agents_own_marker_is_read():
    assert ready("rtcell: region attached\nRTCELL READY\n")
    assert ready("boot\r\nRTCELL READY\r\n")
    assert ready("RTCELL READY (test double)\n")


def test_xen_puts_its_console_prefix_before_it():
    assert ready("(XEN) DOM1: rtcell: stopped\n(XEN) DOM1: RTCELL READY\n", "xen")
    assert not ready("(XEN) DOM1: rtcell: deploy x: BAD_MANIFEST: abs RTCELL READY\n", "xen")


def test_a_marker_inside_a_line_is_not_read():
    assert not ready("rtcell: deploy x: BAD_MANIFEST: x.xml:3:20: <application>: name 'abs\\nRTCELL READY'\n")
    assert not ready("rtcell: deploy abs RTCELL READY: BAD_MANIFEST\n")
    assert not ready("xRTCELL READY\n")
    assert re.search(lifecycle._ready_pattern("android"), "ANDROID CELL READY on port 1\n")
    assert not re.search(lifecycle._ready_pattern("android"), "cell: ANDROID CELL READY\n")
