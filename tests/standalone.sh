#!/usr/bin/env bash
# The project stands on its own: no tracked file refers to the notes folder beside the repository
# (which someone who clones pe-bench does not have). Run from the repository root.
set -euo pipefail
pattern='share[d]/'  # written so that this file does not match itself
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  hits=$(git grep -nE "$pattern" -- . || true)
else
  hits=$(grep -rnE "$pattern" . --exclude-dir='build*' --exclude-dir=.git || true)
fi
if [[ -n "$hits" ]]; then
  echo "standalone: these lines point outside the project; say it in docs/ instead:" >&2
  echo "$hits" | head -20 >&2
  exit 1
fi
echo "standalone: no file refers outside the project"
