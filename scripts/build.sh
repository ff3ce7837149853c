#!/usr/bin/env bash
# Configures and builds ringperf into build/ (or $RINGPERF_BUILD_DIR). Extra arguments go to cmake.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build_dir="${RINGPERF_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRINGPERF_WERROR=ON "$@" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
