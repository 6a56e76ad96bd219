#!/usr/bin/env bash
# Puts `pe-bench` on the PATH: a symbolic link BINDIR/pe-bench -> this checkout's build/pe-bench, so a
# rebuild is picked up at once. BINDIR is /usr/local/bin as root, ~/.local/bin otherwise. An existing
# pe-bench there that is not such a link (another install) is left alone, with a message.
# Usage: scripts/link-bin.sh path/to/build/pe-bench [BINDIR]
set -euo pipefail
bin=$(realpath "${1:?usage: link-bin.sh path/to/pe-bench [BINDIR]}")
if [[ $(id -u) -eq 0 ]]; then default=/usr/local/bin; else default="$HOME/.local/bin"; fi
dir=${2:-$default}
mkdir -p "$dir"
link="$dir/pe-bench"
if [[ -e "$link" && ! -L "$link" ]]; then
  echo "link-bin: $link exists and is not a link; leaving it (run $bin directly, or remove it)" >&2
  exit 0
fi
if [[ "$(readlink "$link" 2>/dev/null)" != "$bin" ]]; then
  ln -sfn "$bin" "$link"
  echo "link-bin: $link -> $bin" >&2
fi
case ":$PATH:" in
  *":$dir:"*) ;;
  *) echo "link-bin: $dir is not on your PATH; add it (e.g. export PATH=\"$dir:\$PATH\" in ~/.bashrc) to type pe-bench" >&2 ;;
esac
