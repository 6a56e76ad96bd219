# pe-bench: `make run` (install, build, run the tournament) and `make test` (install, build, every test).
BUILD      ?= build
BUILD_NOMP ?= build-noomp
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
NATIVE     ?= ON
CMAKE_ARGS ?=

.PHONY: all deps build run charlm charlm-quick test test-noomp bench gradcheck clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DPEBENCH_NATIVE=$(NATIVE) $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

# The tournament: 5 schemes x 3 seeds, trained at 32 and read at 32-256; prints the table and
# writes results/tournament/ (results.json, table.md, run directories).
run: build
	$(BUILD)/pe-bench run experiments/tournament.json

# The character LM: 5 schemes trained at 128 on The Time Machine, perplexity at 128/256/512, RoPE
# through pi/selective, fine-tuned at 512, banded; writes results/charlm/ (about 30 minutes here).
charlm: build
	$(BUILD)/pe-bench run experiments/charlm.json

# Its quick variant (what CI runs): about a minute, far from converged.
charlm-quick: build
	$(BUILD)/pe-bench run experiments/charlm-quick.json

# Every test: the doctest suite and the CLI error checks (through ctest), then the same suite built
# with OpenMP disabled.
test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)
	@$(MAKE) --no-print-directory test-noomp

# The doctest suite with OpenMP off (built at -O1: it only has to be right, not fast).
test-noomp: deps
	@cmake -S . -B $(BUILD_NOMP) -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
	  -DPEBENCH_OPENMP=OFF -DPEBENCH_BENCHMARKS=OFF -DPEBENCH_NATIVE=$(NATIVE) $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD_NOMP) -j$(JOBS) --target pe_tests
	cd $(PWD) && $(BUILD_NOMP)/pe_tests --no-intro

# Benchmarks (Google Benchmark): training steps/s per scheme, and the whole tournament.
bench: build
	$(BUILD)/pe_benchmarks

gradcheck: build
	$(BUILD)/pe-bench gradcheck

clean:
	rm -rf $(BUILD) $(BUILD_NOMP)
