# pe-bench export --check --coordinates (docs/interop.md): a batch mode the model cannot be read under is
# refused with one line (exit 2) and no file of the set written. Sourced by tests/cli_errors.sh (uses $BIN,
# $TMP, expect_code).
CX=results/charlm-quick/runs/charlm/rope/seed0/checkpoint.json
CL=results/charlm-quick/runs/charlm/learned/seed0/checkpoint.json
CH=results/tournament/runs/cue/rope/seed0/checkpoint.json
expect_code 2 "export --coordinates without --check" "--coordinates describes the check batch: add --check" export --checkpoint "$CX" --out "$TMP/coord" --coordinates packed-reset
expect_code 2 "export --coordinates of no mode" "--coordinates packed: not a batch mode (one of causal, bidirectional," export --checkpoint "$CX" --out "$TMP/coord" --check --coordinates packed
expect_code 2 "export --coordinates bidirectional of a causal char LM" "--coordinates bidirectional: this model was made for causal visibility" export --checkpoint "$CX" --out "$TMP/coord" --check --coordinates bidirectional
expect_code 2 "export --coordinates prefix of a causal char LM" "--coordinates prefix: this model was made for causal visibility" export --checkpoint "$CX" --out "$TMP/coord" --check --coordinates prefix
expect_code 2 "export --coordinates of the cue head" "--coordinates pad-left-content: the cue head's check batch takes no per-token positions" export --checkpoint "$CH" --out "$TMP/coord" --check --coordinates pad-left-content
expect_code 2 "export --coordinates of the filings head" "--coordinates offset: the filings head's check batch takes no per-token positions" export --checkpoint results/filings/runs/filings/rope/seed0/checkpoint.json --out "$TMP/coord" --check --coordinates offset
expect_code 2 "export --coordinates query-rows of the filings head" "--coordinates query-rows: the filings head answers at every position, not at one row per sequence" export --checkpoint results/filings/runs/filings/rope/seed0/checkpoint.json --out "$TMP/coord" --check --coordinates query-rows
expect_code 2 "export --coordinates query-rows of a char LM" "--coordinates query-rows: a block stack answers at every row" export --checkpoint "$CX" --out "$TMP/coord" --check --coordinates query-rows
expect_code 2 "export --coordinates offset past a learned table" "--coordinates offset at --length 510: position 517 is past the learned model's table (positions 0 .. 511); lower --length to 504" export --checkpoint "$CL" --out "$TMP/coord" --check --coordinates offset --length 510
[[ ! -e "$TMP/coord" ]] && pass=$((pass + 1)) || { echo "FAIL [export --coordinates]: a refused export left $TMP/coord"; fail=$((fail + 1)); }
# export --rope-layout (docs/interop.md): a layout that is not one, and split-half of a model with no RoPE pairs
expect_code 2 "export --rope-layout of no layout" "--rope-layout is 'rotate_half': choose interleaved" export --checkpoint "$CX" --out "$TMP/coord" --rope-layout rotate_half
expect_code 2 "export --rope-layout split-half of an ALiBi char LM" "--rope-layout split-half: the model's scheme 'alibi' turns no queries and keys" export --checkpoint results/charlm-quick/runs/charlm/alibi/seed0/checkpoint.json --out "$TMP/coord" --rope-layout split-half
