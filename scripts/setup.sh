#!/usr/bin/env bash
# Set up the project in ./.venv: the pinned runtime and test set, MediaPipe without its
# declared dependencies (see README, "Install"), and the project itself in editable mode.
# Debian packages used by the audio and browser tests are installed by scripts/install-debian.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null || PYTHON=python3
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -r requirements.txt
.venv/bin/python -m pip install -q --no-deps mediapipe==0.10.21
.venv/bin/python -m pip install -q --no-deps -e .
echo "set up: $(.venv/bin/referee --version)"
