"""bundles/index.txt is what bundle_vectors.py writes, and xcc.bundle signs and verifies as it says
(the RT cell agent's Java side reads the same file: rt-cell/agent BundleVectorsTest)."""
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from xcc import bundle as B

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bundle_vectors  # noqa: E402

LINES = [line.split() for line in (HERE / "bundles" / "index.txt").read_text().splitlines()
         if line and not line.startswith("#")]
SEED, PUB = (bytes.fromhex(h) for h in next(v for v in LINES if v[0] == "key")[1:])
BUNDLES = [v[1:] for v in LINES if v[0] == "bundle"]


def test_committed_file_equals_generator_output():
    assert (HERE / "bundles" / "index.txt").read_text() == bundle_vectors.render(), \
        "run bridge/vectors/bundle_vectors.py"


def test_every_kind_is_there():
    assert {(entry, expect) for _, entry, *_, expect in BUNDLES} == {
        ("signature.ed25519", "ok"), ("downgrade.ed25519", "ok"),
        ("signature.ed25519", "bad_signature"), ("downgrade.ed25519", "bad_signature")}


@pytest.mark.parametrize("name,entry,manifest,jar,message,signature,expect", BUNDLES, ids=[b[0] for b in BUNDLES])
def test_python_signs_and_verifies_as_the_vectors_say(tmp_path, name, entry, manifest, jar, message, signature,
                                                      expect):
    manifest, jar, message, signature = (bytes.fromhex(h) for h in (manifest, jar, message, signature))
    downgrade = entry == B.DOWNGRADE_SIGNATURE_ENTRY
    assert B.signed_message(manifest, jar, downgrade) == message
    key = Ed25519PrivateKey.from_private_bytes(SEED)
    if expect == "ok":
        assert key.sign(message) == signature
    pub = tmp_path / "deploy.pub"
    pub.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                  serialization.PublicFormat.SubjectPublicKeyInfo))
    assert key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw) == PUB
    rtb = tmp_path / f"{name}.rtb"
    rtb.write_bytes(B.pack(manifest, jar, signature, downgrade))
    if expect == "ok":
        info = B.verify_bundle(rtb, pub)
        assert (info.name, info.version, info.downgrade) == ("echo", 3, downgrade)
    else:
        with pytest.raises(B.BundleError) as e:
            B.verify_bundle(rtb, pub)
        assert e.value.code == "BAD_SIGNATURE"


ZIPS = [v[1:] for v in LINES if v[0] == "zip"]
PRINTABLE = [v[1:] for v in LINES if v[0] == "printable"]


def test_the_reading_rule_has_its_crafted_bundles():
    assert {name for name, _, _ in ZIPS} >= {"well_formed", "data_descriptors", "local_name_differs"}
    assert {expect for _, expect, _ in ZIPS} == {"ok", "bad_bundle"}


@pytest.mark.parametrize("name,expect,data", ZIPS, ids=[z[0] for z in ZIPS])
def test_python_reads_a_bundles_zip_by_the_one_rule(name, expect, data):
    data = bytes.fromhex(data)
    if expect == "ok":
        manifest, jar, signature, downgrade = B.read_bundle(data, name)
        assert (manifest, downgrade) == (bundle_vectors.MANIFEST, False)
    else:
        with pytest.raises(B.BundleError) as e:
            B.read_bundle(data, name)
        assert e.value.code == "BAD_BUNDLE"
        assert "\n" not in str(e.value)


@pytest.mark.parametrize("text,escaped", PRINTABLE)
def test_python_escapes_outside_text_as_the_vectors_say(text, escaped):
    text = "" if text == "-" else bytes.fromhex(text).decode("utf-16-be", "surrogatepass")
    escaped = "" if escaped == "-" else bytes.fromhex(escaped).decode("utf-8")
    from xcc import printable
    assert printable.escape(text) == escaped
