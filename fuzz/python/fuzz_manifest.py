"""atheris target: manifest text as the host reads it (``rtdroid bundle``): any bytes given as a
manifest name an application and a version by the runtime's rules (xcc.manifest) or are refused
with one BundleError of one line (nothing the manifest holds may start a line of its own); anything
else is a finding. Manifests come from users and from other machines."""
import sys

import atheris

with atheris.instrument_imports(include=["xcc.bundle", "xcc.manifest", "xcc.printable"]):
    from xcc import bundle as B


def test_one(data: bytes) -> None:
    try:
        name = B.application_name(data)
        version = B.version_code(data)
    except B.BundleError as e:
        assert e.code == "BAD_MANIFEST" and "\n" not in str(e) and "\r" not in str(e), str(e)
        return
    assert 1 <= version <= B.MAX_VERSION_CODE and name


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one)
    atheris.Fuzz()
