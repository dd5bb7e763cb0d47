#!/bin/sh
# Builds the C API in release mode and installs it under PREFIX (default /usr/local):
#   PREFIX/lib/libdxbc2spv.so.VERSION (SONAME libdxbc2spv.so.MAJOR), the links
#   PREFIX/lib/libdxbc2spv.so.MAJOR -> libdxbc2spv.so.VERSION and
#   PREFIX/lib/libdxbc2spv.so -> libdxbc2spv.so.MAJOR (for -ldxbc2spv),
#   PREFIX/lib/libdxbc2spv.a, PREFIX/include/dxbc2spv.h, PREFIX/lib/pkgconfig/dxbc2spv.pc
# usage: capi/install.sh [PREFIX]
set -eu
prefix=${1:-/usr/local}
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
cargo build --release -p dxbc2spv-capi
target=${CARGO_TARGET_DIR:-target}/release
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' capi/Cargo.toml | head -n 1)
major=$(sed -n 's/^const ABI_MAJOR: u32 = \([0-9]*\);$/\1/p' capi/build.rs)
mkdir -p "$prefix/lib/pkgconfig" "$prefix/include"
install -m 0755 "$target/libdxbc2spv.so" "$prefix/lib/libdxbc2spv.so.$version"
ln -sf "libdxbc2spv.so.$version" "$prefix/lib/libdxbc2spv.so.$major"
ln -sf "libdxbc2spv.so.$major" "$prefix/lib/libdxbc2spv.so"
install -m 0644 "$target/libdxbc2spv.a" "$prefix/lib/"
install -m 0644 capi/include/dxbc2spv.h "$prefix/include/"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" capi/dxbc2spv.pc.in \
    >"$prefix/lib/pkgconfig/dxbc2spv.pc"
echo "installed dxbc2spv $version (libdxbc2spv.so.$major) under $prefix"
