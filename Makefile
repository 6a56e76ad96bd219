# pe-bench: `make run` (install, build, run the tournament) and `make test` (install, build, every test).
BUILD      ?= build
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
NATIVE     ?= OFF
WERROR     ?= $(if $(CI),ON,OFF)
CMAKE_ARGS ?=
BINDIR     ?=

.PHONY: all deps configure build build-cli link run lab filings filings-10seeds filings-v1 charlm charlm-quick passkey passkey-quick packing packing-quick direction direction-quick probes probes-quick probes-second-look failures failures-quick context-extension rope-base hybrids txl-memory sinusoidal random-positions random-positions-charlm random-positions-tournament attention-diagnostics exercises learned-rows schemes-table plots test bench bench-all gradcheck format clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DPEBENCH_NATIVE=$(NATIVE) -DPEBENCH_WERROR=$(WERROR) $(CMAKE_ARGS) >/dev/null

# Everything: pe-bench, the test suites (with and without OpenMP) and the benchmarks.
build: configure
	@cmake --build $(BUILD) -j$(JOBS)

# pe-bench alone (what run, filings and charlm use): no test suite, no benchmark.
build-cli: configure
	@cmake --build $(BUILD) -j$(JOBS) --target pe-bench

# `pe-bench` on the PATH: a link to $(BUILD)/pe-bench in /usr/local/bin (root) or ~/.local/bin.
link: build-cli
	@scripts/link-bin.sh $(BUILD)/pe-bench $(BINDIR)

# The tournament: 14 schemes x 3 seeds, trained at 32 and read at 32-256; prints the table and
# writes results/tournament/ (results.json, table.md, run directories).
run: link
	$(BUILD)/pe-bench run experiments/tournament.json

# The filings case study: none, sinusoidal, rope, alibi x 3 seeds on 32-token windows of synthetic
# filings, read on whole held-out documents (rope also with pi, ntk, yarn); the ALiBi horizon table
# also reads the tournament's ALiBi heads (run `make run` first). Writes results/filings/ (~15 s).
filings: build-cli
	$(BUILD)/pe-bench run experiments/filings.json

# The same study over seeds 0-9 (results/filings-10seeds/, ~1 min) and on the first corpus,
# corpus_version 1 (results/filings-v1/, ~15 s), for tasks.md's before/after tables.
filings-10seeds filings-v1: build-cli
	$(BUILD)/pe-bench run experiments/$@.json

# The character LM: 5 schemes trained at 128 on The Time Machine, perplexity at 128/256/512, RoPE
# through pi/selective, fine-tuned at 512, banded; writes results/charlm/ (20-30 minutes on 2 cores).
charlm: build-cli
	$(BUILD)/pe-bench run experiments/charlm.json

# Its quick variant (what CI runs): about a minute, far from converged.
charlm-quick: build-cli
	$(BUILD)/pe-bench run experiments/charlm-quick.json

passkey: build-cli
	$(BUILD)/pe-bench run experiments/passkey.json

passkey-quick: build-cli
	$(BUILD)/pe-bench run experiments/passkey-quick.json

# Packing (issue 49, docs/tasks.md "Packing"): passkey problems of 16-64 tokens in windows of 64, and the
# paragraphs of The Time Machine in the char LM's windows of 128, each under four policies (padded, packed,
# isolated-reset, isolated-global), 7 schemes x 3 seeds each; writes results/packing/ (summary.md) and
# results/figures/packing*.png (about two hours on 2 cores; complete runs are kept, so it can be stopped and
# run again). packing-quick: one policy, three schemes, each task (what CI runs).
packing: build-cli
	scripts/packing.sh $(BUILD)/pe-bench

packing-quick: build-cli
	$(BUILD)/pe-bench run experiments/packing-quick.json
	$(BUILD)/pe-bench run experiments/packing-charlm-quick.json

# The failure lab (issue 50, docs/failures.md): each positional fault applied to the committed passkey and
# char-LM models (3 seeds) as they are read, its damage by length against the correct model and the doctor's
# verdict (with the PyTorch twin's row); writes results/failures/ (results.json, table.md) and its figure.
# failures-quick: the passkey-quick and charlm-quick models, one seed (what CI checks, tests/golden_failures.sh).
failures: build-cli
	$(BUILD)/pe-bench failures
	/usr/bin/python3 scripts/plot.py --only failures

failures-quick: build-cli
	$(BUILD)/pe-bench failures --quick --seeds 1 --out results/failures-quick

# Direction (issue 49, docs/tasks.md section 5): bidirectional heads answering the nearest mark before
# the query (signed) or on either side (unsigned), 10 schemes x 3 seeds per rule (under a minute), and
# their two figures. direction-quick: four schemes, one seed (what CI runs).
direction: build-cli
	$(BUILD)/pe-bench run experiments/direction-before.json
	$(BUILD)/pe-bench run experiments/direction-nearest.json
	/usr/bin/python3 scripts/plot.py --only direction_accuracy,direction_score_by_offset

direction-quick: build-cli
	$(BUILD)/pe-bench run experiments/direction-quick.json

# The probes (issue 52, docs/tasks.md "Probes"): multi-needle, relative order, distractor retrieval and code
# with distant declarations, each a 3-block stack per scheme trained at 64 and read at 64-1024 (11 schemes x
# 3 seeds, RoPE and the hybrid also through 8 maps: about 40 minutes per probe on 2 cores; complete runs are
# kept, so it can be stopped and run again), and their figure. probes-quick: NoPE and RoPE, one seed, each
# probe (what CI runs).
PROBES = needles order distractors declarations
probes: build-cli
	for p in $(PROBES); do $(BUILD)/pe-bench run experiments/$$p.json --resume || exit 1; done
	/usr/bin/python3 scripts/plot.py --only probes

probes-quick: build-cli
	for p in $(PROBES); do $(BUILD)/pe-bench run experiments/$$p-quick.json || exit 1; done

# The second looks at the distractor and code probes (docs/tasks.md, "How many steps are enough"): NoPE,
# RoPE and ALiBi, one seed, on the recipes that learn them at 64 (about 15 minutes each on 2 cores).
probes-second-look: build-cli
	$(BUILD)/pe-bench run experiments/distractors-deeper.json --resume
	$(BUILD)/pe-bench run experiments/declarations-one-hop.json --resume

# Context extension as practitioners configure it (scripts/context-extension.sh): the char LM's RoPE
# models of charlm-3seeds read at 128-2048 with every map (paper and Transformers' forms, dynamic
# through cached decoding) and fine-tuned at 512 with each; the passkey and tournament RoPE models read
# with the same maps; attention statistics; figures. Writes results/context-extension/ (about 1.5 hours
# on 2 cores; kept runs and fine-tunes are not redone).
context-extension: build-cli
	scripts/context-extension.sh $(BUILD)/pe-bench

# RoPE's base (issue 30): the char LM's RoPE retrained with bases 100, 10^4, 5x10^5, 10^6 (3 seeds each)
# and read at 128-2048, each base's census, and a base change at fine-tuning (ABF) against pi and the
# code YaRN; writes results/rope-base/ (summary.md) and results/figures/rope_base.png (~1.5 hours).
rope-base: build-cli
	scripts/rope-base.sh $(BUILD)/pe-bench

# Hybrid stacks (issue 30, docs/hybrids.md): local-RoPE / global-NoPE at 1:1, 3:1 (4 layers) and 1:1,
# 5:1 (6 layers), the partial-RoPE global variant, all-RoPE and all-NoPE of the same depths, for the
# char LM and the passkey stack, 3 seeds each; writes results/hybrids/ (summary.md) and
# results/figures/hybrids*.png (about five hours on 2 cores; complete runs are kept, so it can be
# stopped and run again).
hybrids: build-cli
	scripts/hybrids.sh $(BUILD)/pe-bench

# Transformer-XL with its memory (issue 30): the char LM's txl trained with segment recurrence (mem_len
# 128) and without, ALiBi beside them, 3 seeds, read at 128-2048 plainly and in segments with the
# memory; writes results/txl-memory/ (summary.md) and results/figures/txl_memory.png (~45 minutes).
txl-memory: build-cli
	scripts/txl-memory.sh $(BUILD)/pe-bench

# The sinusoidal code's amplitude and layout (issue 51, the d2l exercise): the tournament's head and the char
# LM with the code scaled by 0.1-3 or its sines and cosines in halves, 3 seeds each; writes
# results/sinusoidal/ (summary.md) (about 30 minutes on 2 cores, nearly all of it the char LM).
sinusoidal: build-cli
	scripts/sinusoidal.sh $(BUILD)/pe-bench

# Randomised positions (Ruoss et al. 2023; docs/tasks.md): passkey with every sequence's positions drawn from
# [0, 2048), five schemes x 3 seeds; writes results/random-positions/ (about 30 minutes on 2 cores).
random-positions: build-cli
	$(BUILD)/pe-bench run experiments/random-positions.json --resume

# The same on the char LM: windows of 128 at positions drawn from [0, 2048), five schemes x 3 seeds, read at
# 128/256/512; writes results/random-positions-charlm/ (about 50 minutes on 2 cores).
random-positions-charlm: build-cli
	$(BUILD)/pe-bench run experiments/random-positions-charlm.json --resume

# Randomised positions on the tournament: every head trained at 32 with positions drawn from [0, 256), read at
# 32-256, 10 seeds (the quick variant, one seed of five schemes, is CI's golden test); writes
# results/random-positions-tournament/ (about two minutes on 2 cores).
random-positions-tournament: build-cli
	$(BUILD)/pe-bench run experiments/random-positions-tournament.json --resume

# What attention does beyond RoPE (issue 52): analyze attention of the committed char LMs and hybrid stacks by layer
# type, ALiBi's heads against their bias alone; writes results/attention-diagnostics/ (about a minute, nothing trained).
attention-diagnostics: build-cli
	scripts/attention-diagnostics.sh $(BUILD)/pe-bench

# The chapter's exercises that need no trained model (docs/exercises.md): results/exercises/<ID>.json
# (about two seconds).
exercises: build-cli
	$(BUILD)/pe-bench exercise

# The char LM with a learned table of 512 rows trained at 128, without and with weight decay, for the
# exercise 4 (docs/exercises.md): results/learned-rows/ and results/learned-rows-wd/ (about 10 minutes each).
learned-rows: build-cli
	$(BUILD)/pe-bench run experiments/learned-rows-charlm.json --resume
	$(BUILD)/pe-bench run experiments/learned-rows-charlm-wd.json --resume

# Every scheme on every task at the training length and the longest read, from the committed results
# (scripts/schemes_summary.py): results/schemes/summary.md. Nothing is trained.
schemes-table:
	/usr/bin/python3 scripts/schemes_summary.py results/schemes

# The figures of the committed results (scripts/plot.py): results/figures/*.png and *.svg.
# The laboratory (docs/lab.md): results/lab/index.html and lab.json from the committed results, and
# the screenshots the README shows (headless Chromium). Open results/lab/index.html in a browser.
lab: build-cli
	$(BUILD)/pe-bench lab
	/usr/bin/python3 tests/lab_browser.py results/lab --screenshots results/lab

plots: deps
	/usr/bin/python3 scripts/plot.py
	/usr/bin/python3 scripts/plot.py --charlm results/charlm-3seeds/results.json --only charlm_perplexity --out results/figures/charlm-3seeds
	/usr/bin/python3 scripts/plot.py --filings results/filings-10seeds/results.json --only filings_accuracy,filings_lab --out results/figures/filings-10seeds

# Every test, through ctest: the doctest suite (also built without OpenMP), the CLI error checks and
# the golden tests (the tournament and charlm-quick rerun from scratch must reproduce the committed
# outputs value for value). Under CI (CI=true) warnings in pe-bench's own code are errors.
test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

# The speed targets (bench/report.py): pe-bench beside PyTorch, measured alternately in one run, with
# ratios and the fraction of FMA peak; writes results/bench.md. PyTorch's side is the project's own twin
# (python/pebench_torch via bench/twin_bench.py: the same models and recipes; needs python3-torch);
# REFERENCE=DIR measures the PyTorch programs in DIR (tinycharlm_torch.py, tournament_torch.py) instead.
# QUICK=1: one round without the tournament, written to $(BUILD)/bench-quick.md (results/bench.md stays).
# `make bench-all` runs every Google Benchmark of build/pe_benchmarks.
bench: build
	/usr/bin/python3 bench/report.py $(BUILD) $(if $(QUICK),--quick --out $(BUILD)/bench-quick.md,--out results/bench.md) \
	  $(if $(REFERENCE),--reference $(REFERENCE))

bench-all: build
	$(BUILD)/pe_benchmarks

gradcheck: build-cli
	$(BUILD)/pe-bench gradcheck

# The C++ layout of .clang-format (clang-format 14, Debian's package clang-format), applied to every
# source; tests/architecture.py (ctest architecture) fails on a line past 120 columns or an unsorted
# include block.
format:
	@command -v clang-format >/dev/null || { echo "make format: needs clang-format (apt-get install clang-format)" >&2; exit 2; }
	git ls-files '*.h' '*.cpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
