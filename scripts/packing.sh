#!/usr/bin/env bash
# Issue 49, packing, under four policies (padded, packed, isolated-reset, isolated-global), seven
# schemes x 3 seeds each:
#   passkey  problems of 16-64 tokens in training windows of 64 (experiments/packing/passkey-<policy>.json),
#            read as single documents at 64-1024 and on packed windows at 64; 30-40 s a run and 4-6
#            minutes of reading per policy on 2 cores (about an hour);
#   charlm   the paragraphs of The Time Machine in windows of 128 (experiments/packing/charlm-<policy>.json),
#            read at 128-2048 on the running text, with paragraphs isolated, and paragraph by paragraph;
#            about 30 s a run and 2 minutes of reading per policy (about an hour).
# Then results/packing/summary.{json,md} (passkey), summary-charlm.{json,md} (char LM) and
# results/figures/packing.png, packing_charlm.png. Complete runs are kept (--resume), so the script
# can be stopped and run again; a summary lists a policy not yet run as missing.
# Usage: scripts/packing.sh [path/to/pe-bench] [policy glob, default *: e.g. padded, 'isolated-*'] [task
# glob, default *: passkey or charlm]
set -euo pipefail
BIN=${1:-build/pe-bench}
GLOB=${2:-*}
TASKS=${3:-*}
for f in experiments/packing/$TASKS-$GLOB.json; do
  [ -e "$f" ] || continue
  echo "== $f"
  "$BIN" run "$f" --resume -q
done
/usr/bin/python3 scripts/packing_summary.py results/packing
/usr/bin/python3 scripts/packing_charlm_summary.py results/packing
/usr/bin/python3 scripts/plot.py --only packing,packing_charlm --packing results/packing/summary.json \
  --packing-charlm results/packing/summary-charlm.json
