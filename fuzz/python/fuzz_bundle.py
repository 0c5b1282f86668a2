"""atheris target: RT bundles as the host reads them (``rtdroid bundle --verify``, ``rtdroid deploy rt``):
any bytes given as a bundle are read by the one reading rule of its zip (the central directory and
the local headers agree) to three bounded entries, or refused with one BundleError of one line;
anything else (another exception, a hang, an entry over its bound) is a finding. Half the inputs
are zips built from the fuzzer's entries, since random bytes rarely make one."""
import io
import sys
import zipfile

import atheris

with atheris.instrument_imports(include=["xcc.bundle", "xcc.printable"]):
    from xcc import bundle as B

NAMES = [B.MANIFEST_ENTRY, B.JAR_ENTRY, B.SIGNATURE_ENTRY, B.DOWNGRADE_SIGNATURE_ENTRY, "extra.txt", "dir/"]


def zip_from(fdp: atheris.FuzzedDataProvider) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for _ in range(fdp.ConsumeIntInRange(0, 4)):
            name = NAMES[fdp.ConsumeIntInRange(0, len(NAMES) - 1)] if fdp.ConsumeBool() else fdp.ConsumeUnicode(16)
            info = zipfile.ZipInfo(name or "x", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED if fdp.ConsumeBool() else zipfile.ZIP_STORED
            try:
                z.writestr(info, fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 512)))
            except (ValueError, UnicodeEncodeError):
                pass
    data = bytearray(buf.getvalue())
    for _ in range(fdp.ConsumeIntInRange(0, 3)):  # then a few bytes changed where the fuzzer says
        if data:
            data[fdp.ConsumeIntInRange(0, len(data) - 1)] = fdp.ConsumeIntInRange(0, 255)
    return bytes(data)


def test_one(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    bundle = fdp.ConsumeBytes(len(data)) if fdp.ConsumeBool() else zip_from(fdp)
    try:
        manifest, jar, signature, _ = B.read_bundle(bundle, "fuzz.rtb")
    except B.BundleError as e:
        assert e.code in ("BAD_BUNDLE", "BAD_SIGNATURE") and "\n" not in str(e) and "\r" not in str(e), str(e)
        return
    assert len(manifest) <= B.MAX_MANIFEST_BYTES and len(jar) <= B.MAX_JAR_BYTES and len(signature) == 64


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one)
    atheris.Fuzz()
