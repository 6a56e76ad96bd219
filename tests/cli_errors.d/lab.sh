# pe-bench lab (issue 46, section 3): every input it reads is checked (one line naming the file and
# the key, exit 4, nothing written), and the page escapes what it embeds. Sourced by tests/cli_errors.sh
# (uses $BIN, $TMP, expect_code and edit_json). Each results directory holds copies of the committed
# inputs and two of the tournament's heads (the error cases stop before reading them).
LAB_RUNS="$TMP/lab-runs"
mkdir -p "$LAB_RUNS/cue"
for head in rope/seed0 sinusoidal/seed0; do
  mkdir -p "$LAB_RUNS/cue/$head" && cp results/tournament/runs/cue/$head/*.json "$LAB_RUNS/cue/$head/"
done
lab_inputs() {  # lab_inputs DIR: a results directory with the committed inputs and the two heads
  mkdir -p "$1/tournament" "$1/filings" "$1/failures"
  cp results/theory.json "$1/theory.json"
  cp results/failures/results.json "$1/failures/results.json"
  cp results/tournament/results.json "$1/tournament/results.json"
  cp results/filings/lab_filing.json "$1/filings/lab_filing.json"
  ln -sfn "$LAB_RUNS" "$1/tournament/runs"
}
lab_case() {  # lab_case NAME FILE python-statement-on-c: a results directory with FILE (theory.json, ...) edited
  lab_inputs "$TMP/lab-$1"
  edit_json "$TMP/lab-$1/$2" "$TMP/lab-$1/$2" "$3"
}
lab_case base theory.json "c['log_ruler']['base'] = 1.0"
lab_case d0 theory.json "c['log_ruler']['rows'][0]['by_d'][0]['d'] = 0"
lab_case dhuge theory.json "c['log_ruler']['rows'][0]['by_d'][2]['d'] = 100000000"
lab_case mean tournament/results.json "c['rows'][0]['mean'] = 'x'"
lab_case norows tournament/results.json "c.clear(); c['rows'] = []"
lab_case nolength tournament/results.json "del c['lengths']"
lab_case map tournament/results.json "c['maps'] = ['pi', '<!--<script>']"
lab_case lo tournament/results.json "c['rows'][1]['lo'][0] = c['rows'][1]['hi'][0]"
lab_case nohi tournament/results.json "del c['rows'][0]['hi']"
lab_inputs "$TMP/lab-filings" && cp results/filings/results.json "$TMP/lab-filings/tournament/results.json"
lab_case mention filings/lab_filing.json "c['last_mention'] = 10"
lab_case answer filings/lab_filing.json "c['readers'][2]['answers'][7] = 9"
lab_case faultscore failures/results.json "c['faults'][0]['models'][0]['correct'] = 'x'"
lab_case faultflag failures/results.json "c['faults'][1]['models'][0]['control'] = 1"
L="--out $TMP/out.json --quiet"  # out.json: the directory that must not be written
expect_code 4 "lab: log_ruler.base = 1.0 (was 161 nulls, exit 0)" "$TMP/lab-base/theory.json: log_ruler.base must be a number in [2, 1000000000000], got 1.0" lab --results "$TMP/lab-base" $L
expect_code 4 "lab: a ruler width d = 0 (was 161 nulls, exit 0)" "theory.json: log_ruler.rows[0].by_d[0].d must be an integer in [2, 65536], got 0" lab --results "$TMP/lab-d0" $L
expect_code 4 "lab: a ruler width d = 10^8 (was minutes of work)" "log_ruler.rows[0].by_d[2].d must be an integer in [2, 65536], got 100000000" lab --results "$TMP/lab-dhuge" $L
expect_code 4 "lab: rows[0].mean = \"x\" (was carried to the page)" "tournament/results.json: rows[0].mean must be a list, got \"x\"" lab --results "$TMP/lab-mean" $L
expect_code 4 "lab: results {\"rows\": []} (was exit 70)" "tournament/results.json: task is missing" lab --results "$TMP/lab-norows" $L
expect_code 4 "lab: results without lengths" "tournament/results.json: lengths is missing" lab --results "$TMP/lab-nolength" $L
expect_code 4 "lab: an interval's lo above its mean" "tournament/results.json: rows[1].lo[0] must be a number in [0, " lab --results "$TMP/lab-lo" $L
expect_code 4 "lab: a row without hi (the interval's upper ends)" "tournament/results.json: rows[0].hi is missing" lab --results "$TMP/lab-nohi" $L
expect_code 4 "lab: another task's results (the filings study's)" "tournament/results.json: test_sequences is missing: the laboratory reads the tournament's results (accuracy by length on one shared test set), and this file is the \"filings\" task's" lab --results "$TMP/lab-filings" $L
expect_code 4 "lab: results re-read with an unknown map" "tournament/results.json: maps[1] is not a map this build reads" lab --results "$TMP/lab-map" $L
expect_code 4 "lab: a filing whose last_mention is not its last mark" "lab_filing.json: last_mention must be the position of the document's last mention" lab --results "$TMP/lab-mention" $L
expect_code 4 "lab: a filing reader answering a company it does not name" "lab_filing.json: readers[2].answers[7] must be an integer in [-1, 3], got 9" lab --results "$TMP/lab-answer" $L
expect_code 4 "lab: a fault's scores not a list" "failures/results.json: faults[0].models[0].correct must be a list, got \"x\"" lab --results "$TMP/lab-faultscore" $L
expect_code 4 "lab: a control flag that is a number" "failures/results.json: faults[1].models[0].control must be true or false, got 1" lab --results "$TMP/lab-faultflag" $L
lab_inputs "$TMP/lab-noheads" && rm "$TMP/lab-noheads/tournament/runs" && mkdir "$TMP/lab-noheads/tournament/runs"
expect_code 4 "lab: a runs directory without a head (was exit 2)" "no checkpoint.json under $TMP/lab-noheads/tournament/runs" lab --results "$TMP/lab-noheads" $L
# The page escapes what it embeds: hostile strings in a scheme name, a reference key, a filing word
# and the --results path (written into sources) leave no raw '<', '>' or '&' in the JSON block, the
# page has its own two script elements only, and the block parses back to lab.json.
HOSTILE="$TMP/lab-<!--<script>"
lab_inputs "$HOSTILE"
edit_json "$HOSTILE/tournament/results.json" "$HOSTILE/tournament/results.json" \
  "c['rows'][0]['scheme'] = '<!--<script>'; c['reference']['rows']['</script><script>x'] = [0.5]"
edit_json "$HOSTILE/filings/lab_filing.json" "$HOSTILE/filings/lab_filing.json" \
  "c['document']['words'][3] = '<!--<script>&\u2028'; c['why'] = 'a </script> b'"
if "$BIN" lab --results "$HOSTILE" --out "$TMP/lab-page" --quiet >"$TMP/stdout" 2>"$TMP/stderr" && python3 - "$TMP/lab-page" <<'PY'
import json, sys
page = open(sys.argv[1] + "/index.html", encoding="utf-8").read()
open_tag = '<script type="application/json" id="payload">'
start = page.index(open_tag) + len(open_tag)
block = page[start:page.index("</script>", start)]
assert not any(c in block for c in "<>&\u2028\u2029"), "a raw < > & U+2028 or U+2029 in the JSON block"
assert page.count("<script") == 2 and "<!--" not in page, "the page holds more than its own script elements"
data = json.loads(block)
assert data == json.load(open(sys.argv[1] + "/lab.json", encoding="utf-8")), "the block is not lab.json"
assert data["accuracy"]["readers"][0]["scheme"] == "<!--<script>" and "<!--<script>" in data["sources"]["theory"]
assert data["filing"]["words"][3] == "<!--<script>&\u2028"
PY
then pass=$((pass + 1)); else echo "FAIL [lab: the page escapes hostile strings]"; cat "$TMP/stderr"; fail=$((fail + 1)); fi
