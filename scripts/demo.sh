#!/usr/bin/env bash
# Installs what is missing, builds Ironhold, and runs `ironhold demo`: the embedded PostgreSQL, a
# demonstration fleet, and the service on http://127.0.0.1:8080 (Ctrl-C stops everything).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh

build_dir=${IRONHOLD_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIRONHOLD_TESTS=OFF \
  -DIRONHOLD_UNITY_BUILD=ON
cmake --build "$build_dir" -j "$(nproc)" --target ironhold
exec "$build_dir/ironhold" demo --listen "${IRONHOLD_LISTEN:-127.0.0.1:8080}" "$@"
