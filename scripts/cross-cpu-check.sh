#!/usr/bin/env bash
# Runs a small tournament (every scheme, every map, the geometry; few steps, one seed) natively and
# under qemu-user emulating other x86-64 CPUs (an AMD EPYC-Rome and an Intel Haswell: AVX2 and FMA,
# no AVX-512), and checks with `pe-bench diff` that every output file is the same. Emulation is
# about 200 times slower than the real CPU: this takes several minutes. Needs qemu-user
# (`apt-get install qemu-user`). Usage: scripts/cross-cpu-check.sh [path/to/pe-bench] [CPU ...]
set -euo pipefail
BIN=$(realpath "${1:-build/pe-bench}")
shift || true
CPUS=("$@")
[[ ${#CPUS[@]} -gt 0 ]] || CPUS=(EPYC-Rome-v1 Haswell-v1)
command -v qemu-x86_64 >/dev/null || { echo "cross-cpu-check: needs qemu-x86_64 (apt-get install qemu-user)" >&2; exit 2; }
ROOT=$(pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SETS=(--set steps=150 --set seeds=0 --set test_sequences=300)
run() {  # run DIR [launcher...]: the small tournament into DIR/out, from a folder laid out like the repository
  local dir=$1; shift
  mkdir -p "$dir"
  ln -s "$ROOT/experiments" "$dir/experiments"
  ln -s "$ROOT/data" "$dir/data"
  (cd "$dir" && "$@" "$BIN" run experiments/tournament.json --quiet "${SETS[@]}" --set out_dir=out --set runs_dir=out/runs >/dev/null 2>"$dir/stderr")
}
run "$TMP/native"
echo "cross-cpu-check: native run done ($(ls -R "$TMP/native/out" | grep -c json) JSON files)"
status=0
for cpu in "${CPUS[@]}"; do
  start=$(date +%s)
  run "$TMP/$cpu" qemu-x86_64 -cpu "$cpu"
  if "$BIN" diff "$TMP/$cpu/out" "$TMP/native/out" >"$TMP/$cpu.diff" 2>&1; then
    echo "cross-cpu-check: $cpu: every output identical to the native run ($(($(date +%s) - start)) s)"
  else
    echo "cross-cpu-check: $cpu: outputs differ:"; cat "$TMP/$cpu.diff"; status=1
  fi
done
exit $status
