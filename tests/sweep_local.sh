#!/usr/bin/env bash
# scripts/sweep.sh on this machine: 2 schemes x 2 seeds with 2 jobs (GNU parallel, and xargs -P when
# parallel is absent) aggregate to the same results.json and table.md, byte for byte, as one
# `pe-bench run`; a second sweep skips every job and says so; a deleted run is the only job rerun.
# Usage: tests/sweep_local.sh path/to/pe-bench   (from the repository root)
set -u
BIN=$(realpath "${1:?usage: sweep_local.sh path/to/pe-bench}")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
S=(--set schemes=rope,alibi --set steps=200 --set test_sequences=500 --set rescale=pi --set analyze=false
   --set "runs_dir=$T/x/runs" --set "out_dir=$T/x")
"$BIN" run experiments/tournament.json --set seeds=0,1 "${S[@]}" --quiet >/dev/null || { echo "FAIL: pe-bench run"; exit 1; }
mv "$T/x" "$T/run"
same() {  # what: the sweep's results equal the single run's
  for f in results.json table.md; do cmp -s "$T/run/$f" "$T/x/$f" || { echo "FAIL [$1]: $f differs from pe-bench run's"; fail=1; }; done
}
scripts/sweep.sh experiments/tournament.json --seeds 0-1 --jobs 2 --bin "$BIN" "${S[@]}" >"$T/a.out" 2>&1 || { echo "FAIL: sweep"; cat "$T/a.out"; exit 1; }
grep -q "4/4 jobs done (0 skipped)" "$T/a.out" || { echo "FAIL: no progress line"; cat "$T/a.out"; fail=1; }
same "parallel"
scripts/sweep.sh experiments/tournament.json --seeds 0-1 --jobs 2 --bin "$BIN" "${S[@]}" >"$T/b.out" 2>&1
grep -q "4 already complete (skipped), 0 to run" "$T/b.out" || { echo "FAIL: the second sweep did not skip"; cat "$T/b.out"; fail=1; }
same "all skipped"
rm -rf "$T/x/runs/cue/alibi/seed1"
# without GNU parallel on the PATH: xargs -P
mkdir "$T/bin" && for t in bash sed awk wc flock date realpath nproc mkdir cat rm mv printf env xargs dirname; do
  p=$(command -v $t) && ln -s "$p" "$T/bin/$t"; done
PATH="$T/bin" scripts/sweep.sh experiments/tournament.json --seeds 0-1 --jobs 2 --bin "$BIN" "${S[@]}" >"$T/c.out" 2>&1 ||
  { echo "FAIL: the xargs sweep"; cat "$T/c.out"; fail=1; }
grep -q "3 already complete (skipped), 1 to run" "$T/c.out" || { echo "FAIL: the deleted run was not the only job"; cat "$T/c.out"; fail=1; }
same "xargs, one job rerun"
[[ $fail -eq 0 ]] && echo "sweep_local: parallel and xargs sweeps equal pe-bench run byte for byte; reruns skip complete jobs"
exit $fail
