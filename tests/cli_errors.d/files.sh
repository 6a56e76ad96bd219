# Sourced by tests/cli_errors.sh (issue 46, sections 1 and 2): a results folder cannot touch anything
# outside itself; every file a command reads goes through the same checks (duplicate keys, numbers past
# a double, sizes, directories); export and import read and write only checkpoints a reader accepts.
# Uses $BIN, $TMP, $CP, $CQ, expect_code and edit_json from cli_errors.sh.

TINY=(--set schemes=rope --set seeds=0 --set steps=2 --set test_sequences=16 --set eval_lengths=32 --set maps=
      --set analyze=false --set runs_dir="$TMP/h-runs" --quiet)
victim_ok() {  # victim_ok "description" FILE: the file outside the folder is still there, unchanged
  if [[ "$(cat "$2" 2>/dev/null)" == precious ]]; then pass=$((pass + 1)); else echo "FAIL [$1]: $2 was touched"; fail=$((fail + 1)); fi
}
hostile_manifest() {  # hostile_manifest DIR LINE...: DIR holds a pending output set with these manifest lines
  rm -rf "$1"
  mkdir -p "$1/.output-set.pending"
  shift_dir=$1
  shift
  printf '%s\n' "$@" >"$shift_dir/.output-set.pending/MANIFEST"
}
mkdir -p "$TMP/h/victim"
echo precious >"$TMP/h/victim/data.txt"

# 1. a pending set's manifest names only the folder's own plain files
hostile_manifest "$TMP/h/out" "remove ../victim/data.txt"
expect_code 5 "a manifest that removes a file outside its folder" "MANIFEST line 1 (\"remove ../victim/data.txt\"): not a plain file name" run experiments/tournament.json --set out_dir="$TMP/h/out" "${TINY[@]}"
victim_ok "remove ../victim" "$TMP/h/victim/data.txt"
hostile_manifest "$TMP/h/out" "remove $TMP/h/victim/data.txt"
expect_code 5 "a manifest that removes an absolute path" "not a plain file name" run experiments/tournament.json --set out_dir="$TMP/h/out" "${TINY[@]}"
victim_ok "remove /abs" "$TMP/h/victim/data.txt"
hostile_manifest "$TMP/h/out" "put ../victim/data.txt"
expect_code 5 "a manifest that moves a file out" "not a plain file name" run experiments/tournament.json --set out_dir="$TMP/h/out" "${TINY[@]}"
victim_ok "put ../" "$TMP/h/victim/data.txt"
hostile_manifest "$TMP/h/out" "put results.json" "remove notes.txt"
echo mine >"$TMP/h/out/notes.txt"
expect_code 5 "a manifest that removes a file this command never writes" "line 2 (\"remove notes.txt\"): not a file this command writes" run experiments/tournament.json --set out_dir="$TMP/h/out" "${TINY[@]}"
[[ -e "$TMP/h/out/notes.txt" ]] && pass=$((pass + 1)) || { echo "FAIL [manifest]: notes.txt removed"; fail=$((fail + 1)); }
hostile_manifest "$TMP/h/out" "remove table.md"
ln -s "$TMP/h/victim/data.txt" "$TMP/h/out/table.md"
expect_code 5 "a manifest that removes through a symlink" "table.md is not a regular file" run experiments/tournament.json --set out_dir="$TMP/h/out" "${TINY[@]}"
victim_ok "remove a symlink" "$TMP/h/victim/data.txt"
rm -rf "$TMP/h/out" && mkdir -p "$TMP/h/out" "$TMP/h/elsewhere"
echo "remove table.md" >"$TMP/h/elsewhere/MANIFEST"
ln -s "$TMP/h/elsewhere" "$TMP/h/out/.output-set.pending"
expect_code 5 "a pending set that is a symlink to another folder" ".output-set.pending is not a directory" run experiments/tournament.json --set out_dir="$TMP/h/out" "${TINY[@]}"
[[ -e "$TMP/h/elsewhere/MANIFEST" ]] && pass=$((pass + 1)) || { echo "FAIL [pending symlink]: followed"; fail=$((fail + 1)); }
rm -rf "$TMP/h/out"
# the same folder, once the hostile pending set is gone, is written whole
"$BIN" run experiments/tournament.json --set out_dir="$TMP/h/out" "${TINY[@]}" >/dev/null 2>&1 && [[ -e "$TMP/h/out/results.json" ]] \
  && pass=$((pass + 1)) || { echo "FAIL [a clean folder after the refusals]"; fail=$((fail + 1)); }

# export: a directory where a file of the set goes refuses before anything is replaced; a user's own
# check files stay
"$BIN" export --checkpoint "$CP" --out "$TMP/h/ex" >/dev/null 2>&1
cp "$TMP/h/ex/model.safetensors" "$TMP/h/model.before"
rm "$TMP/h/ex/config.json" && mkdir "$TMP/h/ex/config.json"
expect_code 5 "export where config.json is a directory" "config.json is not a regular file" export --checkpoint "$CQ" --out "$TMP/h/ex"
cmp -s "$TMP/h/ex/model.safetensors" "$TMP/h/model.before" && [[ ! -e "$TMP/h/ex/.output-set.pending" ]] \
  && pass=$((pass + 1)) || { echo "FAIL [export onto a directory]: model.safetensors replaced or a pending set left"; fail=$((fail + 1)); }
rm -rf "$TMP/h/ex" && mkdir -p "$TMP/h/ex"
echo '{"mine": true}' >"$TMP/h/ex/check.json"
echo 'my notes' >"$TMP/h/ex/check.safetensors"
"$BIN" export --checkpoint "$CP" --out "$TMP/h/ex" >"$TMP/stdout" 2>&1
grep -q '"mine"' "$TMP/h/ex/check.json" && grep -q 'my notes' "$TMP/h/ex/check.safetensors" && grep -q "left $TMP/h/ex/check.json as it is" "$TMP/stdout" \
  && pass=$((pass + 1)) || { echo "FAIL [export without --check removed a user's check.json]"; cat "$TMP/stdout"; fail=$((fail + 1)); }
"$BIN" export --checkpoint "$CP" --out "$TMP/h/ex2" --check >/dev/null 2>&1 && "$BIN" export --checkpoint "$CP" --out "$TMP/h/ex2" >/dev/null 2>&1
[[ ! -e "$TMP/h/ex2/check.json" && ! -e "$TMP/h/ex2/check.safetensors" ]] && pass=$((pass + 1)) \
  || { echo "FAIL [export without --check kept its own stale check files]"; fail=$((fail + 1)); }

# 2. export reads the checkpoint as eval does: every tensor against the model's layout
ALIBI=results/tournament/runs/cue/alibi/seed0/checkpoint.json
for edit in "c['params'][1]['shape'] = [160, 48]" "c['params'][1]['shape'] = [16, 480000]" "c['params'][1]['shape'] = [17, 1600]" \
            "c['params'][1]['shape'] = [-17, -16]" "c['params'][1]['shape'] = [0, 16]" "c['params'][1]['data'] = c['params'][1]['data'][:-3]" \
            "c['params'][1]['data'][0] = 'x'"; do
  edit_json "$ALIBI" "$TMP/h/bad-cp.json" "$edit"
  expect_code 3 "export of a checkpoint with $edit" "parameter '" export --checkpoint "$TMP/h/bad-cp.json" --out "$TMP/h/bad-ex"
done
edit_json "$CQ" "$TMP/h/plan0.json" "c['frequency_plan'] = {'map': 'pi', 'train_length': 128, 'read_length': 0, 'kappa': 1, 'theta': [], 'logit_scale': 1}"
expect_code 3 "export of a frequency plan read at 0" "frequency_plan.read_length" export --checkpoint "$TMP/h/plan0.json" --out "$TMP/h/bad-ex"
[[ ! -e "$TMP/h/bad-ex" ]] && pass=$((pass + 1)) || { echo "FAIL [export]: a refused export left $TMP/h/bad-ex"; fail=$((fail + 1)); }

# import checks every tensor entry against the conversion table and reads the checkpoint back as eval would
"$BIN" export --checkpoint "$ALIBI" --out "$TMP/h/imp" >/dev/null 2>&1
cp "$TMP/h/imp/config.json" "$TMP/h/imp.config"
import_case() {  # import_case "description" "expected text" python-statement-on-c (the config.json)
  edit_json "$TMP/h/imp.config" "$TMP/h/imp/config.json" "$3"
  expect_code 4 "import: $1" "$2" import --from "$TMP/h/imp" --out "$TMP/h/imported.json"
  [[ ! -e "$TMP/h/imported.json" ]] || { echo "FAIL [import: $1]: wrote a checkpoint"; fail=$((fail + 1)); rm -f "$TMP/h/imported.json"; }
}
import_case "an empty shape" "pe_bench_shape is [], not [rows, columns]" "c['tensors'][0]['pe_bench_shape'] = []"
import_case "a shape of one number" "pe_bench_shape is [16], not" "c['tensors'][0]['pe_bench_shape'] = [16]"
import_case "a shape of three numbers" "pe_bench_shape is [16,8,1], not" "c['tensors'][0]['pe_bench_shape'] = [16, 8, 1]"
import_case "a checkpoint that is null" "pe_bench_checkpoint is null, not the checkpoint's fields" "c['pe_bench_checkpoint'] = None"
import_case "a checkpoint that is empty" "pe_bench_checkpoint is {}, not" "c['pe_bench_checkpoint'] = {}"
import_case "a checkpoint that is a string" "pe_bench_checkpoint is \"x\", not" "c['pe_bench_checkpoint'] = 'x'"
import_case "a checkpoint that is a list" "pe_bench_checkpoint is [1], not" "c['pe_bench_checkpoint'] = [1]"
import_case "version 2" "would not read: format version 2" "c['pe_bench_checkpoint']['version'] = 2"
import_case "two d_models" "would not read: model.d_model 16 and scheme.d_model 32 differ" "c['pe_bench_checkpoint']['scheme']['d_model'] = 32"
import_case "an unknown scheme" "would not read: unknown scheme 'fourier'" "c['pe_bench_checkpoint']['scheme']['name'] = 'fourier'"
import_case "a task that is a path" "would not read: task \"../../etc\" is not one pe-bench knows" "c['pe_bench_checkpoint']['task'] = '../../etc'"
import_case "a training length of 2^40" "training.train_length is out of range" "c['pe_bench_checkpoint']['training']['train_length'] = 2**40"
import_case "a tensor entry twice" "' a second time" "c['tensors'].append(dict(c['tensors'][0]))"
import_case "swapped names" "but pe-bench's" "t = c['tensors']; t[0]['torch'], t[1]['torch'] = t[1]['torch'], t[0]['torch']"
import_case "a flipped transposed flag" "(transposed true), but pe-bench's 'tok_emb' is 'tok_emb.weight' (transposed false)" "c['tensors'][0]['transposed'] = not c['tensors'][0]['transposed']"
printf '{"tensors": [], "tensors": [], "pe_bench_checkpoint": {}}' >"$TMP/h/imp/config.json"
expect_code 4 "import: a duplicated key in config.json" "duplicate key 'tensors'" import --from "$TMP/h/imp" --out "$TMP/h/imported.json"
cp "$TMP/h/imp.config" "$TMP/h/imp/config.json"

# safetensors headers: bounded shapes, whole numbers, space padding, each tensor once
st_case() {  # st_case "description" "expected text" HEADER-JSON DATA-BYTES
  python3 -c 'import struct,sys; h=sys.argv[1].encode().replace(b"<NUL>", b"\0"); open(sys.argv[2],"wb").write(struct.pack("<Q",len(h))+h+b"\0"*int(sys.argv[3]))' "$3" "$TMP/h/imp/model.safetensors" "$4"
  expect_code 4 "safetensors: $1" "$2" import --from "$TMP/h/imp" --out "$TMP/h/imported.json"
}
st_case "a dimension of 2^62" "needs more than the file holds" '{"w": {"dtype": "F32", "shape": [4611686018427387904], "data_offsets": [0, 0]}}' 0
st_case "a product past 2^64" "needs more than the file holds" '{"w": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 0]}}' 0
st_case "fractional offsets" "its data_offsets holds 4.5" '{"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4.5]}}' 4
st_case "a fractional shape" "its shape holds 1.5" '{"w": {"dtype": "F32", "shape": [1.5], "data_offsets": [0, 4]}}' 4
st_case "a NUL-padded header" "its header holds a NUL byte" '{"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}<NUL><NUL>' 4
st_case "a tensor named twice" "duplicate key 'w'" '{"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}' 8

# every JSON pe-bench reads refuses a key given twice, and numbers past a double
printf '{"steps": 2, "steps": 1000000}' >"$TMP/h/dup.json"
expect_code 2 "an experiment with a key twice" "duplicate key 'steps'" run "$TMP/h/dup.json" --quiet
sed '0,/"version": 1/s//"version": 1, "version": 1/' "$CP" >"$TMP/h/dup-cp.json"
expect_code 3 "a checkpoint with a key twice" "duplicate key 'version'" eval --checkpoint "$TMP/h/dup-cp.json" --out "$TMP/out.json" --quiet
printf '{"steps": 1e400}' >"$TMP/h/big.json"
expect_code 2 "an experiment with 1e400" "a number past the range of a double (number overflow parsing '1e400')" run "$TMP/h/big.json" --quiet
expect_code 2 "a rope_scaling config that is a directory" "cannot read '$TMP/h'" census --rope-scaling "$TMP/h"
expect_code 5 "a rope_scaling config read from /dev/zero" "more than 1024 MiB" census --rope-scaling /dev/zero

# 4. (export) a check batch that cannot fit is refused before any work, naming what it would take
expect_code 2 "export --check at 65,536 tokens" "a check batch of 4 sequences of 65536 tokens needs about" export --checkpoint "$CQ" --out "$TMP/h/big-check" --check --length 65536
expect_code 2 "export --check of a filings head at 65,536 tokens" "a check batch of 4 sequences of 65536 tokens needs about" export --checkpoint results/filings/runs/filings/rope/seed0/checkpoint.json --out "$TMP/h/big-check" --check --length 65536
[[ ! -e "$TMP/h/big-check" ]] && pass=$((pass + 1)) || { echo "FAIL [export --check]: a refused export left $TMP/h/big-check"; fail=$((fail + 1)); }

# run directories and their locks: never a symlink or a file pe-bench did not make
mkdir -p "$TMP/h/rr/cue/rope"
ln -s "$TMP/h/victim" "$TMP/h/rr/cue/rope/seed0"
expect_code 5 "a run directory that is a symlink" "rope/seed0 is not a directory (a file or a symlink stands there)" train --scheme rope --steps 2 --runs-dir "$TMP/h/rr" --quiet
victim_ok "a run directory that is a symlink" "$TMP/h/victim/data.txt"
rm "$TMP/h/rr/cue/rope/seed0"
ln -s "$TMP/h/victim/data.txt" "$TMP/h/rr/cue/rope/seed0.lock"
expect_code 5 "a run lock that is a symlink" "seed0.lock is a symlink" train --scheme rope --steps 2 --runs-dir "$TMP/h/rr" --quiet
victim_ok "a run lock that is a symlink" "$TMP/h/victim/data.txt"

# results files (table, compare) through the same reader
printf '{"task": "cue", "task": "cue", "rows": [], "lengths": [32]}' >"$TMP/h/dup-results.json"
expect_code 4 "a results file with a key twice" "duplicate key 'task'" table "$TMP/h/dup-results.json"
expect_code 4 "compare on a results file with a key twice" "duplicate key 'task'" compare "$TMP/h/dup-results.json" rope alibi --length 32
