#!/usr/bin/env bash
# Bad input through the real binary: each case must exit non-zero, print exactly one line on
# stderr that starts with "pe-bench: error:", and leave no results file (or temp file) behind.
# Usage: tests/cli_errors.sh path/to/pe-bench
set -u
BIN=${1:?usage: cli_errors.sh path/to/pe-bench}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0

expect_error() {  # expect_error "description" "expected text" args...
  local what=$1 text=$2
  shift 2
  local out="$TMP/out.json"
  rm -f "$out"
  "$BIN" "$@" >"$TMP/stdout" 2>"$TMP/stderr" </dev/null
  local rc=$?
  local lines
  lines=$(wc -l <"$TMP/stderr")
  local ok=1
  [[ $rc -ne 0 ]] || { echo "FAIL [$what]: exit code 0"; ok=0; }
  [[ -z "${WANT_RC:-}" || $rc -eq $WANT_RC ]] || { echo "FAIL [$what]: exit code $rc, expected $WANT_RC"; ok=0; }
  [[ $rc -lt 64 ]] || { echo "FAIL [$what]: exit code $rc (a signal or an internal error)"; ok=0; }
  [[ $lines -eq 1 ]] || { echo "FAIL [$what]: $lines lines on stderr:"; cat "$TMP/stderr"; ok=0; }
  grep -q "^pe-bench: error: " "$TMP/stderr" || { echo "FAIL [$what]: no 'pe-bench: error:' prefix"; ok=0; }
  grep -qF -- "$text" "$TMP/stderr" || { echo "FAIL [$what]: message lacks '$text':"; cat "$TMP/stderr"; ok=0; }
  [[ ! -e "$out" ]] || { echo "FAIL [$what]: $out was written"; ok=0; }
  if compgen -G "$TMP/*.tmp.*" >/dev/null || compgen -G "$TMP/**/*.tmp.*" >/dev/null; then
    echo "FAIL [$what]: temporary file left behind"; ok=0
  fi
  if [[ $ok -eq 1 ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}

expect_code() {  # expect_code CODE "description" "expected text" args...: the same, with that exit code
  WANT_RC=$1
  shift
  expect_error "$@"
  WANT_RC=
}

# A real checkpoint to corrupt, and a few broken files.
"$BIN" train --scheme learned --steps 3 --runs-dir "$TMP/runs" --quiet >/dev/null 2>&1 || { echo "FAIL: cannot train"; exit 1; }
CP="$TMP/runs/cue/learned/seed0/checkpoint.json"
head -c 500 "$CP" >"$TMP/corrupt.json"
sed 's/"version": 1/"version": 7/' "$CP" >"$TMP/version.json"
echo '{"steps": 10, "schemez": ["rope"]}' >"$TMP/typo.json"
echo '{"steps": "ten"}' >"$TMP/type.json"

expect_error "unknown scheme" "unknown scheme 'fourier'" train --scheme fourier --runs-dir "$TMP/r2" --quiet
expect_error "unknown task" "unknown task 'filings9'" train --scheme rope --task filings9 --runs-dir "$TMP/r2" --quiet
expect_error "malformed lengths" "'abc' in the list '32,abc' is not a length from 2 to 2048" eval --lengths 32,abc --runs-dir "$TMP/runs" --out "$TMP/out.json" --quiet
expect_error "non-positive length" "'0' in the list '0,64' is not a length" eval --lengths 0,64 --runs-dir "$TMP/runs" --out "$TMP/out.json" --quiet
expect_error "negative length" "'-32' in the list '-32' is not a length" eval --lengths=-32 --runs-dir "$TMP/runs" --out "$TMP/out.json" --quiet
expect_error "missing checkpoint" "not found" eval --checkpoint "$TMP/absent.json" --out "$TMP/out.json" --quiet
expect_error "corrupt checkpoint" "not valid JSON" eval --checkpoint "$TMP/corrupt.json" --out "$TMP/out.json" --quiet
expect_error "checkpoint version" "format version 7" eval --checkpoint "$TMP/version.json" --out "$TMP/out.json" --quiet
expect_error "missing runs dir" "not found" eval --runs-dir "$TMP/nowhere" --out "$TMP/out.json" --quiet
expect_error "experiment typo" "unknown key 'schemez'" run "$TMP/typo.json" --set out_dir="$TMP" --quiet
expect_error "experiment wrong type" "'steps' must be an integer" run "$TMP/type.json" --quiet
expect_error "missing experiment" "experiment file not found" run "$TMP/absent.json" --quiet
expect_error "bad --set key" "unknown key 'stepz'" train --scheme rope --set stepz=3 --runs-dir "$TMP/r2" --quiet
expect_error "bad --set value" "is not an integer" train --scheme rope --set steps=many --runs-dir "$TMP/r2" --quiet
expect_error "census bad kappa" "is not a positive number" census --kappa 2,x
expect_error "census bad map" "unknown context-extension map 'zoom' (known: none, pi" census --maps pi,zoom
expect_error "gradcheck unknown scheme" "unknown scheme" gradcheck --scheme fourier
expect_error "unknown subcommand" "error" frobnicate
expect_error "missing required option" "--scheme is required" train
# The character LM.
printf 'the time machine\n' >"$TMP/short.txt"
expect_error "charlm missing corpus" "not found" train --task charlm --scheme rope --corpus "$TMP/nope.txt" --runs-dir "$TMP/r3" --quiet
expect_error "charlm corpus too short" "characters after preprocessing" train --task charlm --scheme rope --corpus "$TMP/short.txt" --runs-dir "$TMP/r3" --quiet
expect_error "charlm bad lengths" "'x' in the list '128,x' is not a length" eval --task charlm --lengths 128,x --runs-dir "$TMP/runs" --out "$TMP/out.json" --quiet
expect_error "charlm no checkpoints" "no charlm checkpoint.json" eval --task charlm --runs-dir "$TMP/runs" --out "$TMP/out.json" --quiet
expect_error "eval unknown task" "unknown task 'poetry'" eval --task poetry --runs-dir "$TMP/runs" --out "$TMP/out.json" --quiet
expect_error "sample a cue checkpoint" "not charlm" sample --checkpoint "$CP"
expect_error "sample a corrupt checkpoint" "not valid JSON" sample --checkpoint "$TMP/corrupt.json"
expect_error "finetune a cue checkpoint" "not charlm" finetune --checkpoint "$CP" --maps pi --quiet
expect_error "finetune missing checkpoint" "not found" finetune --checkpoint "$TMP/absent.json" --maps pi --quiet
expect_error "finetune bad map" "--maps: unknown context-extension map 'zoom'" finetune --checkpoint "$CP" --maps pi,zoom --quiet
expect_error "charlm eval bad map" "--maps: unknown context-extension map 'zoom'" eval --task charlm --maps zoom --runs-dir "$TMP/runs" --out "$TMP/out.json" --quiet
expect_error "cue eval bad map" "--maps: unknown context-extension map 'zoom'" eval --maps pi,zoom --runs-dir "$TMP/runs" --out "$TMP/out.json" --quiet
# An option or key that does not apply is refused, naming it.
expect_error "cue eval with a band" "--band does not apply to --task cue" eval --band 128 --runs-dir "$TMP/runs" --out "$TMP/out.json" --quiet
expect_error "cue train with a corpus" "does not apply to the cue task" train --scheme rope --corpus data/timemachine.txt --runs-dir "$TMP/r2" --quiet
expect_error "a setting of another scheme" "key 'shaw_clip' is a setting of shaw" train --scheme rope --set shaw_clip=8 --runs-dir "$TMP/r2" --quiet
expect_error "a setting out of its domain" "key 'shaw_clip' must be an integer in [1, 2048] (got 0)" train --scheme shaw --set shaw_clip=0 --runs-dir "$TMP/r2" --quiet
expect_error "hybrid in the one-layer cue head" "hybrid_layers lists 2 layers but the model has 1" train --scheme hybrid --runs-dir "$TMP/r2" --quiet
expect_error "hybrid with a bad window" "bad window 'x'" train --task charlm --scheme hybrid --set hybrid_layers=rope:x,none --steps 1 --runs-dir "$TMP/r3" --quiet
expect_error "table of a corrupt file" "not valid JSON" table "$TMP/corrupt.json"
expect_error "table of a non-results file" "not a pe-bench results file" table "$TMP/typo.json"
expect_error "diff a missing directory" "does not exist" diff "$TMP/runs" "$TMP/absent"
expect_error "diff a directory and a file" "both be directories or both files" diff "$TMP/runs" "$CP"
expect_error "diff of a corrupt JSON file" "not valid JSON" diff "$TMP/corrupt.json" "$TMP/typo.json"

# census reads every map of the table, base=B and none included.
if "$BIN" census --maps none,pi,base=20000 --kappa 2 >"$TMP/stdout" 2>"$TMP/stderr" && grep -q "B20000:2" "$TMP/stdout"; then
  pass=$((pass + 1)); else echo "FAIL [census takes base=B and none]"; cat "$TMP/stderr"; fail=$((fail + 1)); fi

# pe-bench diff: equal trees exit 0; a changed value exits 6 and names the file and the value.
cp -r "$TMP/runs" "$TMP/runs2"
"$BIN" diff "$TMP/runs" "$TMP/runs2" >"$TMP/stdout" 2>"$TMP/stderr"
if [[ $? -eq 0 ]] && grep -q "^same: " "$TMP/stdout"; then pass=$((pass + 1)); else
  echo "FAIL [diff of equal trees]"; cat "$TMP/stdout" "$TMP/stderr"; fail=$((fail + 1)); fi
sed -i 's/"steps": 3/"steps": 4/' "$TMP/runs2/cue/learned/seed0/config.json"
sed -i 's/"compiler": "[^"]*"/"compiler": "elsewhere"/' "$TMP/runs2/cue/learned/seed0/checkpoint.json"
"$BIN" diff "$TMP/runs" "$TMP/runs2" >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
if [[ $rc -eq 6 ]] && grep -q "config.json: steps: 3 vs 4" "$TMP/stdout" && grep -q "note: .*build differs (compiler" "$TMP/stdout" &&
   ! grep -q "^cue/learned/seed0/checkpoint.json:" "$TMP/stdout" && [[ $(wc -l <"$TMP/stderr") -eq 1 ]]; then pass=$((pass + 1)); else
  echo "FAIL [diff names the differing value, notes the build] rc=$rc"; cat "$TMP/stdout" "$TMP/stderr"; fail=$((fail + 1)); fi

# table --restate: each task whose results are proportions recomputes its intervals (the committed
# ones, the same values); a perplexity file is left byte for byte.
for f in results/direction/before/results.json results/passkey-quick/results.json results/charlm-quick/results.json; do
  cp "$f" "$TMP/restate.json"
  if [[ $f == *direction* ]]; then  # a stale interval the restatement must replace
    /usr/bin/python3 -c 'import json, sys; p = sys.argv[1]; r = json.load(open(p)); r["rows"][0]["lo"][0] = 0.5; json.dump(r, open(p, "w"))' "$TMP/restate.json"
  fi
  if "$BIN" table "$TMP/restate.json" --restate >"$TMP/stdout" 2>"$TMP/stderr" &&
     "$BIN" diff "$f" "$TMP/restate.json" >/dev/null 2>&1; then pass=$((pass + 1)); else
    echo "FAIL [table --restate $f]"; cat "$TMP/stderr"; fail=$((fail + 1)); fi
done
cmp -s results/charlm-quick/results.json "$TMP/restate.json" && pass=$((pass + 1)) || {
  echo "FAIL [table --restate rewrote a perplexity file]"; fail=$((fail + 1)); }

# The learned table past its rows is a null, not an error.
"$BIN" eval --lengths 32,64 --runs-dir "$TMP/runs" --out "$TMP/ok.json" --quiet >"$TMP/stdout" 2>"$TMP/stderr"
if [[ $? -eq 0 ]] && grep -q "null" "$TMP/ok.json" && grep -q "—" "$TMP/stdout"; then pass=$((pass + 1)); else
  echo "FAIL [learned past its rows]: expected null in JSON and a dash in the table"; cat "$TMP/stderr"; fail=$((fail + 1)); fi

# Once an internal error (issue 13): an empty alibi_slopes list means the reference rule, and the
# geometry reads the slope the scheme used.
"$BIN" run experiments/tournament.json --set alibi_slopes= --set schemes=alibi --set seeds=0 --set steps=30 \
  --set maps= --set reference= --set out_dir="$TMP/alibi" --set runs_dir="$TMP/alibi/runs" --quiet >"$TMP/stdout" 2>"$TMP/stderr"
if [[ $? -eq 0 ]] && python3 -c 'import json,sys; g=json.load(open(sys.argv[1])); assert abs(g["alibi"][0]["slope"] - 2**-8) < 1e-12, g["alibi"][0]' "$TMP/alibi/geometry.json"; then
  pass=$((pass + 1)); else echo "FAIL [alibi with the reference slopes, analysed]"; cat "$TMP/stderr"; fail=$((fail + 1)); fi

# Issue 14's hostile inputs, one or more per class; each ends in one line and its documented code
# (2 usage or config, 3 checkpoint, 4 data, 7 diverged).
CQ=results/charlm-quick/runs/charlm/rope/seed0/checkpoint.json
edit_json() {  # edit_json IN OUT python-statement-on-c
  python3 -c "import json,sys; c=json.load(open(sys.argv[1])); $3; json.dump(c, open(sys.argv[2], 'w'))" "$1" "$2"
}
edit_json "$CP" "$TMP/rows-neg.json" "c['scheme']['learned_rows'] = -5"
edit_json "$CP" "$TMP/huge-value.json" "c['params'][0]['data'][0] = 1e39"
edit_json "$CP" "$TMP/no-training.json" "del c['training']"
edit_json "$CP" "$TMP/shape-mismatch.json" "c['model']['d_model'] = 100000000"
edit_json "$CQ" "$TMP/tl0.json" "c['training']['train_length'] = 0"
edit_json "$CQ" "$TMP/base-str.json" "c['scheme']['base'] = 'x'"
echo '{"task": "cue", "lengths": {}, "rows": []}' >"$TMP/lengths-obj.json"
R="--runs-dir $TMP/h --quiet"
expect_code 2 "rotary_fraction out of [0, 1]" "rotary_fraction" train --scheme rope --set rotary_fraction=7 $R
expect_code 3 "checkpoint learned_rows -5" "learned_rows" eval --checkpoint "$TMP/rows-neg.json" --out "$TMP/out.json" --quiet
expect_code 2 "steps past int" "key 'steps' must be an integer in [1, 1000000]" train --scheme rope --set steps=2147483648 $R
expect_code 2 "steps past 32 bits" "got 4294967297" train --scheme rope --set steps=4294967297 $R
expect_code 3 "charlm checkpoint with train_length 0" "training.train_length" sample --checkpoint "$TMP/tl0.json" --prompt "the"
expect_code 3 "checkpoint setting of the wrong type" "setting 'base' must be a number" sample --checkpoint "$TMP/base-str.json" --prompt "the"
expect_code 4 "table of results with lengths {}" "malformed" table "$TMP/lengths-obj.json"
expect_code 2 "--steps 0" "key 'steps'" train --scheme rope --steps 0 $R
# compare: readers and lengths the results do not hold, a file that is not results
TR=results/tournament/results.json
expect_code 2 "compare an unknown reader" "no reader 'rope+xyz'" compare "$TR" rope+xyz rope --length 256
expect_code 2 "compare at a length not read" "were read at" compare "$TR" rope alibi --length 100
expect_code 2 "compare learned past its rows" "no reading at 256" compare "$TR" learned rope --length 256
expect_code 4 "compare a malformed results file" "malformed" compare "$TMP/lengths-obj.json" rope alibi --length 32
expect_code 2 "compare without --length" "--length" compare "$TR" rope alibi
CR=results/charlm-quick/results.json
# the filings task reads whole documents: lengths do not apply to it
expect_code 2 "filings with eval_lengths" "key 'eval_lengths' does not apply to the filings task" run experiments/filings.json --set eval_lengths=64 --set runs_dir="$TMP/f" --set out_dir="$TMP/f" --quiet
# export and import (docs/interop.md)
expect_code 3 "export a missing checkpoint" "checkpoint $TMP/none.json not found" export --checkpoint "$TMP/none.json" --out "$TMP/exported"
LEARNED="$TMP/runs/cue/learned/seed0/checkpoint.json"
expect_code 2 "export: a check option without --check" "--map and --length describe the check batch: add --check" export --checkpoint "$LEARNED" --out "$TMP/exported" --map pi
expect_code 2 "export: a map for a scheme without frequencies" "learned has no frequencies to rescale" export --checkpoint "$LEARNED" --out "$TMP/exported" --check --map pi
expect_code 2 "export: a check batch past a learned table" "--length 64: the learned model has no position past 31" export --checkpoint "$LEARNED" --out "$TMP/exported" --check --length 64
[[ ! -e "$TMP/exported" ]] || { echo "FAIL [export]: a refused export left $TMP/exported"; fail=$((fail + 1)); }
expect_code 4 "import from a directory without an export" "$TMP/no-export/config.json is missing" import --from "$TMP/no-export" --out "$TMP/out.json"
# the laboratory without its inputs: one line naming the missing file, nothing written
expect_code 4 "lab without results" "$TMP/no-such-results/theory.json is missing" lab --results "$TMP/no-such-results" --out "$TMP/lab" --quiet
[[ ! -e "$TMP/lab" ]] && pass=$((pass + 1)) || { echo "FAIL [lab without results wrote $TMP/lab]"; fail=$((fail + 1)); }
expect_code 2 "filings corpus_version out of range" "key 'corpus_version' must be an integer in [1, 2]" run experiments/filings.json --set corpus_version=3 --set runs_dir="$TMP/f" --set out_dir="$TMP/f" --quiet
expect_code 2 "corpus filings --corpus-version out of range" "--corpus-version: Value 0 not in range 1 to 2" corpus filings --corpus-version 0
expect_code 2 "filings horizon_cue_runs missing" "key 'horizon_cue_runs': $TMP/no-such-runs is not a directory" run experiments/filings.json --set horizon_cue_runs="$TMP/no-such-runs" --set runs_dir="$TMP/f" --set out_dir="$TMP/f" --quiet
expect_code 2 "filings eval --lengths" "--lengths does not apply to --task filings" eval --task filings --lengths 64 --runs-dir "$TMP/f" --out "$TMP/out.json" --quiet
expect_code 2 "compare filings results at a length" "--length does not apply to filings results" compare results/filings/results.json rope+pi rope --length 32
expect_code 2 "compare char-LM readings not held" "no reading 'rope+ntk'" compare "$CR" rope+ntk rope --length 512
expect_code 2 "finetune --steps 0" "at least one step" finetune --checkpoint "$CQ" --finetune-steps 0 --quiet
expect_code 2 "finetune --lr -1" "key 'finetune_lr' must be a finite number in (0, 1]" finetune --checkpoint "$CQ" --finetune-lr -1 --quiet
expect_code 2 "finetune --batch 0" "key 'finetune_batch'" finetune --checkpoint "$CQ" --finetune-batch 0 --quiet
expect_code 2 "--threads -3" "--threads" train --scheme rope --threads -3 $R
expect_code 2 "lr 1e6" "key 'lr' must be a finite number in (0, 1]" train --scheme rope --set lr=1e6 $R
expect_code 3 "checkpoint value 1e39" "is not a finite float" eval --checkpoint "$TMP/huge-value.json" --out "$TMP/out.json" --quiet
expect_code 2 "mark_prob 2" "mark_prob" train --scheme rope --set mark_prob=2 $R
expect_code 2 "base 0" "base" train --scheme rope --set base=0 $R
expect_code 2 "learned_rows below the training length" "learned_rows is 3 but train_length is 32" train --scheme learned --set learned_rows=3 $R
expect_code 2 "empty out_dir" "key 'out_dir' must not be empty" run experiments/tournament.json --set out_dir= --quiet
expect_code 3 "checkpoint without its training section" "no 'training' section" eval --checkpoint "$TMP/no-training.json" --out "$TMP/out.json" --quiet
expect_code 3 "checkpoint sections that disagree" "model.d_model 100000000 and scheme.d_model" eval --checkpoint "$TMP/shape-mismatch.json" --out "$TMP/out.json" --quiet
expect_code 2 "eval at 65,536" "is not a length from 2 to 2048" eval --checkpoint "$CP" --lengths 65536 --out "$TMP/out.json" --quiet
expect_code 2 "a huge t5 table" "key 't5_buckets' must be an integer in [2, 1024]" train --scheme t5 --set t5_buckets=1000000000 $R
echo '{"lr": 1e999}' >"$TMP/inf.json"
expect_code 2 "a number too large for a double in a file" "is not valid JSON" run "$TMP/inf.json" --quiet
# an experiment file's task is the task train uses (it used to train a cue model with charlm settings)
"$BIN" train --experiment experiments/charlm-quick.json --scheme none --steps 2 --runs-dir "$TMP/cq" --quiet >"$TMP/stdout" 2>"$TMP/stderr"
if [[ $? -eq 0 && -f "$TMP/cq/charlm/none/seed0/checkpoint.json" ]]; then pass=$((pass + 1)); else
  echo "FAIL [train --experiment takes the file's task]"; cat "$TMP/stderr"; fail=$((fail + 1)); fi

# Outputs: a device is written through, never replaced; a table lost on stdout is a failure (exit 5).
"$BIN" eval --checkpoint "$CP" --lengths 32 --out /dev/null --quiet >/dev/null 2>"$TMP/stderr"
if [[ $? -eq 0 && -c /dev/null ]]; then pass=$((pass + 1)); else echo "FAIL [--out /dev/null]"; cat "$TMP/stderr"; fail=$((fail + 1)); fi
if [[ -e /dev/full ]]; then
  "$BIN" schemes >/dev/full 2>"$TMP/stderr"
  rc=$?
  if [[ $rc -eq 5 ]] && grep -q "standard output" "$TMP/stderr"; then pass=$((pass + 1)); else
    echo "FAIL [stdout to a full device] rc=$rc"; cat "$TMP/stderr"; fail=$((fail + 1)); fi
fi
# SIGTERM in the middle of training: a saved state (exit 8), no run directory, no temporary file or lock
# (resuming from it: tests/interrupt_resume.sh)
"$BIN" train --scheme rope --steps 200000 --runs-dir "$TMP/killed" --quiet >/dev/null 2>&1 &
victim=$!
sleep 1
kill -TERM $victim
wait $victim
rc=$?
left=$(find "$TMP/killed" \( -name '*.tmp.*' -o -name '*.lock' -o -name checkpoint.json \) 2>/dev/null | wc -l)
if [[ $rc -eq 8 && $left -eq 0 && -f "$TMP/killed/cue/rope/seed0.state.json" ]]; then pass=$((pass + 1)); else
  echo "FAIL [SIGTERM during training] rc=$rc, left behind:"; find "$TMP/killed"; fail=$((fail + 1)); fi
# a second signal ends pe-bench at once, even while it saves the state, and still removes its temporaries
"$BIN" train --task charlm --scheme rope --experiment experiments/charlm-quick.json --set steps=100000 \
  --runs-dir "$TMP/twice" --quiet >/dev/null 2>&1 &
victim=$!
for _ in $(seq 1 200); do [[ -e "$TMP/twice/charlm/rope/seed0.lock" ]] && break; sleep 0.05; done
sleep 0.5
kill -TERM $victim
sleep 0.02
kill -TERM $victim
wait $victim
rc=$?
left=$(find "$TMP/twice" \( -name '*.tmp.*' -o -name '*.lock' -o -name checkpoint.json \) 2>/dev/null | wc -l)
if [[ $rc -eq 143 && $left -eq 0 ]]; then pass=$((pass + 1)); else
  echo "FAIL [a second SIGTERM] rc=$rc, left behind:"; find "$TMP/twice"; fail=$((fail + 1)); fi

# Issue 23's hostile inputs: each was a real defect (exit 0 with a wrong reading, a crash, or a
# silent default) and now ends in one line and its documented code.
"$BIN" train --scheme rope --steps 3 --runs-dir "$TMP/i23" --quiet >/dev/null 2>&1 || { echo "FAIL: cannot train rope"; fail=$((fail + 1)); }
"$BIN" train --task filings --scheme none --steps 3 --runs-dir "$TMP/i23" --quiet >/dev/null 2>&1 || { echo "FAIL: cannot train filings"; fail=$((fail + 1)); }
RP="$TMP/i23/cue/rope/seed0/checkpoint.json"
FP="$TMP/i23/filings/none/seed0/checkpoint.json"
edit_json "$RP" "$TMP/v64.json" "c['version'] = 4294967297"
edit_json "$RP" "$TMP/rope-rows.json" "c['scheme']['learned_rows'] = -5"
edit_json "$RP" "$TMP/rope-dmodel.json" "c['scheme']['d_head'] = 4294967312"
edit_json "$FP" "$TMP/f-as-cue.json" "c['task'] = 'cue'"
edit_json "$FP" "$TMP/f-alpha2.json" "c['model']['alphabet'] = 2"
edit_json "$CQ" "$TMP/ft-old.json" "c['frequency_plan'] = {'map': 'pi', 'train_length': 128, 'read_length': -512}"
expect_code 3 "checkpoint version past 32 bits" "format version 4294967297" eval --checkpoint "$TMP/v64.json" --lengths 32 --out "$TMP/out.json" --quiet
expect_code 3 "a setting another scheme uses" "scheme rope has no setting 'learned_rows'" eval --checkpoint "$TMP/rope-rows.json" --lengths 32 --out "$TMP/out.json" --quiet
expect_code 3 "scheme d_head past 32 bits" "scheme.d_head must be an integer in [1, 1024] (got 4294967312)" eval --checkpoint "$TMP/rope-dmodel.json" --lengths 32 --out "$TMP/out.json" --quiet
expect_code 3 "a filings head read as cue" "without a query token" eval --checkpoint "$TMP/f-as-cue.json" --lengths 32 --out "$TMP/out.json" --quiet
expect_code 3 "a filings head with alphabet 2" "its head reads 2 symbols but these documents use 8" eval --task filings --checkpoint "$TMP/f-alpha2.json" --out "$TMP/out.json" --quiet
expect_code 3 "a cue head read as filings" "not filings" eval --task filings --checkpoint "$RP" --out "$TMP/out.json" --quiet
"$BIN" train --scheme alibi --steps 3 --set alphabet=4 --runs-dir "$TMP/cue4" --quiet >/dev/null 2>&1
expect_code 3 "horizon_cue_runs of another alphabet" "reads 4 symbols but the filings documents use 8" eval --task filings --checkpoint "$FP" --set horizon_cue_runs="$TMP/cue4" --out "$TMP/out.json" --quiet
expect_code 3 "a fine-tuned checkpoint with read_length -512" "frequency_plan.read_length must be an integer in [2, 2048]" eval --task charlm --checkpoint "$TMP/ft-old.json" --lengths 128 --out "$TMP/out.json" --quiet
# a saved training state is validated like a checkpoint (it is the one of the SIGTERM case above)
ST="$TMP/killed/cue/rope/seed0.state.json"
if [[ -f "$ST" ]]; then
  cp "$ST" "$TMP/state.orig"
  RS="train --scheme rope --steps 200000 --runs-dir $TMP/killed --resume --quiet"
  edit_json "$TMP/state.orig" "$ST" "c['step'] = 300000; c['adam_steps'] = 300000; c['loop']['metrics'] = []"
  expect_code 3 "a state past the run's steps" "step must be an integer in [1, 199999]" $RS
  edit_json "$TMP/state.orig" "$ST" "c['loop']['metrics'] = 'x'"
  expect_code 3 "a state with metrics not a list" "loop.metrics must be a list" $RS
  edit_json "$TMP/state.orig" "$ST" "c['loop']['metrics'] = [{'step': 'x'}]"
  expect_code 3 "a state with a foreign metrics line" "loop.metrics holds" $RS
  edit_json "$TMP/state.orig" "$ST" "c['step'] = 4294967297; c['adam_steps'] = 4294967297"
  expect_code 3 "a state step past 32 bits" "got 4294967297" $RS
  rm -f "$ST"
else
  echo "FAIL [training states]: no state from the SIGTERM case"; fail=$((fail + 1))
fi
# a hybrid with a tupe layer trains and is read (its table has train_length rows)
"$BIN" train --task charlm --experiment experiments/charlm-quick.json --scheme hybrid --set hybrid_layers=tupe,none \
  --steps 2 --runs-dir "$TMP/hyb" --quiet >/dev/null 2>"$TMP/stderr" &&
  "$BIN" eval --task charlm --checkpoint "$TMP/hyb/charlm/hybrid/seed0/checkpoint.json" --lengths 64 \
    --set val_windows=4 --out "$TMP/hyb.json" --quiet >/dev/null 2>>"$TMP/stderr"
if [[ $? -eq 0 && -f "$TMP/hyb.json" ]]; then pass=$((pass + 1)); rm -f "$TMP/hyb.json"; else
  echo "FAIL [a tupe,none hybrid trains and is read]"; cat "$TMP/stderr"; fail=$((fail + 1)); fi
# char-LM readings that do not fit the corpus are refused before any work
head -c 60000 data/timemachine.txt >"$TMP/60k.txt"
expect_code 4 "charlm read past a short corpus" "validation windows" eval --task charlm --checkpoint "$CQ" --corpus "$TMP/60k.txt" --out "$TMP/out.json" --quiet
expect_code 4 "charlm val_start past the corpus" "validation windows from start 173000" eval --task charlm --checkpoint "$CQ" --set val_start=173000 --out "$TMP/out.json" --quiet
expect_code 4 "charlm val_windows past the corpus" "100000 validation windows" eval --task charlm --checkpoint "$CQ" --set val_windows=100000 --out "$TMP/out.json" --quiet
# compare refuses a re-read that no longer gives the recorded number
"$BIN" run experiments/tournament.json --set schemes=rope,alibi --set seeds=0,1 --set steps=5 --set test_sequences=64 \
  --set eval_lengths=32,64 --set maps= --set reference= --set analyze=false --set out_dir="$TMP/cmp" \
  --set runs_dir="$TMP/cmp/runs" --quiet >/dev/null 2>&1
edit_json "$TMP/cmp/results.json" "$TMP/cmp-edited.json" "c['rows'][[r['scheme'] for r in c['rows']].index('rope')]['seeds'][0]['accuracy'][1] = 0.123456"
expect_code 4 "compare after a checkpoint changed" "but these results recorded 0.1235" compare "$TMP/cmp-edited.json" rope alibi --length 64
# sizes that cannot fit are refused at once
expect_code 2 "a char LM that cannot fit" "GiB of memory" train --task charlm --scheme rope --set d_model=1024 --set n_layers=16 --set n_heads=64 --set batch_size=4096 --runs-dir "$TMP/big" --quiet
if ! ldd "$BIN" 2>/dev/null | grep -q libasan; then  # ASan reserves terabytes of address space: no ulimit -v there
  ( ulimit -v 8000000; expect_code 2 "the attack's char LM under an 8 GB limit" "GiB of memory" train --task charlm --scheme rope --set d_model=1024 --set n_layers=16 --set n_heads=64 --runs-dir "$TMP/big" --quiet
    echo "$pass $fail" >"$TMP/sub.counts" )
  read -r pass fail <"$TMP/sub.counts"
fi
expect_code 2 "census of 2^31 dimensions" "--d-head must be even and in [4, 131072]" census --d-head 2147483646
# one run read twice would count its seed twice
expect_code 2 "eval the same checkpoint twice" "is given twice" eval --checkpoint "$RP" --checkpoint "$RP" --lengths 32 --out "$TMP/out.json" --quiet
mkdir -p "$TMP/dup" && cp -r "$TMP/i23/cue" "$TMP/dup/" && cp -r "$TMP/dup/cue/rope/seed0" "$TMP/dup/cue/rope/seed5"
expect_code 2 "a run directory copied to seed5" "are the same run" eval --runs-dir "$TMP/dup" --lengths 32 --out "$TMP/out.json" --quiet
# temporaries: a dead process's is skipped (and removed by the next training of that run); a live one's is waited for
true & dead=$!; wait $dead
mkdir -p "$TMP/dup/cue/rope/seed5.tmp.$dead.1" && rm -r "$TMP/dup/cue/rope/seed5"
"$BIN" eval --runs-dir "$TMP/dup" --lengths 32 --out "$TMP/stale.json" --quiet >/dev/null 2>"$TMP/stderr"
rc=$?
"$BIN" train --scheme rope --seed 5 --steps 3 --runs-dir "$TMP/dup" --quiet >/dev/null 2>>"$TMP/stderr"
if [[ $rc -eq 0 && ! -e "$TMP/dup/cue/rope/seed5.tmp.$dead.1" && -f "$TMP/dup/cue/rope/seed5/checkpoint.json" ]]; then
  pass=$((pass + 1)); else echo "FAIL [a stale temporary] rc=$rc"; cat "$TMP/stderr"; fail=$((fail + 1)); fi
rm -f "$TMP/stale.json"
sleep 30 & live=$!
mkdir -p "$TMP/dup/cue/rope/seed7.tmp.$live.1"
expect_code 2 "a live temporary" "is being written by pe-bench process $live" eval --runs-dir "$TMP/dup" --lengths 32 --out "$TMP/out.json" --quiet
kill $live 2>/dev/null; wait $live 2>/dev/null; rm -r "$TMP/dup/cue/rope/seed7.tmp.$live.1"
# --resume keeps the runs when only a reading key changed, and an output set never mixes two runs
"$BIN" run experiments/tournament.json --set schemes=rope --set seeds=0 --set steps=5 --set test_sequences=64 \
  --set eval_lengths=32,64 --set maps= --set reference= --set analyze=true --set out_dir="$TMP/set" \
  --set runs_dir="$TMP/set/runs" --quiet >/dev/null 2>"$TMP/stderr"
"$BIN" run experiments/tournament.json --set schemes=rope --set seeds=0 --set steps=5 --set test_sequences=32 \
  --set eval_lengths=32,128 --set maps=pi --set reference= --set analyze=false --set out_dir="$TMP/set" \
  --set runs_dir="$TMP/set/runs" --resume --quiet >"$TMP/stdout" 2>>"$TMP/stderr"
if [[ $? -eq 0 ]] && grep -q "kept 1 complete run" "$TMP/stdout" && [[ ! -e "$TMP/set/geometry.json" ]] &&
   ! compgen -G "$TMP/set/.output-set*" >/dev/null; then pass=$((pass + 1)); else
  echo "FAIL [--resume keeps runs across reading keys; an output set is whole]"; cat "$TMP/stdout" "$TMP/stderr"; ls -a "$TMP/set"; fail=$((fail + 1)); fi
# silent defaults and underflow
expect_code 2 "adam_eps that underflows a float" "key 'adam_eps' must be a finite number in [1e-30, 1]" train --scheme rope --set adam_eps=1e-300 $R
expect_code 2 "an empty --runs-dir" "--runs-dir must not be empty" train --scheme rope --runs-dir ""
expect_code 2 "an empty eval --runs-dir" "--runs-dir must not be empty" eval --runs-dir "" --out "$TMP/out.json" --quiet

# one name per concept: an old spelling fails with the new one
expect_code 2 "finetune --train-length (renamed)" "finetune --train-length was renamed --finetune-length" finetune --checkpoint "$CQ" --train-length 512 --quiet
expect_code 2 "finetune --steps (renamed)" "finetune --steps was renamed --finetune-steps" finetune --checkpoint "$CQ" --steps 3 --quiet
expect_code 2 "sample --length (renamed)" "sample --length was renamed --context" sample --checkpoint "$CQ" --length 64
expect_code 2 "sample --seed (renamed)" "sample --seed was renamed --sample-seed" sample --checkpoint "$CQ" --seed 3
expect_code 2 "corpus --seed (renamed)" "corpus --seed was renamed --corpus-seed" corpus filings --seed 3
expect_code 2 "the key rescale (renamed)" "key 'rescale' was renamed 'maps'" train --scheme rope --set rescale=pi $R
# the passkey task
expect_code 2 "a passkey length too short" "length 9 cannot hold a passkey of 4 symbols" train --task passkey --scheme rope --set train_length=9 --runs-dir "$TMP/pk"
expect_code 2 "a passkey alphabet smaller than the key" "passkey_alphabet" train --task passkey --scheme rope --set passkey_symbols=6 --set passkey_alphabet=5 --runs-dir "$TMP/pk"
expect_code 2 "another task's key for passkey" "key 'alphabet' does not apply to the passkey task" train --task passkey --scheme rope --set alphabet=4 --runs-dir "$TMP/pk"
expect_code 2 "a passkey key for the cue task" "key 'passkey_symbols' does not apply to the cue task" train --scheme rope --set passkey_symbols=3 $R
"$BIN" train --task passkey --scheme alibi --set steps=5 --set d_model=16 --runs-dir "$TMP/pk" --quiet >/dev/null 2>&1
expect_code 2 "analyze a task without analyses" "the passkey task has no analyses of trained models" analyze --task passkey --runs-dir "$TMP/pk"
expect_code 3 "a cue checkpoint read as passkey" "not passkey" eval --task passkey --checkpoint "$CP" --out "$TMP/out.json" --quiet
expect_code 2 "a passkey read at a length that cannot hold it" "key 'eval_lengths': length 8 cannot hold" eval --task passkey --runs-dir "$TMP/pk" --lengths 8 --out "$TMP/out.json" --quiet
# rope_scaling configs, maps with parameters, cached decoding, analyze attention (issue 25)
expect_code 2 "an unknown rope_type" "rope_type 'zoom' is not one pe-bench reads" census --rope-scaling '{"rope_type":"zoom","factor":2}'
expect_code 2 "an unknown rope_scaling field" "beta is not a field of rope_type 'yarn'" census --rope-scaling '{"rope_type":"yarn","factor":2,"beta":3}'
expect_code 2 "a missing required field" "low_freq_factor is required for rope_type 'llama3'" census --rope-scaling '{"rope_type":"llama3","factor":8,"original_max_position_embeddings":64,"high_freq_factor":4}'
expect_code 2 "a factor below 1" "factor must be at least 1" eval --task charlm --checkpoint "$CQ" --rope-scaling '{"rope_type":"yarn","factor":0.5}' --out "$TMP/out.json" --quiet
expect_code 2 "a config that is not JSON" "is not valid JSON" census --rope-scaling '{"rope_type":'
expect_code 2 "a config file that is absent" "cannot read '$TMP/none.json'" census --rope-scaling "$TMP/none.json"
expect_code 2 "census flags against the config" "--d-head 32 but the config's head_dim is 64" census --d-head 32 --rope-scaling '{"head_dim":64,"rope_scaling":{"rope_type":"linear","factor":2}}'
expect_code 2 "a config's base against the model's" "rope_theta is 500000 but the model's base is 10000" eval --task charlm --checkpoint "$CQ" --rope-scaling '{"rope_theta":500000,"max_position_embeddings":128,"rope_scaling":{"rope_type":"dynamic","factor":2}}' --out "$TMP/out.json" --quiet
expect_code 2 "a map parameter out of range" "yarn-hf: factor = 0.5 is out of range" eval --task charlm --checkpoint "$CQ" --maps yarn-hf:factor=0.5 --out "$TMP/out.json" --quiet
expect_code 2 "an unknown map parameter" "unknown parameter 'beta' of yarn-hf" sample --checkpoint "$CQ" --map yarn-hf:beta=3
expect_code 2 "a bad rope_scaling key" "rope_scaling: factor is required" train --task charlm --scheme rope --set rope_scaling='{"rope_type":"yarn"}' --runs-dir "$TMP/cl"
expect_code 2 "decode neither full nor cached" "decode: 'fast' is not full or cached" eval --task charlm --checkpoint "$CQ" --decode fast --out "$TMP/out.json" --quiet
expect_code 2 "decode for a task that does not read it" "--decode" eval --task cue --checkpoint "$CP" --decode cached --out "$TMP/out.json" --quiet
expect_code 2 "sampling past a learned table" "has positions 0..511 only" sample --checkpoint results/charlm-quick/runs/charlm/learned/seed0/checkpoint.json --chars 600
expect_code 2 "a map for a scheme without frequencies" "alibi has no frequencies" sample --checkpoint results/charlm-quick/runs/charlm/alibi/seed0/checkpoint.json --map pi
expect_code 2 "analyze attention of a filings head" "the filings task has no attention maps to read" analyze attention --checkpoint results/filings/runs/filings/rope/seed0/checkpoint.json --out "$TMP/out.json"
expect_code 2 "analyze attention past a learned table" "no checkpoint can read any of --lengths" analyze attention --checkpoint "$CP" --lengths 64,128 --out "$TMP/out.json"
# a window order read from a file (issue 26)
expect_code 2 "a train_order file that is absent" "train_order: cannot read $TMP/none.json" train --task charlm --scheme rope --set train_order="$TMP/none.json" --runs-dir "$TMP/cl"
echo '[[1,2],[3]]' > "$TMP/order.json"
expect_code 2 "a train_order shorter than the run" "holds 2 steps of window starts but the run takes 3000" train --task charlm --scheme rope --set train_order="$TMP/order.json" --runs-dir "$TMP/cl"
[[ ! -e "$TMP/out.json" ]] && pass=$((pass + 1)) || { echo "FAIL [no output after the errors above]"; fail=$((fail + 1)); }

# Cases kept beside this file, one file per surface (tests/cli_errors.d/*.sh): each is sourced here and
# uses $BIN, $TMP, $CP (a cue checkpoint), $CQ (a char-LM checkpoint), expect_error and expect_code.
for part in "$(dirname "$0")"/cli_errors.d/*.sh; do
  [[ -e "$part" ]] && source "$part"
done

echo "cli_errors: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
