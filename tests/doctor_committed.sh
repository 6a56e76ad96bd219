#!/bin/bash
# pe-bench doctor on every committed checkpoint (docs/doctor.md): each must pass every invariant expected of
# it. The checkpoints are the ones git tracks under results/ (tests/data holds deliberately old or broken files).
# Usage: tests/doctor_committed.sh path/to/pe-bench   (run from the repository's root)
set -euo pipefail
bin=$1
mapfile -t files < <(git ls-files 'results/*checkpoint.json')
if [ "${#files[@]}" -eq 0 ]; then
  echo "doctor_committed: no committed checkpoints found (run from the repository's root)" >&2
  exit 1
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "doctor_committed: ${#files[@]} checkpoints"
rc=0
"$bin" doctor --brief --checkpoint "${files[@]}" >"$out" || rc=$?
grep -v '^ok ' "$out" || true
echo "doctor_committed: $(grep -c '^ok ' "$out" || true) of ${#files[@]} passed"
exit $rc
