# Sourced by tests/cli_errors.sh (issue 53, part 1): eval and analyze read the task a checkpoint records.
# A folder or a list of checkpoints holding two tasks is refused with one line naming two of them; --task
# picks one task of a folder; a checkpoint of another task than --task is refused without advice to retrain.
# Uses $BIN, $TMP and expect_code from cli_errors.sh.

mkdir -p "$TMP/mixed/cue/rope" "$TMP/mixed/charlm/rope"
cp -r results/tournament/runs/cue/rope/seed0 "$TMP/mixed/cue/rope/"
cp -r results/charlm-quick/runs/charlm/rope/seed0 "$TMP/mixed/charlm/rope/"
expect_code 2 "eval on a folder of two tasks" "holds models of 2 tasks (charlm in" eval --runs-dir "$TMP/mixed" --out "$TMP/out.json" --quiet
expect_code 2 "analyze on a folder of two tasks" "pass --task to analyse one of them" analyze --runs-dir "$TMP/mixed" --out "$TMP/out.json"
expect_code 2 "eval on checkpoints of two tasks" "a cue model; evaluate one task at a time" eval --checkpoint "$TMP/mixed/cue/rope/seed0/checkpoint.json" --checkpoint "$TMP/mixed/charlm/rope/seed0/checkpoint.json" --out "$TMP/out.json" --quiet
expect_code 3 "a char LM read as a cue head" "holds a charlm model, not cue; leave --task out to evaluate it as the charlm model it is" eval --task cue --checkpoint "$TMP/mixed/charlm/rope/seed0/checkpoint.json" --out "$TMP/out.json" --quiet
# the filter reads one task of the folder (a task named by --task must still exist)
expect_code 2 "eval with an unknown task on a folder" "unknown task" eval --task cues --runs-dir "$TMP/mixed" --out "$TMP/out.json" --quiet
if "$BIN" eval --task cue --runs-dir "$TMP/mixed" --lengths 32 --set test_sequences=50 --out "$TMP/mixed-cue.json" --quiet >/dev/null 2>&1 &&
   grep -q '"task": "cue"' "$TMP/mixed-cue.json"; then pass=$((pass + 1)); else echo "FAIL [eval --task cue on a folder of two tasks]: not read"; fail=$((fail + 1)); fi
if "$BIN" eval --checkpoint "$TMP/mixed/charlm/rope/seed0/checkpoint.json" --lengths 128 --set val_windows=2 --out "$TMP/mixed-lm.json" --quiet >/dev/null 2>&1 &&
   grep -q '"task": "charlm"' "$TMP/mixed-lm.json"; then pass=$((pass + 1)); else echo "FAIL [eval --checkpoint of a char LM without --task]: not read as one"; fail=$((fail + 1)); fi
# compare re-reads heads trained with randomised positions at the draws eval read (its per-seed check holds;
# at 64, where a draw from [0, 256) is not 0 .. 63)
if "$BIN" compare results/random-positions-tournament-quick/results.json rope alibi --length 64 >"$TMP/rp-compare.txt" 2>&1 &&
   grep -q "seed 0, over the shared test sequences" "$TMP/rp-compare.txt"; then pass=$((pass + 1)); else echo "FAIL [compare on randomised positions]:"; cat "$TMP/rp-compare.txt"; fail=$((fail + 1)); fi
# a char LM read on another text than the one it records (training.corpus_sha1) says so: a note on stderr and
# its rows labelled "trained on another text" (trained_on_sha1 in results.json)
tac data/timemachine.txt >"$TMP/other.txt"
"$BIN" train --task charlm --scheme rope --corpus "$TMP/other.txt" --steps 3 --runs-dir "$TMP/own" --quiet >/dev/null 2>&1
if "$BIN" eval --checkpoint "$TMP/own/charlm/rope/seed0/checkpoint.json" --lengths 128 --set val_windows=2 --out "$TMP/other.json" --quiet >"$TMP/other.out" 2>"$TMP/other.err" &&
   grep -q "trained on a text of sha1" "$TMP/other.err" && grep -q "rope (trained on another text)" "$TMP/other.out" &&
   grep -q '"trained_on_sha1"' "$TMP/other.json"; then pass=$((pass + 1)); else echo "FAIL [a char LM read on another text]: not said"; cat "$TMP/other.err"; fail=$((fail + 1)); fi
if "$BIN" eval --checkpoint "$TMP/own/charlm/rope/seed0/checkpoint.json" --corpus "$TMP/other.txt" --lengths 128 --set val_windows=2 --out "$TMP/own.json" --quiet >/dev/null 2>"$TMP/own.err" &&
   ! grep -q "trained_on_sha1" "$TMP/own.json" && [[ ! -s "$TMP/own.err" ]]; then pass=$((pass + 1)); else echo "FAIL [a char LM read on its own text]: labelled"; fail=$((fail + 1)); fi
edit_json "$CQ" "$TMP/bad-sha1.json" "c['training']['corpus_sha1'] = 12"
expect_code 3 "a char LM whose corpus sha1 is not one" "training.corpus_sha1 is 12, not a sha1" eval --checkpoint "$TMP/bad-sha1.json" --lengths 128 --out "$TMP/out.json" --quiet
