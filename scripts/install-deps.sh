#!/usr/bin/env bash
# Installs the Debian 12 packages ringperf builds and tests with.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
packages=(
    build-essential cmake pkg-config
    liburing-dev libjansson-dev libjsmn-dev zlib1g-dev
    libcriterion-dev
    libpcre2-dev libutf8proc-dev libmicrohttpd-dev prometheus python3-prometheus-client
    clang clang-format
    android-libboringssl-dev nginx-light openssl tinyproxy
    python3-botocore
    default-jdk-headless libhdrhistogram-java
    libopenmpi-dev openmpi-bin
    libpng-dev libturbojpeg0-dev libmp3lame-dev
    tmux chromium  # the terminal dashboard and the live page in tests/cli/test_dashboard_*.c
    libfyaml-dev
    libplplot-dev plplot-driver-cairo  # ringperf plot: PLplot draws, its cairo driver writes PNG and SVG
    prometheus-node-exporter  # a real exporter for the server-metrics tests
)
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${packages[@]}" >/dev/null
