"""Signed RT bundles (``*.rtb``) of bridge/docs/protocols.md.

A bundle is a zip with exactly three entries and no directories: ``manifest.xml`` (<= 64 KiB),
``app.jar`` (<= 8 MiB) and a 64-byte Ed25519 signature: ``signature.ed25519`` over
``b"RTDROID-BUNDLE-V1\\n" + SHA-256(manifest.xml) + SHA-256(app.jar)``, or, for a bundle the user
allows to replace a newer version, ``downgrade.ed25519`` over ``b"RTDROID-DOWNGRADE-V1\\n" + ...``
(a distinct prefix: an ordinary signature renamed does not verify). Keys: the private key as
unencrypted PEM PKCS#8, the public key as PEM SubjectPublicKeyInfo. The bundle's name (what
``DeployChunk.bundle`` carries) is the manifest's ``<application name="...">``; its version is the
root's ``versionCode`` (a positive integer, required), which the signature covers with the manifest.

The RT cell agent verifies bundles itself (in Java); ``verify_bundle`` is the same check for the
host side (``rtdroid bundle --verify``, tests) and refuses with the protocol's result names.
"""

from __future__ import annotations

import hashlib
import io
import os
import struct
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from . import manifest as manifest_values
from . import printable

MANIFEST_ENTRY = "manifest.xml"
JAR_ENTRY = "app.jar"
SIGNATURE_ENTRY = "signature.ed25519"
DOWNGRADE_SIGNATURE_ENTRY = "downgrade.ed25519"
ENTRIES = (MANIFEST_ENTRY, JAR_ENTRY, SIGNATURE_ENTRY)
DOWNGRADE_ENTRIES = (MANIFEST_ENTRY, JAR_ENTRY, DOWNGRADE_SIGNATURE_ENTRY)
MAX_MANIFEST_BYTES = 64 * 1024
MAX_JAR_BYTES = 8 * 1024 * 1024
SIGNATURE_BYTES = 64
MAX_BUNDLE_BYTES = 16 * 1024 * 1024  # what DeployChunk.total_bytes may announce
SIGNED_PREFIX = b"RTDROID-BUNDLE-V1\n"
DOWNGRADE_PREFIX = b"RTDROID-DOWNGRADE-V1\n"
MAX_VERSION_CODE = 2**31 - 1  # a Java int, as Android's versionCode
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: the same inputs give the same bundle


class BundleError(ValueError):
    """``code`` is the protocol's result name: BAD_BUNDLE, BAD_SIGNATURE or BAD_MANIFEST."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.detail = message


@dataclass(frozen=True)
class BundleInfo:
    name: str
    manifest_bytes: int
    jar_bytes: int
    bundle_bytes: int
    path: Path
    version: int = 0
    downgrade: bool = False  # signed (downgrade.ed25519) to replace a newer version


def signed_message(manifest: bytes, jar: bytes, downgrade: bool = False) -> bytes:
    prefix = DOWNGRADE_PREFIX if downgrade else SIGNED_PREFIX
    return prefix + hashlib.sha256(manifest).digest() + hashlib.sha256(jar).digest()


def application_name(manifest: bytes, source: str = MANIFEST_ENTRY) -> str:
    """The manifest's <application name>, enough to name the bundle; full validation is the agent's."""
    return _identity(manifest, source)[0]


def version_code(manifest: bytes, source: str = MANIFEST_ENTRY) -> int:
    """The root's ``versionCode``: required, digits only, 1..2^31-1, as the RT cell agent reads it."""
    _, root = _identity(manifest, source)
    local = lambda k: k.rsplit("}", 1)[-1].split(":")[-1]  # noqa: E731
    text = next((v for k, v in root.attrib.items() if local(k) == "versionCode"), None)
    if text is None:
        raise BundleError("BAD_MANIFEST", f"{source}: <manifest> has no versionCode; declare one, e.g. "
                                          f'<manifest versionCode="1">, and raise it with every release '
                                          f"(the RT cell refuses versions older than the one it deployed last)")
    try:
        return manifest_values.number(text, 1, MAX_VERSION_CODE)
    except manifest_values.ValueProblem as e:
        raise BundleError("BAD_MANIFEST", f"{source}: <manifest> versionCode {e}") from None


def _identity(manifest: bytes, source: str):
    """(application name, root element) of a manifest, refusing what the agent would refuse first."""
    if len(manifest) > MAX_MANIFEST_BYTES:
        raise BundleError("BAD_MANIFEST", f"{source} is {len(manifest)} bytes; the bound is {MAX_MANIFEST_BYTES}")
    if b"<!DOCTYPE" in manifest or b"<!ENTITY" in manifest:
        raise BundleError("BAD_MANIFEST", f"{source}: DTDs and entities are not allowed")
    try:
        root = ElementTree.fromstring(manifest)
    except ElementTree.ParseError as e:
        raise BundleError("BAD_MANIFEST", f"{source} line {e.position[0]}: {printable.escape(str(e))}") from None
    except (LookupError, ValueError) as e:  # an encoding the XML declaration names that Python does not know
        raise BundleError("BAD_MANIFEST", f"{source}: cannot be read as XML: {printable.escape(str(e))}") from None
    local = lambda tag: tag.rsplit("}", 1)[-1]  # noqa: E731
    if local(root.tag) != "manifest":
        raise BundleError("BAD_MANIFEST", f"{source}: the root element is <{local(root.tag)}>, not <manifest>")
    apps = [c for c in root if local(c.tag) == "application"]
    if len(apps) != 1:
        raise BundleError("BAD_MANIFEST", f"{source}: needs exactly one <application>, has {len(apps)}")
    name = next((v for k, v in apps[0].attrib.items() if local(k).split(":")[-1] == "name"), None)
    if name is None:
        raise BundleError("BAD_MANIFEST", f"{source}: <application> has no name attribute")
    try:
        manifest_values.app_name(name)
    except manifest_values.ValueProblem as e:
        raise BundleError("BAD_MANIFEST", f"{source}: {e}") from None
    return name, root


def generate_keypair(directory, overwrite: bool = False) -> tuple[Path, Path]:
    """Create ``deploy.key`` (PEM PKCS#8, mode 0600) and ``deploy.pub`` (PEM SPKI) in ``directory``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    key_path, pub_path = directory / "deploy.key", directory / "deploy.pub"
    if not overwrite and (key_path.exists() or pub_path.exists()):
        raise FileExistsError(f"{key_path} or {pub_path} already exists; refusing to replace a deploy key")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    pub_path.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                       serialization.PublicFormat.SubjectPublicKeyInfo))
    return key_path, pub_path


def load_private_key(path) -> Ed25519PrivateKey:
    # one sentence each, never the crypto library's text (it names OpenSSL internals, not the file)
    try:
        key = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except TypeError:  # a key protected by a password
        raise BundleError("BAD_SIGNATURE", f"{path} is an encrypted private key; signing needs an unencrypted "
                          "PEM PKCS#8 Ed25519 key (as `rtdroid keys` writes)") from None
    except ValueError:
        raise BundleError("BAD_SIGNATURE", f"{path} is not a private key in PEM PKCS#8 (a public key, or "
                          "another format?); signing needs an Ed25519 private key (as `rtdroid keys` writes)") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise BundleError("BAD_SIGNATURE", f"{path} is {_key_kind(key)}, not Ed25519; signing needs an Ed25519 "
                          "private key (as `rtdroid keys` writes)")
    return key


def _key_kind(key) -> str:
    """"an RSA key" for RSAPrivateKey, "an EllipticCurve key" for EllipticCurvePrivateKey."""
    kind = type(key).__name__.lstrip("_").replace("PrivateKey", "").replace("PublicKey", "") or "another"
    return f"{'an' if kind[0] in 'AEIOUR' else 'a'} {kind} key"


def load_public_key(path) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(Path(path).read_bytes())
    except (ValueError, TypeError):
        raise BundleError("BAD_SIGNATURE", f"{path} is not a public key in PEM SubjectPublicKeyInfo "
                          "(as `rtdroid keys` writes deploy.pub)") from None
    if not isinstance(key, Ed25519PublicKey):
        raise BundleError("BAD_SIGNATURE", f"{path} is {_key_kind(key)}, not Ed25519")
    return key


def _read_input(path, bound: int, what: str) -> bytes:
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as e:
        raise BundleError("BAD_BUNDLE", f"cannot read {what} {path}: {e.strerror}") from None
    if size > bound:
        raise BundleError("BAD_BUNDLE", f"{what} {path} is {size} bytes; the bound is {bound}")
    return path.read_bytes()


def pack(manifest: bytes, jar: bytes, signature: bytes, downgrade: bool = False) -> bytes:
    """The zip bytes of a bundle (deterministic)."""
    buf = io.BytesIO()
    sig_entry = DOWNGRADE_SIGNATURE_ENTRY if downgrade else SIGNATURE_ENTRY
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in ((MANIFEST_ENTRY, manifest), (JAR_ENTRY, jar), (sig_entry, signature)):
            info = zipfile.ZipInfo(name, date_time=_ZIP_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    return buf.getvalue()


def build_bundle(jar_path, manifest_path, key_path, out_path, allow_downgrade: bool = False) -> BundleInfo:
    """Sign ``jar_path`` + ``manifest_path`` with ``key_path`` into the bundle ``out_path``;
    ``allow_downgrade`` signs it (as downgrade.ed25519) to be deployed over a newer version."""
    manifest = _read_input(manifest_path, MAX_MANIFEST_BYTES, "manifest")
    jar = _read_input(jar_path, MAX_JAR_BYTES, "jar")
    if not zipfile.is_zipfile(io.BytesIO(jar)):
        raise BundleError("BAD_BUNDLE", f"jar {jar_path} is not a zip/jar file")
    name = application_name(manifest, str(manifest_path))
    version = version_code(manifest, str(manifest_path))
    signature = load_private_key(key_path).sign(signed_message(manifest, jar, allow_downgrade))
    data = pack(manifest, jar, signature, allow_downgrade)
    if len(data) > MAX_BUNDLE_BYTES:
        raise BundleError("BAD_BUNDLE", f"the bundle is {len(data)} bytes; the bound is {MAX_BUNDLE_BYTES}")
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=out_path.parent, prefix=".rtb-", delete=False) as tmp:
        tmp.write(data)
    os.replace(tmp.name, out_path)
    os.chmod(out_path, 0o644)
    return BundleInfo(name, len(manifest), len(jar), len(data), out_path, version, allow_downgrade)


# The reading rule of a bundle's zip (protocols.md "RT bundle"), the RT cell agent's too (BundleZip):
# the central directory and the local headers must tell the same story, or the bundle is refused.
_LOCAL, _CENTRAL, _END = 0x04034B50, 0x02014B50, 0x06054B50
_FLAG_ENCRYPTED, _FLAG_DATA_DESCRIPTOR = 1, 8
_STORED, _DEFLATED = 0, 8
_MAX_ENTRIES = 16  # a bundle has three; a few more are read so that the extra one is named


@dataclass(frozen=True)
class _Entry:
    name: str
    name_bytes: bytes
    flags: int
    method: int
    crc: int
    compressed: int
    size: int
    local_offset: int


def _not_readable(source: str, what: str) -> BundleError:
    return BundleError("BAD_BUNDLE", f"{source} is not a readable zip: {what}")


def _quote(name: str) -> str:
    return printable.quote(name if len(name) <= 60 else name[:60] + "...")


def zip_entries(data: bytes, source: str = "bundle") -> list[_Entry]:
    """The entries of a bundle's zip in central-directory order, once the reading rule holds for all:
    the end record is the last 22 bytes (no comment, one disk, no zip64), the central directory ends
    where it begins, the first local header is at 0; each entry's local header has the same name bytes,
    flags and method (stored or deflated, not encrypted) and, without a data descriptor, the same CRC-32
    and sizes; the entries' data lie in order, without overlap, before the central directory."""
    end = len(data) - 22
    if end < 0 or struct.unpack_from("<I", data, end)[0] != _END:
        raise _not_readable(source, "no end-of-central-directory record in its last 22 bytes (or a zip comment)")
    _, disk, cd_disk, on_disk, count, cd_bytes, cd_offset, _ = struct.unpack_from("<IHHHHIIH", data, end)
    if disk != 0 or cd_disk != 0 or on_disk != count:
        raise _not_readable(source, "it spans several disks")
    if cd_offset + cd_bytes != end:
        raise _not_readable(source, f"its central directory ({cd_bytes} B at {cd_offset}) does not end where the end "
                                    f"record begins ({end})")
    if count > _MAX_ENTRIES:
        raise BundleError("BAD_BUNDLE", f"{source} has {count} entries; it must have exactly {list(ENTRIES)} "
                                        f"(or {DOWNGRADE_SIGNATURE_ENTRY} for the signature)")
    entries, p = [], cd_offset
    for i in range(count):
        if p + 46 > end or struct.unpack_from("<I", data, p)[0] != _CENTRAL:
            raise _not_readable(source, f"central directory entry {i + 1} is not where the directory says")
        (flags, method, crc, compressed, size, name_len, extra_len, comment_len) = struct.unpack_from("<HH4xIIIHHH", data, p + 8)
        local_offset = struct.unpack_from("<I", data, p + 42)[0]
        nxt = p + 46 + name_len + extra_len + comment_len
        if nxt > end:
            raise _not_readable(source, f"central directory entry {i + 1} runs past the directory")
        name_bytes = data[p + 46:p + 46 + name_len]
        entries.append(_Entry(name_bytes.decode("latin-1"), name_bytes, flags, method, crc, compressed, size,
                              local_offset))
        p = nxt
    if p != end:
        raise _not_readable(source, f"its central directory holds more than its {count} entries")
    expected = 0  # the first local header at 0, each next one at or after the previous data's end
    for e in sorted(entries, key=lambda x: x.local_offset):
        n = f"{source}: entry {_quote(e.name)}"
        if e.flags & _FLAG_ENCRYPTED or e.method not in (_STORED, _DEFLATED):
            raise BundleError("BAD_BUNDLE", f"{n} is encrypted or neither stored nor deflated")
        if e.local_offset < expected or (expected == 0 and e.local_offset != 0):
            raise _not_readable(source, f"entry {_quote(e.name)}'s local header at {e.local_offset} is not right after "
                                        f"the previous entry's data ({expected})")
        p = e.local_offset
        if p + 30 > cd_offset or struct.unpack_from("<I", data, p)[0] != _LOCAL:
            raise _not_readable(source, f"entry {_quote(e.name)} has no local header at {p}")
        flags, method, crc, compressed, size, name_len, extra_len = struct.unpack_from("<HH4xIIIHH", data, p + 6)
        start = p + 30 + name_len + extra_len
        if start + e.compressed > cd_offset:
            raise _not_readable(source, f"entry {_quote(e.name)}'s data run into the central directory")
        local_name = data[p + 30:p + 30 + name_len]
        what = None
        if local_name != e.name_bytes:
            what = f"names {_quote(local_name.decode('latin-1'))}"
        elif (flags, method) != (e.flags, e.method):
            what = "gives other flags or another method"
        elif not e.flags & _FLAG_DATA_DESCRIPTOR and (crc, compressed, size) != (e.crc, e.compressed, e.size):
            what = "gives another CRC-32 or other sizes"
        if what:
            raise BundleError("BAD_BUNDLE", f"{n}: its local header {what}; the central directory and the local "
                                            f"header must agree")
        expected = start + e.compressed
    return entries


def zip_content(data: bytes, e: _Entry, bound: int, source: str = "bundle") -> bytes:
    """The content of ``e`` (one of ``zip_entries``), read bounded by ``bound`` whatever it declares."""
    if e.size > bound:
        raise BundleError("BAD_BUNDLE", f"{source}: {e.name} is {e.size} bytes; the bound is {bound}")
    p = e.local_offset
    name_len, extra_len = struct.unpack_from("<HH", data, p + 26)
    start = p + 30 + name_len + extra_len
    raw = data[start:start + e.compressed]
    if e.method == _STORED:
        if e.compressed != e.size:
            raise _not_readable(source, f"stored entry {_quote(e.name)} has two sizes")
        out = raw
    else:
        d = zlib.decompressobj(-15)
        try:
            out = d.decompress(raw, bound + 1)  # never trust the declared size alone (zip bombs)
        except zlib.error as x:
            raise _not_readable(source, f"entry {_quote(e.name)} does not inflate: {x}") from None
        if len(out) > bound:
            raise BundleError("BAD_BUNDLE", f"{source}: {e.name} exceeds {bound} bytes")
        if not d.eof:
            raise _not_readable(source, f"entry {_quote(e.name)} is cut short")
        if d.unused_data:
            raise _not_readable(source, f"entry {_quote(e.name)} has bytes after its deflated data")
    if len(out) != e.size or zlib.crc32(out) != e.crc:
        raise _not_readable(source, f"entry {_quote(e.name)} does not inflate to its declared size and CRC-32")
    return out


def read_bundle(data: bytes, source: str = "bundle") -> tuple[bytes, bytes, bytes, bool]:
    """(manifest, jar, signature, downgrade) of bundle bytes read by the reading rule (``zip_entries``),
    refusing anything but the three bounded entries; ``downgrade`` is True when the signature entry is
    downgrade.ed25519."""
    if len(data) > MAX_BUNDLE_BYTES:
        raise BundleError("BAD_BUNDLE", f"{source} is {len(data)} bytes; the bound is {MAX_BUNDLE_BYTES}")
    entries = zip_entries(data, source)
    names = [e.name for e in entries]
    downgrade = DOWNGRADE_SIGNATURE_ENTRY in names
    if sorted(names) != sorted(DOWNGRADE_ENTRIES if downgrade else ENTRIES):
        raise BundleError("BAD_BUNDLE", f"{source} has entries {printable.escape(str(names))}; it must have exactly "
                                        f"{list(ENTRIES)} (or {DOWNGRADE_SIGNATURE_ENTRY} for the signature) "
                                        f"and no directories")
    sig_entry = DOWNGRADE_SIGNATURE_ENTRY if downgrade else SIGNATURE_ENTRY
    bounds = {MANIFEST_ENTRY: MAX_MANIFEST_BYTES, JAR_ENTRY: MAX_JAR_BYTES, sig_entry: SIGNATURE_BYTES}
    out = {e.name: zip_content(data, e, bounds[e.name], source) for e in entries}
    if len(out[sig_entry]) != SIGNATURE_BYTES:
        raise BundleError("BAD_SIGNATURE", f"{source}: {sig_entry} is {len(out[sig_entry])} bytes, "
                                           f"not {SIGNATURE_BYTES}")
    return out[MANIFEST_ENTRY], out[JAR_ENTRY], out[sig_entry], downgrade


def verify_bundle(path, pub_key_path) -> BundleInfo:
    """Check a bundle as the RT cell agent does (format, signature, manifest name); raise BundleError."""
    path = Path(path)
    data = _read_input(path, MAX_BUNDLE_BYTES, "bundle")
    manifest, jar, signature, downgrade = read_bundle(data, str(path))
    key = load_public_key(pub_key_path)
    try:
        key.verify(signature, signed_message(manifest, jar, downgrade))
    except InvalidSignature:
        what = f"{DOWNGRADE_SIGNATURE_ENTRY} does not verify as a downgrade signature" if downgrade \
            else "the Ed25519 signature does not verify"
        raise BundleError("BAD_SIGNATURE", f"{path}: {what} with {pub_key_path}") from None
    source = f"{path}!{MANIFEST_ENTRY}"
    name = application_name(manifest, source)
    return BundleInfo(name, len(manifest), len(jar), len(data), path, version_code(manifest, source), downgrade)
