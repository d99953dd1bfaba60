#!/usr/bin/env bash
# ksim used as a library by a project of its own (examples/delivery-guarantees):
# installs this build of ksim into a temporary prefix, builds the example
# against it with find_package(ksim), and runs the example's tests.
#
#   tests/support/example_project.sh KSIM_BUILD_DIR [WORK_DIR]
set -euo pipefail
if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 KSIM_BUILD_DIR [WORK_DIR]" >&2
  exit 2
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(realpath "$1")
work=${2:-$(mktemp -d "${TMPDIR:-/tmp}/ksim-example.XXXXXX")}
rm -rf "$work/prefix" "$work/build"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$root/examples/delivery-guarantees" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" -j"$(nproc)" >/dev/null
ctest --test-dir "$work/build" --output-on-failure
