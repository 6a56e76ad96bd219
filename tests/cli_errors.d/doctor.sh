# pe-bench doctor (docs/doctor.md): what to read is asked for once (exit 2), an unreadable checkpoint is named
# (exit 3), and a model that breaks an invariant expected of it is exit 9 with one line after its table.
# Sourced by tests/cli_errors.sh (uses $BIN, $TMP, $CP, expect_code).
expect_code 2 "doctor without a model" "give --checkpoint FILE ... or --from DIR" doctor
expect_code 2 "doctor with both" "not both and not neither" doctor --checkpoint "$CP" --from "$TMP"
expect_code 3 "doctor of a missing checkpoint" "not found" doctor --checkpoint "$TMP/absent.json"
expect_code 3 "doctor of a corrupt checkpoint" "not valid JSON" doctor --checkpoint "$TMP/corrupt.json"
expect_code 4 "doctor of an empty export" "import:" doctor --from "$TMP"
expect_code 9 "doctor of a learned table read past its rows" "1 invariant expected of 1 of 1 model did not hold" doctor --checkpoint results/charlm-quick/runs/charlm/learned/seed0/checkpoint.json --length 1024
sed '/"task":/d' "$CP" >"$TMP/notask.json"
expect_code 3 "doctor of a checkpoint without a task" "task null is not one pe-bench knows" doctor --checkpoint "$TMP/notask.json"
