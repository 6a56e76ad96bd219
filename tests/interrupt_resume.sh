#!/usr/bin/env bash
# Interruption and resume with real signals, through the binary: SIGINT or SIGTERM during training
# exits 8 with one line saying how to resume, leaves the run's saved state (and no run directory,
# temporary file or lock), and `--resume` ends byte-identical to an uninterrupted run: `train` on
# the cue task (SIGINT), `train` on the char LM (SIGTERM) and a whole `run` (SIGINT, several runs on
# two threads). A reader of the interrupted tree names the unfinished run (exit 4).
# Usage: tests/interrupt_resume.sh path/to/pe-bench   (from the repository root)
set -u
BIN=$(realpath "${1:?usage: interrupt_resume.sh path/to/pe-bench}")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
say_fail() { echo "FAIL: $*"; fail=$((fail + 1)); }

# start "name" args...: runs pe-bench in the background; stops it with $SIG 0.5 s after the lock
# of its run directory $LOCK appears; checks exit 8, one line on stderr naming --resume.
stop_run() {
  local name=$1
  shift
  "$BIN" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null &
  local pid=$!
  for _ in $(seq 1 200); do [[ -e "$LOCK" ]] && break; sleep 0.05; done
  sleep 0.5
  kill "-$SIG" "$pid"
  wait "$pid"
  local rc=$?
  [[ $rc -eq 8 ]] || { say_fail "$name: exit $rc after SIG$SIG, expected 8 (did training end before the signal?)"; cat "$TMP/$name.err"; return; }
  grep -q "^pe-bench: interrupted by SIG$SIG[ :].*--resume" "$TMP/$name.err" ||
    { say_fail "$name: no 'interrupted ... --resume' line:"; cat "$TMP/$name.err"; }
  [[ $(grep -c '^pe-bench:' "$TMP/$name.err") -eq 2 ]] ||  # the notice on the signal, then the one line
    { say_fail "$name: stderr:"; cat "$TMP/$name.err"; }
  if find "$TMP" -name '*.tmp.*' -o -name '*.lock' | grep -q .; then say_fail "$name: a temporary file or lock was left"; fi
}

same_files() {  # same_files what a b: every file of run directory a equals b's
  for f in config.json metrics.jsonl checkpoint.json; do
    cmp -s "$2/$f" "$3/$f" || say_fail "$1: $f differs from the uninterrupted run's"
  done
}

# 1. cue: train, SIGINT
cue=(train --scheme rope --steps 40000 --threads 1 -q)
"$BIN" "${cue[@]}" --runs-dir "$TMP/cue" >/dev/null && mv "$TMP/cue/cue/rope/seed0" "$TMP/cue-ref"
LOCK="$TMP/cue/cue/rope/seed0.lock" SIG=INT stop_run cue "${cue[@]}" --runs-dir "$TMP/cue"
[[ -f "$TMP/cue/cue/rope/seed0.state.json" && ! -e "$TMP/cue/cue/rope/seed0" ]] || say_fail "cue: no saved state, or a run directory"
"$BIN" "${cue[@]}" --runs-dir "$TMP/cue" --resume >"$TMP/cue.resume" || say_fail "cue: --resume failed"
grep -q "resumed after step" "$TMP/cue.resume" || say_fail "cue: --resume did not continue the saved state"
same_files cue "$TMP/cue-ref" "$TMP/cue/cue/rope/seed0"
[[ ! -e "$TMP/cue/cue/rope/seed0.state.json" ]] || say_fail "cue: the state outlived the finished run"

# 2. the char LM: train, SIGTERM
lm=(train --task charlm --scheme rope --experiment experiments/charlm-quick.json --set d_model=32 --set steps=400 -q)
"$BIN" "${lm[@]}" --runs-dir "$TMP/lm" >/dev/null && mv "$TMP/lm/charlm/rope/seed0" "$TMP/lm-ref"
LOCK="$TMP/lm/charlm/rope/seed0.lock" SIG=TERM stop_run lm "${lm[@]}" --runs-dir "$TMP/lm"
"$BIN" "${lm[@]}" --runs-dir "$TMP/lm" --resume >"$TMP/lm.resume" || say_fail "lm: --resume failed"
grep -q "resumed after step" "$TMP/lm.resume" || say_fail "lm: --resume did not continue the saved state"
same_files lm "$TMP/lm-ref" "$TMP/lm/charlm/rope/seed0"

# 3. a whole experiment: run, SIGINT; the runs tree is refused until resumed; the results equal
run=(run experiments/tournament.json --set "runs_dir=$TMP/t/runs" --set "out_dir=$TMP/t" --set schemes=rope,alibi
     --set seeds=0,1 --set steps=30000 --set maps= --set analyze=false --threads 2 -q)
"$BIN" "${run[@]}" >/dev/null && mv "$TMP/t" "$TMP/t-ref"
LOCK="$TMP/t/runs/cue/rope/seed0.lock" SIG=INT stop_run run "${run[@]}"
"$BIN" eval --runs-dir "$TMP/t/runs" --lengths 32 -q >/dev/null 2>"$TMP/eval.err"
rc=$?
[[ $rc -eq 4 ]] && grep -q "interrupted before it finished" "$TMP/eval.err" ||
  { say_fail "eval over an interrupted tree: exit $rc"; cat "$TMP/eval.err"; }
"$BIN" "${run[@]}" --resume >/dev/null || say_fail "run --resume failed"
"$BIN" diff "$TMP/t-ref" "$TMP/t" >"$TMP/diff.out" || { say_fail "run: the resumed results differ:"; head "$TMP/diff.out"; }
if find "$TMP/t" -name '*.state.json' | grep -q .; then say_fail "run: states left after --resume"; fi

[[ $fail -eq 0 ]] && echo "interrupt_resume: cue SIGINT, char-LM SIGTERM and run SIGINT all resumed byte-identical"
exit $((fail > 0))
