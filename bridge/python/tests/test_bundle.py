import io
import zipfile

import pytest

from xcc import bundle as B

MANIFEST = b"""<?xml version="1.0" encoding="UTF-8"?>
<manifest versionCode="3">
  <application name="echo">
    <service name="org.rtdroid.examples.echo.EchoService" priority="50"/>
  </application>
</manifest>
"""


def make_jar(path, payload=b"class bytes"):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("org/rtdroid/examples/echo/EchoService.class", payload)
    return path


@pytest.fixture
def keys(tmp_path):
    return B.generate_keypair(tmp_path / "keys")


@pytest.fixture
def inputs(tmp_path):
    (tmp_path / "manifest.xml").write_bytes(MANIFEST)
    return make_jar(tmp_path / "echo.jar"), tmp_path / "manifest.xml"


def rebuild(path, replace=None, drop=None, add=None):
    """Rewrite a bundle's zip with one entry replaced, dropped or added (signature untouched)."""
    with zipfile.ZipFile(path) as z:
        entries = {i.filename: z.read(i) for i in z.infolist()}
    if replace:
        entries.update(replace)
    if drop:
        del entries[drop]
    if add:
        entries.update(add)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
    path.write_bytes(buf.getvalue())


def test_keypair_formats(keys):
    key, pub = keys
    assert key.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert pub.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----")
    assert key.stat().st_mode & 0o777 == 0o600
    with pytest.raises(FileExistsError):
        B.generate_keypair(key.parent)


def test_build_and_verify(tmp_path, keys, inputs):
    jar, manifest = inputs
    info = B.build_bundle(jar, manifest, keys[0], tmp_path / "echo.rtb")
    assert info.name == "echo"
    with zipfile.ZipFile(tmp_path / "echo.rtb") as z:
        assert [i.filename for i in z.infolist()] == ["manifest.xml", "app.jar", "signature.ed25519"]
        assert len(z.read("signature.ed25519")) == 64
    assert B.verify_bundle(tmp_path / "echo.rtb", keys[1]).name == "echo"
    # deterministic: Ed25519 signatures and the zip's fixed timestamps
    B.build_bundle(jar, manifest, keys[0], tmp_path / "again.rtb")
    assert (tmp_path / "again.rtb").read_bytes() == (tmp_path / "echo.rtb").read_bytes()


def test_signed_message_layout():
    import hashlib
    msg = B.signed_message(b"m", b"j")
    assert msg == b"RTDROID-BUNDLE-V1\n" + hashlib.sha256(b"m").digest() + hashlib.sha256(b"j").digest()
    assert len(msg) == 18 + 64


@pytest.mark.parametrize("tamper,code", [
    ({"replace": {"app.jar": b"PK evil"}}, "BAD_SIGNATURE"),
    ({"replace": {"manifest.xml": MANIFEST.replace(b'priority="50"', b'priority="99"')}}, "BAD_SIGNATURE"),
    ({"replace": {"signature.ed25519": bytes(64)}}, "BAD_SIGNATURE"),
    ({"replace": {"signature.ed25519": bytes(63)}}, "BAD_SIGNATURE"),  # not exactly 64 bytes
    ({"drop": "signature.ed25519"}, "BAD_BUNDLE"),
    ({"add": {"extra.txt": b"x"}}, "BAD_BUNDLE"),
    ({"add": {"lib/": b""}}, "BAD_BUNDLE"),
])
def test_tampered_bundles_are_refused(tmp_path, keys, inputs, tamper, code):
    out = tmp_path / "echo.rtb"
    B.build_bundle(*inputs, keys[0], out)
    rebuild(out, **tamper)
    with pytest.raises(B.BundleError) as e:
        B.verify_bundle(out, keys[1])
    assert e.value.code == code, e.value


def test_wrong_key_is_refused(tmp_path, keys, inputs):
    B.build_bundle(*inputs, keys[0], tmp_path / "echo.rtb")
    _, other_pub = B.generate_keypair(tmp_path / "other")
    with pytest.raises(B.BundleError) as e:
        B.verify_bundle(tmp_path / "echo.rtb", other_pub)
    assert e.value.code == "BAD_SIGNATURE" and "does not verify" in str(e.value)


def test_not_a_zip(tmp_path, keys):
    (tmp_path / "x.rtb").write_bytes(b"hello")
    with pytest.raises(B.BundleError) as e:
        B.verify_bundle(tmp_path / "x.rtb", keys[1])
    assert e.value.code == "BAD_BUNDLE"


def test_bounds(tmp_path, keys, inputs):
    jar, manifest = inputs
    big = tmp_path / "big.xml"
    big.write_bytes(MANIFEST + b"<!--" + b"x" * (64 * 1024) + b"-->")
    with pytest.raises(B.BundleError, match="65536"):
        B.build_bundle(jar, big, keys[0], tmp_path / "o.rtb")
    bigjar = tmp_path / "big.jar"
    bigjar.write_bytes(b"\0" * (8 * 1024 * 1024 + 1))
    with pytest.raises(B.BundleError, match="8388608"):
        B.build_bundle(bigjar, manifest, keys[0], tmp_path / "o.rtb")
    notjar = tmp_path / "not.jar"
    notjar.write_bytes(b"plain")
    with pytest.raises(B.BundleError, match="not a zip"):
        B.build_bundle(notjar, manifest, keys[0], tmp_path / "o.rtb")


def test_zip_bomb_entry_is_refused(tmp_path, keys, inputs):
    out = tmp_path / "echo.rtb"
    B.build_bundle(*inputs, keys[0], out)
    buf = io.BytesIO()
    with zipfile.ZipFile(out) as src, zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as dst:
        for i in src.infolist():
            data = b"\0" * (9 * 1024 * 1024) if i.filename == "app.jar" else src.read(i)
            dst.writestr(i.filename, data)
    out.write_bytes(buf.getvalue())
    assert out.stat().st_size < 64 * 1024
    with pytest.raises(B.BundleError) as e:
        B.verify_bundle(out, keys[1])
    assert e.value.code == "BAD_BUNDLE" and "app.jar" in str(e.value)


@pytest.mark.parametrize("manifest,needle", [
    (b"<manifest><application/></manifest>", "no name"),
    (b"<manifest></manifest>", "exactly one <application>"),
    (b"<service/>", "root element"),
    (b"<manifest><application name='bad name'/></manifest>", "must be 1-63"),
    (b"<manifest><application name='x'>", "line 1"),
    (b"<!DOCTYPE m [<!ENTITY a 'aaaa'>]><manifest/>", "DTD"),
    (b'<?xml version="1.0" encoding="UTF-6"?><manifest/>', "cannot be read as XML"),  # found by fuzz_manifest
])
def test_manifest_name_errors(manifest, needle):
    with pytest.raises(B.BundleError) as e:
        B.application_name(manifest)
    assert e.value.code == "BAD_MANIFEST" and needle in str(e.value)


def test_android_prefixed_name():
    m = b'<manifest xmlns:android="http://schemas.android.com/apk/res/android">' \
        b'<application android:name="cochlear"/></manifest>'
    assert B.application_name(m) == "cochlear"


def test_version_is_read_and_reported(tmp_path, keys, inputs):
    info = B.build_bundle(*inputs, keys[0], tmp_path / "echo.rtb")
    assert (info.version, info.downgrade) == (3, False)
    verified = B.verify_bundle(tmp_path / "echo.rtb", keys[1])
    assert (verified.version, verified.downgrade) == (3, False)


@pytest.mark.parametrize("root,needle", [
    (b"<manifest>", "has no versionCode"),
    (b'<manifest versionCode="0">', "versionCode 0 is outside 1..2147483647"),
    (b'<manifest versionCode="2147483648">', "versionCode 2147483648 is outside"),
    (b'<manifest versionCode="2b">', "versionCode '2b' is not an integer"),
    (b'<manifest versionCode="">', "is not an integer"),
])
def test_a_missing_or_bad_version_is_refused_when_bundling(tmp_path, keys, inputs, root, needle):
    jar, manifest = inputs
    manifest.write_bytes(MANIFEST.replace(b'<manifest versionCode="3">', root))
    with pytest.raises(B.BundleError) as e:
        B.build_bundle(jar, manifest, keys[0], tmp_path / "o.rtb")
    assert e.value.code == "BAD_MANIFEST" and needle in str(e.value), e.value
    assert not (tmp_path / "o.rtb").exists()


def test_android_prefixed_version():
    m = b'<manifest xmlns:android="http://schemas.android.com/apk/res/android" android:versionCode="7">' \
        b'<application android:name="cochlear"/></manifest>'
    assert B.version_code(m) == 7


def test_downgrade_bundle_is_signed_over_its_own_prefix(tmp_path, keys, inputs):
    import hashlib
    assert B.signed_message(b"m", b"j", downgrade=True) == \
        b"RTDROID-DOWNGRADE-V1\n" + hashlib.sha256(b"m").digest() + hashlib.sha256(b"j").digest()
    out = tmp_path / "echo-downgrade.rtb"
    info = B.build_bundle(*inputs, keys[0], out, allow_downgrade=True)
    assert info.downgrade
    with zipfile.ZipFile(out) as z:
        assert [i.filename for i in z.infolist()] == ["manifest.xml", "app.jar", "downgrade.ed25519"]
    verified = B.verify_bundle(out, keys[1])
    assert (verified.version, verified.downgrade) == (3, True)


def test_an_ordinary_bundle_relabelled_as_downgrade_is_refused(tmp_path, keys, inputs):
    out = tmp_path / "echo.rtb"
    B.build_bundle(*inputs, keys[0], out)
    with zipfile.ZipFile(out) as z:
        sig = z.read("signature.ed25519")
    rebuild(out, drop="signature.ed25519", add={"downgrade.ed25519": sig})
    with pytest.raises(B.BundleError) as e:
        B.verify_bundle(out, keys[1])
    assert e.value.code == "BAD_SIGNATURE" and "does not verify as a downgrade signature" in str(e.value)


def test_a_bundle_with_both_signatures_is_refused(tmp_path, keys, inputs):
    out = tmp_path / "echo.rtb"
    B.build_bundle(*inputs, keys[0], out)
    rebuild(out, add={"downgrade.ed25519": bytes(64)})
    with pytest.raises(B.BundleError) as e:
        B.verify_bundle(out, keys[1])
    assert e.value.code == "BAD_BUNDLE"
