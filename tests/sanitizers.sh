#!/usr/bin/env bash
# The test suite and the CLI error checks again, built with AddressSanitizer and
# UndefinedBehaviorSanitizer (-O1, OpenMP off, so it fits in CI time): any out-of-bounds access,
# use after free, leak, signed overflow or other undefined behaviour fails the test.
# Usage: tests/sanitizers.sh BUILD_DIR [build|suite|cli]   (run from the source root; BUILD_DIR is made
# if missing). No part: all three in turn. ctest runs each part as a test of its own (sanitizers_build,
# sanitizers_suite, sanitizers_cli; the last two need the first).
#   build: configure and build pe_tests and pe-bench in BUILD_DIR
#   suite: pe_tests under the sanitizers, less the one case that only repeats a smaller case's code at
#          a larger size (the bfloat16 table at d = 512 over 8192 positions: the same Gram route and
#          pruned search as "smallest row distance", 98 s under ASan)
#   cli:   tests/cli_errors.sh and 200 cases of tests/fuzz_inputs.py through the sanitized binary
set -euo pipefail
DIR=${1:?usage: sanitizers.sh BUILD_DIR [build|suite|cli]}
PART=${2:-all}
SRC=$(pwd)
FLAGS="-O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -Wno-unknown-pragmas"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

build() {
  # A unity build (eight sources per compilation: the heavy headers are parsed once per batch, not
  # once per file) takes about a third of the time of building each file apart; it needs no two
  # sources to define the same name in an anonymous namespace, which this build checks.
  cmake -S "$SRC" -B "$DIR" -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="$FLAGS" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DPEBENCH_OPENMP=OFF -DPEBENCH_BENCHMARKS=OFF \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 >/dev/null
  local built
  built=$(date +%s)
  cmake --build "$DIR" --target pe_tests pe-bench -j"$(nproc)" >"$DIR/build.log" 2>&1 || { tail -30 "$DIR/build.log"; exit 1; }
  echo "sanitizers: built in $(( $(date +%s) - built )) s"
}

built_already() {
  [[ -x "$DIR/pe_tests" && -x "$DIR/pe-bench" ]] || { echo "sanitizers: $DIR has no sanitized build: run tests/sanitizers.sh $DIR build first" >&2; exit 1; }
}

suite() {
  built_already
  local start
  start=$(date +%s)
  "$DIR/pe_tests" --no-intro --test-case-exclude="theory: bfloat16 table d = 512*"
  echo "sanitizers: the suite passed under ASan+UBSan in $(( $(date +%s) - start )) s"
}

cli() {
  built_already
  local start
  start=$(date +%s)
  tests/cli_errors.sh "$DIR/pe-bench"
  python3 tests/fuzz_inputs.py "$DIR/pe-bench" 200 2
  echo "sanitizers: the CLI error checks and the fuzzer passed under ASan+UBSan in $(( $(date +%s) - start )) s"
}

case "$PART" in
  build) build ;;
  suite) suite ;;
  cli) cli ;;
  all) build; suite; cli ;;
  *) echo "usage: sanitizers.sh BUILD_DIR [build|suite|cli]" >&2; exit 2 ;;
esac
