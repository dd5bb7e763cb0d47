#!/usr/bin/env bash
# Ensures the tools the test suite needs are installed on a Debian bookworm machine:
#   - Mesa lavapipe (software Vulkan driver, Mesa >= 23) from bookworm-backports, plus libvulkan1
#   - spirv-tools (spirv-val, spirv-dis) and vulkan-tools (vulkaninfo) from the normal suite
#   - a C and C++ compiler, pkg-config and valgrind, for the C API's test program
# Idempotent and non-interactive; run as root (or with passwordless sudo).
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive

MIN_MESA_MAJOR=23
BACKPORTS_SOURCE=/etc/apt/sources.list.d/bookworm-backports.sources

log() { echo "[setup] $*"; }
die() { echo "[setup] ERROR: $*" >&2; exit 1; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    fi
fi

# Prints the installed mesa-vulkan-drivers major version, or nothing.
mesa_major() {
    local v
    v="$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)"
    v="${v#*:}"              # strip an epoch
    echo "${v%%.*}" | grep -E '^[0-9]+$' || true
}

# Mesa < 24 ships lvp_icd.<arch>.json, newer Mesa lvp_icd.json.
lavapipe_icd() {
    compgen -G '/usr/share/vulkan/icd.d/lvp_icd*.json' >/dev/null
}

is_ready() {
    local major
    command -v spirv-val >/dev/null 2>&1 || return 1
    for tool in cc c++ pkg-config valgrind; do
        command -v "$tool" >/dev/null 2>&1 || return 1
    done
    lavapipe_icd || return 1
    major="$(mesa_major)"
    [ -n "$major" ] && [ "$major" -ge "$MIN_MESA_MAJOR" ]
}

if is_ready; then
    log "already installed: spirv-val ($(command -v spirv-val)), lavapipe ICD, mesa-vulkan-drivers $(dpkg-query -W -f='${Version}' mesa-vulkan-drivers)"
    exit 0
fi

if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
    die "spirv-val and/or lavapipe (mesa-vulkan-drivers >= ${MIN_MESA_MAJOR}) are missing and this script is not running as root; run it as root: sudo $0"
fi
command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this script supports Debian bookworm only; install spirv-tools, vulkan-tools and Mesa >= ${MIN_MESA_MAJOR} lavapipe by hand"

# --- 1. make sure bookworm-backports is an apt source -------------------------------------------
has_backports() {
    grep -rqsE '(^|[[:space:]])bookworm-backports([[:space:]]|$)' \
        /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
        --include='*.list' --include='*.sources' --include='sources.list'
}

if has_backports; then
    log "bookworm-backports apt source already present"
elif [ -f /etc/apt/sources.list.d/debian.sources ]; then
    log "writing ${BACKPORTS_SOURCE} from /etc/apt/sources.list.d/debian.sources (deb822)"
    # Take the first stanza whose Suites contain plain 'bookworm' (the main archive), keep its
    # Types/URIs/Components/Signed-By, and switch the suite to bookworm-backports.
    stanza="$(awk '
        BEGIN { RS=""; FS="\n" }
        {
            for (i = 1; i <= NF; i++) {
                if ($i ~ /^Suites:/ && $i ~ /(^|[ \t])bookworm([ \t]|$)/) { print; exit }
            }
        }' /etc/apt/sources.list.d/debian.sources)"
    [ -n "$stanza" ] || die "no stanza with suite 'bookworm' in /etc/apt/sources.list.d/debian.sources; cannot derive a bookworm-backports source"
    printf '%s\n' "$stanza" \
        | grep -v '^#' \
        | sed -E 's/^Suites:.*/Suites: bookworm-backports/' \
        | $SUDO tee "$BACKPORTS_SOURCE" >/dev/null
    cat "$BACKPORTS_SOURCE"
elif [ -f /etc/apt/sources.list ] && grep -qE '^deb[[:space:]].*[[:space:]]bookworm[[:space:]]' /etc/apt/sources.list; then
    log "writing /etc/apt/sources.list.d/bookworm-backports.list from /etc/apt/sources.list (one-line format)"
    line="$(grep -E '^deb[[:space:]].*[[:space:]]bookworm[[:space:]]' /etc/apt/sources.list | head -n1)"
    printf '%s\n' "$line" \
        | sed -E 's/[[:space:]]bookworm[[:space:]]/ bookworm-backports /' \
        | $SUDO tee /etc/apt/sources.list.d/bookworm-backports.list
else
    die "found no Debian bookworm apt source (neither /etc/apt/sources.list.d/debian.sources nor a 'deb ... bookworm ...' line in /etc/apt/sources.list) to derive bookworm-backports from"
fi

# --- 2. install -------------------------------------------------------------------------------
log "apt-get update"
$SUDO apt-get update -q || die "apt-get update failed"

log "installing mesa-vulkan-drivers libvulkan1 from bookworm-backports"
$SUDO apt-get install -y -q --no-install-recommends -t bookworm-backports mesa-vulkan-drivers libvulkan1 \
    || die "could not install mesa-vulkan-drivers/libvulkan1 from bookworm-backports"

log "installing spirv-tools vulkan-tools"
$SUDO apt-get install -y -q --no-install-recommends spirv-tools vulkan-tools \
    || die "could not install spirv-tools/vulkan-tools"

log "installing gcc g++ pkg-config valgrind (the C API's test program)"
$SUDO apt-get install -y -q --no-install-recommends gcc g++ libc6-dev pkg-config valgrind \
    || die "could not install gcc/g++/pkg-config/valgrind"

# --- 3. verify --------------------------------------------------------------------------------
command -v spirv-val >/dev/null 2>&1 || die "spirv-val still missing after installing spirv-tools"
for tool in cc c++ pkg-config valgrind; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool still missing after installing gcc g++ pkg-config valgrind"
done
lavapipe_icd || die "lavapipe ICD (/usr/share/vulkan/icd.d/lvp_icd*.json) still missing after installing mesa-vulkan-drivers"
major="$(mesa_major)"
{ [ -n "$major" ] && [ "$major" -ge "$MIN_MESA_MAJOR" ]; } \
    || die "mesa-vulkan-drivers is '$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || echo none)', need >= ${MIN_MESA_MAJOR} (bookworm-backports)"
log "ok: spirv-val $(spirv-val --version 2>/dev/null | head -n1), mesa-vulkan-drivers $(dpkg-query -W -f='${Version}' mesa-vulkan-drivers)"
