#!/usr/bin/env bash
# Builds exactly the binary deploy/Dockerfile puts in the image (same flags), for CI
# where no Docker engine runs, and smoke-tests it like the image build does.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-"$(mktemp -d)/printworker"}
CGO_ENABLED=0 GOOS=linux go build -trimpath -buildvcs=false \
  -ldflags "-s -w -buildid= -X main.version=${VERSION:-dev}" \
  -o "$out" ./cmd/printworker
"$out" version
if command -v ldd >/dev/null && ldd "$out" 2>&1 | grep -qv "not a dynamic executable"; then
  echo "printworker is not static:"; ldd "$out"; exit 1
fi
echo "static binary: $out ($(du -h "$out" | cut -f1))"
