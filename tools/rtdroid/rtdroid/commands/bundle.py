"""`rtdroid bundle`: build and sign an RT bundle from a jar and its manifest."""
from __future__ import annotations

from pathlib import Path

from .. import paths
from .common import CliError, existing_file


def cmd_bundle(a) -> int:
    try:
        from xcc import bundle as xb
    except ImportError as e:
        raise CliError(f"xcc.bundle not available ({e}); run tools/setup.sh") from None
    key = Path(a.key) if a.key else paths.keys_dir() / "deploy.key"
    for what, p in (("--jar", Path(a.jar)), ("--manifest", Path(a.manifest)), ("--key", key)):
        existing_file(what, p, " (run: rtdroid keys)" if what == "--key" else "")
    out = Path(a.output)
    if out.is_dir():
        raise CliError(f"-o {out} is a directory; name the bundle file (e.g. {out / 'app.rtb'})")
    if not out.parent.is_dir():
        raise CliError(f"-o {out}: directory {out.parent} does not exist")
    info = xb.build_bundle(a.jar, a.manifest, key, a.output, allow_downgrade=a.allow_downgrade)
    how = "signed as a downgrade (may replace a newer version)" if info.downgrade else "signed"
    print(f"wrote {a.output}: application {info.name} version {info.version}, {info.bundle_bytes} bytes, "
          f"{how} with {key}")
    return 0


def register(commands) -> None:
    sp = commands.add_parser("bundle", help="build and sign an RT bundle from a jar and its manifest")
    sp.add_argument("--jar", required=True)
    sp.add_argument("--manifest", required=True)
    sp.add_argument("--key", help="Ed25519 private key, PEM PKCS#8 (default build/keys/deploy.key)")
    sp.add_argument("-o", "--output", required=True)
    sp.add_argument("--allow-downgrade", action="store_true",
                    help="sign it to be deployed even over a newer version of the application (signed over a "
                         "distinct prefix: an ordinary bundle cannot be passed off as one)")
    sp.set_defaults(func=cmd_bundle)
