#!/usr/bin/env bash
# Golden test of the failure lab's quick variant (make failures-quick, docs/failures.md): the faults read on
# the committed quick models (passkey-quick, charlm-quick) must give the committed results/failures-quick/ again, value for value
# (a change that moves a number recommits them: make failures-quick). Usage: tests/golden_failures.sh pe-bench
set -euo pipefail
BIN=$(realpath "${1:?usage: golden_failures.sh path/to/pe-bench}")
if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo "golden_failures: skipped: /usr/bin/python3 cannot import torch, and the committed results hold the twin row's verdicts (scripts/install-deps.sh installs python3-torch)"
  exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$BIN" failures --quiet --quick --seeds 1 --out "$TMP/failures" >/dev/null
if ! "$BIN" --version | grep -q "target x86-64-v3,"; then
  echo "golden_failures: comparison skipped: this build is not the default x86-64-v3 one; bit identity is promised only for that"
  exit 77
fi
for f in results.json table.md; do
  if ! cmp -s "$TMP/failures/$f" "results/failures-quick/$f"; then
    "$BIN" diff "$TMP/failures/$f" "results/failures-quick/$f" || diff "$TMP/failures/$f" "results/failures-quick/$f" | head -40 || true
    echo "golden_failures: results/failures-quick/$f is not what pe-bench failures writes now; if that is meant, run make failures-quick and commit it" >&2
    exit 1
  fi
done
echo "golden_failures: results/failures-quick/ is what pe-bench failures writes"
