#!/usr/bin/env bash
# The laboratory in a real browser: `pe-bench lab` writes the page from the committed results into a
# scratch folder and tests/lab_browser.py drives headless Chromium against it (exit 77: skipped,
# where Chromium cannot start). Usage: tests/lab_browser.sh path/to/pe-bench
set -euo pipefail
BIN=$(realpath "${1:?usage: lab_browser.sh path/to/pe-bench}")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$BIN" lab --quiet --out "$TMP/lab" >/dev/null
exec /usr/bin/python3 tests/lab_browser.py "$TMP/lab" --screenshots "$TMP/shots"
