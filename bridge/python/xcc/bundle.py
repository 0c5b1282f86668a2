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
import re
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

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
_NAME = re.compile(r"^[A-Za-z0-9._-]{1,63}$")
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
    """The root's ``versionCode``: required, 1..2^31-1, as the RT cell agent reads it."""
    _, root = _identity(manifest, source)
    local = lambda k: k.rsplit("}", 1)[-1].split(":")[-1]  # noqa: E731
    text = next((v for k, v in root.attrib.items() if local(k) == "versionCode"), None)
    if text is None:
        raise BundleError("BAD_MANIFEST", f"{source}: <manifest> has no versionCode; declare one, e.g. "
                                          f'<manifest versionCode="1">, and raise it with every release '
                                          f"(the RT cell refuses versions older than the one it deployed last)")
    if not re.fullmatch(r"\s*[+-]?[0-9]{1,10}\s*", text):
        raise BundleError("BAD_MANIFEST", f"{source}: <manifest> versionCode {text!r} is not an integer")
    if not 1 <= int(text) <= MAX_VERSION_CODE:
        raise BundleError("BAD_MANIFEST", f"{source}: <manifest> versionCode {int(text)} is outside "
                                          f"1..{MAX_VERSION_CODE}")
    return int(text)


def _identity(manifest: bytes, source: str):
    """(application name, root element) of a manifest, refusing what the agent would refuse first."""
    if len(manifest) > MAX_MANIFEST_BYTES:
        raise BundleError("BAD_MANIFEST", f"{source} is {len(manifest)} bytes; the bound is {MAX_MANIFEST_BYTES}")
    if b"<!DOCTYPE" in manifest or b"<!ENTITY" in manifest:
        raise BundleError("BAD_MANIFEST", f"{source}: DTDs and entities are not allowed")
    try:
        root = ElementTree.fromstring(manifest)
    except ElementTree.ParseError as e:
        raise BundleError("BAD_MANIFEST", f"{source} line {e.position[0]}: {e}") from None
    local = lambda tag: tag.rsplit("}", 1)[-1]  # noqa: E731
    if local(root.tag) != "manifest":
        raise BundleError("BAD_MANIFEST", f"{source}: the root element is <{local(root.tag)}>, not <manifest>")
    apps = [c for c in root if local(c.tag) == "application"]
    if len(apps) != 1:
        raise BundleError("BAD_MANIFEST", f"{source}: needs exactly one <application>, has {len(apps)}")
    name = next((v for k, v in apps[0].attrib.items() if local(k).split(":")[-1] == "name"), None)
    if name is None:
        raise BundleError("BAD_MANIFEST", f"{source}: <application> has no name attribute")
    if not _NAME.match(name):
        raise BundleError("BAD_MANIFEST", f"{source}: application name {name!r} must be 1-63 characters "
                                          f"of [A-Za-z0-9._-]")
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
    try:
        key = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except (ValueError, TypeError) as e:
        raise BundleError("BAD_SIGNATURE", f"{path}: not an unencrypted PEM PKCS#8 private key ({e})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise BundleError("BAD_SIGNATURE", f"{path}: the key is {type(key).__name__}, not Ed25519")
    return key


def load_public_key(path) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(Path(path).read_bytes())
    except (ValueError, TypeError) as e:
        raise BundleError("BAD_SIGNATURE", f"{path}: not a PEM public key ({e})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise BundleError("BAD_SIGNATURE", f"{path}: the key is {type(key).__name__}, not Ed25519")
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


def read_bundle(data: bytes, source: str = "bundle") -> tuple[bytes, bytes, bytes, bool]:
    """(manifest, jar, signature, downgrade) of bundle bytes, refusing anything but the three bounded
    entries; ``downgrade`` is True when the signature entry is downgrade.ed25519."""
    if len(data) > MAX_BUNDLE_BYTES:
        raise BundleError("BAD_BUNDLE", f"{source} is {len(data)} bytes; the bound is {MAX_BUNDLE_BYTES}")
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
        infos = z.infolist()
    except (zipfile.BadZipFile, ValueError, EOFError) as e:
        raise BundleError("BAD_BUNDLE", f"{source} is not a valid zip: {e}") from None
    names = [i.filename for i in infos]
    downgrade = DOWNGRADE_SIGNATURE_ENTRY in names
    if sorted(names) != sorted(DOWNGRADE_ENTRIES if downgrade else ENTRIES):
        raise BundleError("BAD_BUNDLE", f"{source} has entries {names}; it must have exactly "
                                        f"{list(ENTRIES)} (or {DOWNGRADE_SIGNATURE_ENTRY} for the signature) "
                                        f"and no directories")
    sig_entry = DOWNGRADE_SIGNATURE_ENTRY if downgrade else SIGNATURE_ENTRY
    bounds = {MANIFEST_ENTRY: MAX_MANIFEST_BYTES, JAR_ENTRY: MAX_JAR_BYTES, sig_entry: SIGNATURE_BYTES}
    out = {}
    for info in infos:
        bound = bounds[info.filename]
        if info.file_size > bound:
            raise BundleError("BAD_BUNDLE", f"{source}: {info.filename} is {info.file_size} bytes; "
                                            f"the bound is {bound}")
        try:
            with z.open(info) as f:
                content = f.read(bound + 1)  # never trust the declared size alone (zip bombs)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as e:
            raise BundleError("BAD_BUNDLE", f"{source}: cannot read {info.filename}: {e}") from None
        if len(content) > bound:
            raise BundleError("BAD_BUNDLE", f"{source}: {info.filename} exceeds {bound} bytes")
        out[info.filename] = content
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
