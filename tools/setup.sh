#!/usr/bin/env bash
# Set up this machine for the project (idempotent; `make setup` calls it):
#   1. Debian packages (installed only when missing; `apt-get update` once, only if needed),
#      including names teammates append to build/requests/setup-packages.txt;
#   2. the Python venv build/venv (requirements.txt, then bridge/python and tools/rtdroid editable);
#   3. Debian's PREEMPT_RT kernel unpacked into build/rt-cell/kernel (tools/fetch-kernel.sh);
#   4. the board's deploy key pair build/keys/deploy.{key,pub} if missing.
# A marker (build/.setup-stamp) holds a hash of every input: when nothing changed, nothing runs.
set -euo pipefail
ROOT="${RTDROID_HOME:-$(cd "$(dirname "$0")/.." && pwd)}"
BUILD="$ROOT/build"
VENV="$BUILD/venv"
STAMP="$BUILD/.setup-stamp"
REQUESTS="$BUILD/requests/setup-packages.txt"
JAVA_HOME="${RTDROID_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
mkdir -p "$BUILD"

PACKAGES=(
  qemu-system-x86 busybox-static cpio      # the qemu-x86_64 board's RT cell
  zstd                                     # its boot snapshot (QEMU migration stream)
  nanopb libnanopb-dev protobuf-compiler   # frame codecs (C, and protoc for Python/Java)
  zlib1g-dev                               # libxcc's CRC-32 fallback (crc32_z)
  rt-tests                                 # cyclictest baseline
  cloc                                     # Table 4.3's lines of code (make figures)
  zipalign apksigner android-framework-res dexdump aapt   # real signed APKs
  adb                                      # the stock client of the Android cell's adb device side
  clang gcc make                           # native bridge pieces
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross   # the arm64 RT cell's native probes (rt-cell/probes)
  libclang-rt-14-dev                       # libFuzzer + sanitizer runtimes (make fuzz)
  maven                                    # the JVM build
  python3-venv                             # build/venv
  ca-certificates
)
if [[ -f "$REQUESTS" ]]; then
  # One package name per line; '#' comments; anything not a Debian package name is refused.
  while read -r name _; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    if [[ ! "$name" =~ ^[a-z0-9][a-z0-9+.-]+$ ]]; then
      echo "setup: ignoring '$name' in $REQUESTS: not a Debian package name" >&2
      continue
    fi
    PACKAGES+=("$name")
  done < "$REQUESTS"
fi

inputs_hash() {
  { printf '%s\n' "${PACKAGES[@]}"
    cat "$ROOT/tools/setup.sh" "$ROOT/tools/fetch-kernel.sh" "$ROOT/requirements.txt" \
        "$ROOT/bridge/python/pyproject.toml" "$ROOT/tools/rtdroid/pyproject.toml" 2>/dev/null
    apt-cache policy linux-image-rt-amd64 2>/dev/null | sed -n 2p
    [[ -x "$VENV/bin/python" ]] && echo venv
    [[ -f "$BUILD/keys/deploy.pub" ]] && echo keys
  } | sha256sum | cut -d' ' -f1
}

if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$(inputs_hash)" ]]; then
  echo "setup: up to date (delete $STAMP to force)"
  exit 0
fi
t0=$SECONDS
step() { echo "setup: [$1/5] $2"; }

step 1 "Debian packages"
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if (( ${#missing[@]} )); then
  echo "setup:   installing ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup:   all ${#PACKAGES[@]} present"
fi

step 2 "Java 25"
if [[ ! -x "$JAVA_HOME/bin/java" ]] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q '"25'; then
  echo "setup: Java 25 not found at $JAVA_HOME (Temurin 25 JDK; set RTDROID_JAVA_HOME)" >&2
  exit 1
fi
echo "setup:   $("$JAVA_HOME/bin/java" -version 2>&1 | head -1)"

step 3 "Python venv $VENV"
[[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check -r "$ROOT/requirements.txt"
"$VENV/bin/pip" install -q --disable-pip-version-check -e "$ROOT/bridge/python" -e "$ROOT/tools/rtdroid"
echo "setup:   $("$VENV/bin/rtdroid" --help | head -1)"

step 4 "PREEMPT_RT kernel"
RTDROID_HOME="$ROOT" "$ROOT/tools/fetch-kernel.sh"

step 5 "deploy key"
RTDROID_HOME="$ROOT" "$VENV/bin/rtdroid" keys

inputs_hash > "$STAMP"
echo "setup: done in $((SECONDS - t0)) s"
