# Sourced by tests/cli_errors.sh (issue 46, section 4): meaningless values and sizes past memory. Each
# case ends in one line naming the option and exit 2; every one of them ran (or died in bad_alloc,
# exit 70) before. Uses $BIN, $TMP, $CP, $CQ and expect_code from cli_errors.sh.

# A size past memory is refused before any work, saying what it would take. `ulimit -v` caps the
# address space this check reads (core/memory.h), so the case does not depend on the machine's memory:
# a 1,000,000-character window of the char LM (2 blocks of 128) needs about 3 GiB of key/value cache.
# (The timeout bounds a binary without the checks: the census below would compute for hours.)
cat >"$TMP/limited-bin" <<EOF
#!/usr/bin/env bash
ulimit -v 2097152
exec timeout 120 "$BIN" "\$@"
EOF
chmod +x "$TMP/limited-bin"
REAL_BIN=$BIN
BIN="$TMP/limited-bin"
# AddressSanitizer reserves terabytes of shadow address space at start, so no ASan build runs under
# `ulimit -v`: the sanitizer run (tests/sanitizers.sh sets ASAN_OPTIONS) leaves these three cases to
# the plain build's run of this file.
if [[ -n "${ASAN_OPTIONS:-}" ]]; then
  echo "note: the ulimit -v memory cases are left to the build without sanitizers"
else
expect_code 2 "sample --context past memory" "--context 1000000: a key/value cache of 1000000 positions needs about" sample --checkpoint "$CQ" --context 1000000 --chars 5
expect_code 2 "sample --context past memory: the advice" "lower --context" sample --checkpoint "$CQ" --context 1000000 --chars 5
expect_code 2 "census planes x kappas x maps past memory" "a census of 4096 planes at 3000 kappas through 4 maps needs about" census --d-head 8192 --kappa "$(python3 -c 'print(",".join(str(1 + i / 1000) for i in range(3000)))')"
fi
BIN=$REAL_BIN
# --context is bounded (2^24): 10^8 used to end in bad_alloc (exit 70)
expect_code 2 "sample --context 10^8" "--context: Value 100000000 not in range 1 to 16777216" sample --checkpoint "$CQ" --context 100000000
expect_code 2 "sample --context 0 (was: the training length)" "--context: Value 0 not in range 1 to 16777216" sample --checkpoint "$CQ" --context 0
expect_code 2 "sample --context -5 (was: the training length)" "--context: Value -5 not in range 1 to 16777216" sample --checkpoint "$CQ" --context=-5

# Meaningless numbers: each was accepted silently.
expect_code 2 "census --base inf" "--base inf: not a finite number" census --base inf
expect_code 2 "census --base 1e400 (inf after parsing)" "--base 1e400: not a finite number" census --base 1e400
expect_code 2 "census --base past the bound base=B has" "--base must be a number greater than 1 and at most 1e+12 (got 10000000000000)" census --base 1e13
expect_code 2 "the map base=B: the same rule" "map 'base=1e13': base=B needs a number B > 1 and at most 1e+12" census --maps base=1e13
expect_code 2 "census --rope-scaling with --base inf" "--base inf: not a finite number" census --rope-scaling '{"rope_type":"linear","factor":2}' --base inf
expect_code 2 "a config's rope_theta: the same rule" "rope_theta must be a number greater than 1 and at most 1e+12" census --rope-scaling '{"max_position_embeddings":64,"rope_theta":1e13}'
expect_code 2 "census --kappa inf" "--kappa: 'inf' is not a positive number" census --kappa 2,inf
expect_code 2 "census --kappa with an empty part" "--kappa: '' is not a positive number" census --kappa 2,
expect_code 2 "sample --temperature nan" "--temperature nan: not a finite number" sample --checkpoint "$CQ" --temperature nan --chars 5
expect_code 2 "finetune --finetune-lr nan" "--finetune-lr nan: not a finite number" finetune --checkpoint "$CQ" --finetune-lr nan --quiet
expect_code 2 "sample --sample-seed -1 (was 2^64 - 1)" "--sample-seed: Value -1 not in range 0 to 2147483647" sample --checkpoint "$CQ" --sample-seed=-1 --temperature 1 --chars 5
expect_code 2 "sample --sample-seed 2^64 (was 2^64 - 1)" "--sample-seed 18446744073709551616: out of range" sample --checkpoint "$CQ" --sample-seed 18446744073709551616 --temperature 1 --chars 5
expect_code 2 "corpus filings --corpus-seed 2^53: the key corpus_seed's bound" "--corpus-seed: Value 9007199254740992 not in range 0 to 2147483647" corpus filings --corpus-seed 9007199254740992

# An empty value is an error naming the option, never "not given" (one check for every subcommand,
# the tasks' tools and export too: harness/cli_options.h check_option_values).
expect_code 2 "census --kappa ''" "--kappa must not be empty" census --kappa ''
expect_code 2 "census --rope-scaling '' (was: the plain census)" "--rope-scaling must not be empty" census --rope-scaling ''
expect_code 2 "eval --decode '' (was: the default)" "--decode must not be empty" eval --task charlm --checkpoint "$CQ" --decode '' --lengths 128 --out "$TMP/out.json" --quiet
expect_code 2 "sample --prompt ''" "--prompt must not be empty" sample --checkpoint "$CQ" --prompt ''
expect_code 2 "sample --map ''" "--map must not be empty" sample --checkpoint "$CQ" --map ''
expect_code 2 "finetune --maps ''" "--maps must not be empty" finetune --checkpoint "$CQ" --maps '' --quiet
expect_code 2 "train --set ''" "--set must not be empty" train --scheme rope --set '' --runs-dir "$TMP/v-runs" --quiet
expect_code 2 "eval --markdown ''" "--markdown must not be empty" eval --checkpoint "$CP" --markdown '' --lengths 32 --out "$TMP/out.json" --quiet
expect_code 2 "corpus filings --out ''" "--out must not be empty" corpus filings --out ''
expect_code 2 "export --out '' (was: wrote /model.safetensors)" "--out must not be empty" export --checkpoint "$CP" --out ''
expect_code 2 "run '' (a positional)" "experiment must not be empty" run ''
[[ ! -e "$TMP/v-runs" && ! -e /model.safetensors ]] && pass=$((pass + 1)) || { echo "FAIL [an empty value wrote something]"; fail=$((fail + 1)); }

# scripts/plot.py: an empty --only once redrew every figure into results/figures/
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  for args in "--only=" "--only=," "--out=" "--charlm="; do
    /usr/bin/python3 scripts/plot.py --out "$TMP/figures" "$args" >"$TMP/stdout" 2>"$TMP/stderr" </dev/null
    rc=$?
    if [[ $rc -eq 2 && $(wc -l <"$TMP/stderr") -eq 1 && ! -e "$TMP/figures" ]] && grep -q "^plot.py: --" "$TMP/stderr"; then
      pass=$((pass + 1))
    else
      echo "FAIL [plot.py $args]: exit $rc"; cat "$TMP/stderr"; fail=$((fail + 1))
    fi
  done
else
  echo "note: plot.py's empty options not checked (no matplotlib here)"
fi

# longrope in Transformers v5's layout: N inside rope_parameters, no factor. Transformers' factor is
# max_position_embeddings / N = 256 / 32 and its attention factor sqrt(1 + ln 8 / ln 32) = 1.2649 (it
# read 1.0: the factor came from a top-level original length only). The v4 layout gives the same.
LISTS='"short_factor":[1,1,1,1,1,1,1,1],"long_factor":[2,2,2,2,2,2,2,2]'
V5='{"head_dim":16,"max_position_embeddings":256,"rope_parameters":{"rope_type":"longrope","rope_theta":10000,"original_max_position_embeddings":32,'"$LISTS"'}}'
V4='{"head_dim":16,"max_position_embeddings":256,"rope_theta":10000,"original_max_position_embeddings":32,"rope_scaling":{"rope_type":"longrope",'"$LISTS"'}}'
for layout in V5 V4; do
  "$BIN" census --rope-scaling "${!layout}" --json >"$TMP/census.json" 2>"$TMP/stderr"
  if [[ $? -eq 0 ]] && python3 -c 'import json,math,sys; a=json.load(open(sys.argv[1]))["attention_factor"]; assert abs(a - math.sqrt(1 + math.log(8) / math.log(32))) < 1e-12 and abs(a - 1.2649) < 1e-4, a' "$TMP/census.json"; then
    pass=$((pass + 1))
  else
    echo "FAIL [longrope $layout without a factor: attention factor]"; cat "$TMP/stderr"; fail=$((fail + 1))
  fi
done

# issue 49's keys: packing policies, document lengths, the direction task's rule and lengths, compare --against
expect_error "packing policy" "key 'packing': 'isolate' is not a packing policy" train --task passkey --scheme rope --set packing=isolate --runs-dir "$TMP/r2" --quiet
expect_error "packed document too long" "key 'doc_min_length' (80) must lie in [10, train_length 64]" train --task passkey --scheme rope --set packing=packed --set doc_min_length=80 --runs-dir "$TMP/r2" --quiet
expect_error "document lengths on the char LM" "its documents are the paragraphs of its text" train --task charlm --scheme rope --set doc_min_length=20 --runs-dir "$TMP/r2" --quiet
expect_error "char LM packing policy" "key 'packing': 'isolate' is not a packing policy" train --task charlm --scheme rope --set packing=isolate --runs-dir "$TMP/r2" --quiet
expect_error "char LM read layout" "read_layouts: 'sideways' is not a layout" eval --task charlm --checkpoint results/charlm-quick/runs/charlm/rope/seed0/checkpoint.json --set read_layouts=sideways --out "$TMP/e.json"
expect_error "char LM isolation with a segment memory" "packing: 'isolated-reset' lays paragraphs into windows of its own, but mem_len" train --task charlm --scheme rope --set packing=isolated-reset --set mem_len=64 --runs-dir "$TMP/r2" --quiet
WANT_RC=4 expect_error "char LM validation stride past the text" "lower val_start, val_windows or val_stride" eval --task charlm --checkpoint results/charlm-quick/runs/charlm/rope/seed0/checkpoint.json --set val_stride=5000 --set val_windows=100 --out "$TMP/e.json"
# randomised positions on the char LM: a reading that lays out positions of its own is refused by key
expect_error "char LM random positions with a segment memory" "key 'random_positions' (2048) and key 'mem_len'" train --task charlm --scheme rope --set random_positions=2048 --set mem_len=64 --runs-dir "$TMP/r2" --quiet
expect_error "char LM random positions read cached" "key 'random_positions' (2048) and key 'decode'" train --task charlm --scheme rope --set random_positions=2048 --set decode=cached --runs-dir "$TMP/r2" --quiet
expect_error "char LM random positions shorter than a length read" "key 'random_positions' (256) is shorter than eval_lengths' 512" train --task charlm --scheme rope --set random_positions=256 --runs-dir "$TMP/r2" --quiet
# randomised positions on the cue task: a range shorter than a length read, a learned table shorter than the
# range, and readings that would mix draws or read past them
expect_error "cue random positions shorter than a length read" "key 'random_positions' (128) is shorter than eval_lengths' 256" train --task cue --scheme rope --set random_positions=128 --runs-dir "$TMP/r2" --quiet
expect_error "cue learned table shorter than random positions" "learned: the table has 32 rows, but random_positions 256 draws positions up to 255 (set learned_rows to 256)" train --task cue --scheme learned --set random_positions=256 --runs-dir "$TMP/r2" --quiet
expect_error "cue heads trained with and without random positions" "was trained with random_positions 0 but" eval --checkpoint results/random-positions-tournament-quick/runs/cue/rope/seed0/checkpoint.json --checkpoint results/tournament/runs/cue/rope/seed0/checkpoint.json --out "$TMP/out.json"
expect_error "cue random positions read past their range" "which cannot hold length 512; read at 256 or shorter" eval --checkpoint results/random-positions-tournament-quick/runs/cue/rope/seed0/checkpoint.json --lengths 32,512 --out "$TMP/out.json"
# the position probe (analyze probe): a task without one, a length past a learned table, too many windows
expect_error "probe on passkey" "the passkey task has no position probe" analyze probe --checkpoint results/passkey-quick/runs/passkey/rope/seed0/checkpoint.json --out "$TMP/out.json"
expect_error "probe past a learned table" "the model has positions for only 512 tokens; give --length 512 or less" analyze probe --checkpoint results/charlm-quick/runs/charlm/learned/seed0/checkpoint.json --length 1024 --out "$TMP/out.json"
WANT_RC=4 expect_error "probe windows past the text" "give fewer --windows" analyze probe --checkpoint results/charlm-quick/runs/charlm/rope/seed0/checkpoint.json --windows 5000 --out "$TMP/out.json"
expect_error "direction rule" "key 'direction_rule': \"after\" is not before or nearest" train --task direction --scheme rope --set direction_rule=after --runs-dir "$TMP/r2" --quiet
expect_error "direction length" "key 'eval_lengths': the direction task needs at least 5 tokens" train --task direction --scheme rope --set eval_lengths=4 --runs-dir "$TMP/r2" --quiet
expect_error "compare across two test sets" "were not read alike (lengths" compare results/packing-quick/results.json rope rope --against results/passkey-quick/results.json --length 64
expect_error "compare --against an unknown char LM reading" "no reader 'rope [sideways]' in results/charlm-quick/results.json" compare results/charlm-quick/results.json "rope [sideways]" rope --against results/charlm-quick/results.json --length 128
expect_error "compare char LMs read on other text" "were not read alike (lengths" compare results/charlm-quick/results.json rope rope --against results/packing-charlm-quick/results.json --length 128
# a char LM reading across two files pairs its seeds (one row per seed)
if "$BIN" compare results/charlm-quick/results.json rope rope --against results/charlm-quick/results.json --length 128 >"$TMP/stdout" 2>"$TMP/stderr" &&
   grep -q "rope@charlm-quick-1 − rope@charlm-quick-2 at 128: validation perplexity, 1 seed" "$TMP/stdout"; then pass=$((pass + 1)); else
  echo "FAIL [char LM compare --against]"; cat "$TMP/stdout" "$TMP/stderr"; fail=$((fail + 1)); fi
# the probes (docs/tasks.md, "Probes"): their shapes are checked by key
expect_error "needles not distinct" "key 'needle_alphabet' (4) must be at least the largest of needle_counts (8)" train --task needles --scheme rope --set needle_alphabet=4 --runs-dir "$TMP/r2" --quiet
expect_error "probe length" "key 'train_length': length 12 cannot hold every cell of the distractors probe (at least 49)" train --task distractors --scheme rope --set train_length=12 --runs-dir "$TMP/r2" --quiet
expect_error "code variables" "key 'code_variables' (3) must exceed the longest of chain_lengths (3)" train --task declarations --scheme rope --set code_variables=3 --runs-dir "$TMP/r2" --quiet
expect_error "probe key on passkey" "key 'order_alphabet' does not apply to the passkey task" train --task passkey --scheme rope --set order_alphabet=4 --runs-dir "$TMP/r2" --quiet
# the exercises (docs/exercises.md): an unknown id names the known ones; an out-dir that cannot be made writes nothing
expect_error "unknown exercise" "no exercise '99': pe-bench answers 1.3, 2, 3, 4, 7, 13.1, shift" exercise 99 --out-dir "$TMP/ex"
: >"$TMP/ex-file"
WANT_RC=5 expect_error "exercise out-dir a file" "cannot create directory $TMP/ex-file" exercise 3 --out-dir "$TMP/ex-file"
