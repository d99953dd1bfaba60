#!/usr/bin/env bash
# One line of tests/golden/trace_hashes.txt: runs the scenario with its seed
# (and --set overrides) and fails unless the trace hash is the recorded one.
#
#   tests/support/trace_hash.sh KSIM_BINARY SCENARIO SEED EXPECTED_HASH [--set K=V ...]
#
# A model change that changes traces on purpose re-records the file with
# scripts/record-trace-hashes, and says so in its commit.
set -euo pipefail
if [[ $# -lt 4 ]]; then
  echo "usage: $0 KSIM_BINARY SCENARIO SEED EXPECTED_HASH [--set K=V ...]" >&2
  exit 2
fi
ksim=$1 scenario=$2 seed=$3 expected=$4
shift 4
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
json=$("$ksim" run "$root/$scenario" --seed "$seed" --json "$@") || [[ $? -eq 1 ]]
actual=$(grep -o '"trace_hash":"[0-9a-f]*"' <<<"$json" | cut -d'"' -f4)
if [[ $actual != "$expected" ]]; then
  echo "$scenario seed $seed $*: trace hash $actual, recorded $expected" >&2
  exit 1
fi
