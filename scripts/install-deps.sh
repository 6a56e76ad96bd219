#!/usr/bin/env bash
# Installs the Debian packages pe-bench builds against, skipping those already present.
# Usage: scripts/install-deps.sh   (python3-matplotlib draws the figures, GNU parallel runs local
# sweeps, slurm-wlm and munge run the single-node Slurm of tests/slurm_sweep.sh, chromium with
# chromium-driver and python3-selenium run the laboratory's browser test, python3-torch the PyTorch
# twin's check; `make test` uses all; libopenblas0-openmp gives PyTorch an optimised BLAS (with
# Debian's reference BLAS it runs about 30 times slower, which `make bench` would measure))
set -euo pipefail
pkgs=(build-essential cmake libeigen3-dev nlohmann-json3-dev libcli11-dev libfmt-dev doctest-dev
      libbenchmark-dev libboost-dev python3 python3-matplotlib parallel slurm-wlm munge
      chromium chromium-driver python3-selenium python3-torch python3-numpy libopenblas0-openmp)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then exit 0; fi
echo "install-deps: installing ${missing[*]}" >&2
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=sudo; else
    echo "install-deps: missing packages and not root; run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
else SUDO=""; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
