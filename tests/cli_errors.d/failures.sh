# pe-bench failures (docs/failures.md): an unknown fault is named with the known ones, a results folder holding no
# model of any fault is named, and bad numbers are refused before anything is read (all exit 2, nothing written).
# Sourced by tests/cli_errors.sh (uses $BIN, $TMP, expect_code).
expect_code 2 "failures with an unknown fault" "no fault named 'nope' (the faults: code-twice" failures --only nope --out "$TMP/f"
expect_code 2 "failures with no model under --results" "no checkpoint of any fault's schemes under $TMP" failures --results "$TMP" --out "$TMP/f"
expect_code 2 "failures with no seed" "seeds" failures --seeds 0 --out "$TMP/f"
expect_code 2 "failures at length 1" "lengths" failures --lengths 1 --out "$TMP/f"
if [[ -e "$TMP/f" ]]; then echo "FAIL [failures]: $TMP/f was written on an error"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
