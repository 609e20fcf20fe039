#!/usr/bin/env bash
# Debian packages the tests use: espeak-ng and sox make test speech and hums offline,
# libportaudio2 lets sounddevice open a microphone, chromium is the real browser of the web tests.
set -euo pipefail
pkgs=(espeak-ng sox libportaudio2 chromium fonts-dejavu-core)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
# Debian's Python makes no virtual environment without its venv package (scripts/setup.sh needs one)
if ! python3 -c "import ensurepip" >/dev/null 2>&1; then missing+=(python3-venv); fi
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
