#!/usr/bin/env bash
# Installs the packages, builds ringperf and runs the whole test suite.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
ctest --test-dir "${RINGPERF_BUILD_DIR:-$root/build}" --output-on-failure
