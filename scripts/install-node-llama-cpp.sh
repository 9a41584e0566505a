#!/usr/bin/env bash
# Installs node-llama-cpp with its prebuilt linux-x64 CPU build of llama.cpp, outside the
# project's dependencies (it is platform-specific and 80 MB), for the real-engine test and
# `npm run bench:llama`. Only the npm registry is used: the optional GPU packages are left out
# (--omit=optional: the CUDA ones alone are gigabytes), the postinstall step is skipped
# (--ignore-scripts, NODE_LLAMA_CPP_SKIP_DOWNLOAD) and the fixture loads the prebuilt binary with
# build: 'never', so nothing is compiled or downloaded at install or run time.
#
#   bash scripts/install-node-llama-cpp.sh        # installs into $LOADGATE_LLAMA_DIR
#
# LOADGATE_LLAMA_DIR defaults to ~/.cache/loadgate-llama; test/fixtures/node-llama-cpp.mjs looks
# there too. Exits 0 at once when the pinned version is already installed.
set -euo pipefail
version=3.21.1
dir="${LOADGATE_LLAMA_DIR:-${HOME}/.cache/loadgate-llama}"
installed="$dir/node_modules/node-llama-cpp/package.json"
if [ -f "$installed" ] && grep -q "\"version\": \"$version\"" "$installed" &&
  [ -f "$dir/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/llama-addon.node" ]; then
  exit 0
fi
mkdir -p "$dir"
NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm install --prefix "$dir" --no-save --no-audit --no-fund --no-package-lock \
  --omit=optional --ignore-scripts "node-llama-cpp@$version" "@node-llama-cpp/linux-x64@$version"
