#!/bin/sh
# Fetch Debian's PREEMPT_RT kernel (the image package linux-image-rt-amd64 depends on) into
# build/rt-cell/kernel/ with apt-get download + dpkg-deb -x: nothing is installed on the host.
# Idempotent: does nothing when the kernel of the current dependency is already unpacked.
set -eu
ROOT="${RTDROID_HOME:-$(cd "$(dirname "$0")/.." && pwd)}"
DEST="$ROOT/build/rt-cell/kernel"
META="${RTDROID_KERNEL_META:-linux-image-rt-amd64}"

# The versioned package, e.g. linux-image-6.1.0-56-rt-amd64.
PKG=$(apt-cache depends "$META" 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
if [ -z "$PKG" ]; then
    echo "fetch-kernel: apt-cache knows no dependency of $META (run apt-get update?)" >&2
    exit 1
fi
VER=${PKG#linux-image-}
if [ -f "$DEST/$PKG.unpacked" ] && [ -f "$DEST/boot/vmlinuz-$VER" ]; then
    echo "fetch-kernel: $PKG already in $DEST"
    exit 0
fi
mkdir -p "$DEST"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "fetch-kernel: downloading $PKG"
(cd "$TMP" && apt-get download -q "$PKG" >/dev/null)
DEB=$(ls "$TMP"/*.deb)
echo "fetch-kernel: unpacking $(basename "$DEB") into $DEST"
dpkg-deb -x "$DEB" "$DEST"
echo "$VER" > "$DEST/VERSION"
touch "$DEST/$PKG.unpacked"
echo "fetch-kernel: done ($DEST/boot/vmlinuz-$VER)"
