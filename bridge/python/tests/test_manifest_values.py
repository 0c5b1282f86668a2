"""xcc.manifest: the manifest's values by the schema's one rule, as the RT cell agent reads them."""
import re
from pathlib import Path

import pytest

from xcc import bundle as B
from xcc import manifest as V

XSD = Path(__file__).resolve().parents[3] / "rtdroid-runtime" / "src" / "main" / "resources" / "org" / "rtdroid" \
    / "runtime" / "manifest" / "manifest.xsd"


def schema_pattern(simple_type: str) -> str:
    text = XSD.read_text(encoding="utf-8")
    m = re.search(r'<xs:simpleType name="%s">.*?<xs:pattern value="([^"]+)"/>' % simple_type, text, re.S)
    assert m, f"manifest.xsd has no pattern for {simple_type}"
    return m.group(1)


@pytest.mark.parametrize("simple_type,pattern", [("number", V.NUMBER), ("size", V.SIZE), ("duration", V.DURATION)])
def test_the_patterns_are_the_schemas(simple_type, pattern):
    assert pattern == schema_pattern(simple_type)


@pytest.mark.parametrize("text", ["+2", " 2", "2 ", "-2", "0x2", "\uff12", "\u0662", "2.0", "", "2\n"])
def test_a_number_is_digits_only(text):
    with pytest.raises(V.ValueProblem, match=r"is not an integer \(digits only\)"):
        V.number(text, 1, 10)


def test_a_number_is_within_its_range():
    assert V.number("0010", 1, 10) == 10
    with pytest.raises(V.ValueProblem, match="11 is outside 1..10"):
        V.number("11", 1, 10)


def test_sizes_and_durations():
    assert V.size_bytes("64K") == 65536 and V.size_bytes("3MiB") == 3 << 20
    assert V.duration_ns("8ms") == 8_000_000 and V.duration_ns("20µs") == 20_000
    for bad in ("+4K", " 4K", "4 K", "4k", "4", "9223372036854775807K"):
        with pytest.raises(V.ValueProblem, match="is not a size"):
            V.size_bytes(bad)
    for bad in ("+8ms", "8 ms", "8.5ms", "8", "9223372036854775807s"):
        with pytest.raises(V.ValueProblem, match="is not a duration"):
            V.duration_ns(bad)


@pytest.mark.parametrize("root", [b'<manifest versionCode="+2">', b'<manifest versionCode=" 2">',
                                  b'<manifest versionCode="2 ">', b'<manifest versionCode="&#65298;">'])
def test_bundle_refuses_a_lenient_version_code(root):
    # issue 38 defect 2: "+2" and " 2" were read as version 2
    m = root + b'<application name="echo"/></manifest>'
    with pytest.raises(B.BundleError) as e:
        B.version_code(m)
    assert e.value.code == "BAD_MANIFEST" and "is not an integer (digits only)" in str(e.value)


@pytest.mark.parametrize("name,ok", [("echo", True), ("a" * 63, True), ("a" * 64, False), (".echo", False),
                                     ("-echo", False), ("e.c_h-o9", True), ("abs\nRTCELL READY", False)])
def test_application_names_follow_the_runtimes_rule(name, ok):
    m = b'<manifest versionCode="1"><application name="%s"/></manifest>' % name.encode().replace(b"\n", b"&#10;")
    if ok:
        assert B.application_name(m) == name
    else:
        with pytest.raises(B.BundleError) as e:
            B.application_name(m)
        assert "\n" not in str(e.value)
