#!/usr/bin/python3
"""`make bench`: pe-bench's speed targets (issue 29), each with the reference measured in the same
run where one exists, alternately (this machine drifts 10-30% over minutes), and the ratio. Writes a
Markdown report (default results/bench.md) and prints it.

  1. the char-LM training step, RoPE, B 64 / T 128, 2 threads, against PyTorch's (the twin's) and as
     a fraction of the machine's FMA peak;
  2. every scheme's step against RoPE's;
  3. the two-thread step against the one-thread step;
  4. the whole tournament (5 published schemes x 3 seeds, every read, the geometry and the exact
     reader), 1 thread, against the same training and reads in PyTorch (the twin's cue head);
  5. the char LM read at 2,048 tokens: peak memory and time per window;
  6. cached decoding: ms per token at 128, 512 and 2,048 cached tokens, bytes of cache per token;
  7. the full width: on a CPU with AVX-512, the RoPE step with the AVX-512 matrix kernel against the
     AVX2 one (PEBENCH_NO_AVX512=1), alternately; the two give the same bits (tests/test_gemm.cpp,
     and the golden tests pass on both).

PyTorch's side is the project's own twin (python/pebench_torch, run by bench/twin_bench.py): the same
model and recipe, trained by PyTorch's autograd and optimiser, so the report needs nothing outside
the repository. --reference DIR measures other PyTorch programs instead (tinycharlm_torch.py and
tournament_torch.py in DIR, with their own command lines). A row whose PyTorch side cannot run (no
python3-torch, or a reference program missing) says so. Every ratio is measured in this run, pe-bench
and PyTorch alternately.
Usage: bench/report.py BUILD_DIR [--out FILE] [--rounds N] [--reference DIR] [--quick]"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("build")
ap.add_argument("--out", default="results/bench.md")
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--reference", default="", help="folder of tinycharlm_torch.py and tournament_torch.py, measured "
                "instead of the twin (bench/twin_bench.py)")
ap.add_argument("--quick", action="store_true", help="one round, the tournament left out (a smoke test)")
args = ap.parse_args()
BIN, BENCH = os.path.join(args.build, "pe-bench"), os.path.join(args.build, "pe_benchmarks")
PY = "/usr/bin/python3"
TWIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "twin_bench.py")
TORCH_SIDE = "PyTorch reference" if args.reference else "PyTorch twin"
rounds = 1 if args.quick else args.rounds
tmp = tempfile.mkdtemp(prefix="pe-bench-report.")


def log(msg):
    print(time.strftime("%H:%M:%S"), msg, file=sys.stderr, flush=True)


def have_torch():
    return subprocess.run([PY, "-c", "import torch"], capture_output=True).returncode == 0


def pytorch_program(name):
    """The command of PyTorch's side, to which a row adds its arguments: the reference program `name` in
    --reference DIR, else the twin (bench/twin_bench.py); None when it cannot run here."""
    if not have_torch():
        return None
    if not args.reference:
        return [PY, TWIN]
    path = os.path.join(args.reference, name)
    return [PY, path] if os.path.exists(path) else None


# ---- the machine -----------------------------------------------------------------------------
def machine():
    info = open("/proc/cpuinfo").read()
    model = re.search(r"model name\s*:\s*(.*)", info).group(1).strip()
    flags = re.search(r"flags\s*:\s*(.*)", info).group(1).split()
    mhz = None
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    m = re.search(r"CPU max MHz:\s*([\d.]+)", lscpu)
    if m:
        mhz, source = float(m.group(1)), "lscpu's CPU max MHz"
    else:
        vals = [float(x) for x in re.findall(r"cpu MHz\s*:\s*([\d.]+)", info)]
        mhz, source = max(vals), "/proc/cpuinfo's cpu MHz (no max MHz is exposed here)"
    cores = os.cpu_count()
    version = subprocess.run([BIN, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"matrix kernel on this CPU: (\w+)", version)
    gemm = m.group(1) if m else "avx2"
    # the matrix kernel's FMAs: 8 floats (AVX2) or 16 (AVX-512) x 2 flops x 2 FMA pipes per cycle; AMD's
    # Zen and Zen+ (family 0x17, models below 0x30) run a 256-bit FMA as two 128-bit halves: 4 floats a pipe
    family = re.search(r"cpu family\s*:\s*(\d+)", info)
    cpu_model = re.search(r"^model\s*:\s*(\d+)", info, re.M)
    zen1 = ("AuthenticAMD" in info and family and int(family.group(1)) == 0x17 and cpu_model and
            int(cpu_model.group(1)) < 0x30)
    lane = 16 if gemm == "avx512" else 4 if zen1 else 8
    peak_core = mhz * 1e-3 * lane * 2 * 2
    return {"model": model, "cores": cores, "mhz": mhz, "mhz_source": source, "avx512": "avx512f" in flags,
            "gemm": gemm, "lane": lane, "zen1": bool(zen1), "peak_core_gflops": peak_core,
            "kernel": platform.release()}


def benchmarks(pattern, min_time=2.0, avx512=True):
    """{name: {real_time (ms or s as the benchmark says), counters...}} of pe_benchmarks runs matching pattern
    (avx512=False: with the AVX2 matrix kernel even where the CPU has AVX-512)."""
    out = os.path.join(tmp, "bm.json")
    env = dict(os.environ, PEBENCH_NO_AVX512="0" if avx512 else "1")
    subprocess.run([BENCH, "--benchmark_filter=" + pattern, "--benchmark_min_time=%g" % min_time,
                    "--benchmark_format=json", "--benchmark_out=" + out, "--benchmark_out_format=json"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return {b["name"].replace("/real_time", ""): b for b in json.load(open(out))["benchmarks"]}


def torch_charlm_step(program):
    if not args.reference:  # the twin prints its figures
        run = subprocess.run(program + ["step", BIN, "--threads", "2", "--steps", "3" if args.quick else "10"],
                             check=True, capture_output=True, text=True)
        return json.loads(run.stdout)["train_step_ms_median"]
    out = os.path.join(tmp, "torch_step.json")
    subprocess.run(program + ["--scheme", "rope", "--time-only", "--threads", "2", "--time-steps", "10",
                              "--vocab-order", "alpha", "--corpus", "data/timemachine.txt", "--out", out],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return json.load(open(out))["results"][0]["train_step_ms_median"]


def torch_tournament(program):
    if not args.reference:
        return program + ["tournament", BIN, "--threads", "1"]
    return program + ["--threads", "1", "--flush-denormal"]


def timed(cmd):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def fmt_ratio(a, b):
    return "%.2fx" % (a / b) if a and b else "—"


mc = machine()
lines = ["# pe-bench speed (`make bench`)", "",
         "Machine: %s, %d cores, %.0f MHz (%s), %s; the portable (x86-64-v3) build's matrix kernel on this "
         "CPU: %s. FMA peak taken as clock x %d flops/cycle/core (two %d-float FMA pipes%s): %.1f GFLOP/s per core "
         "(a CPU that boosts above the clock it reports reads above 1 here: then the real clock is higher; one "
         "with a single 512-bit FMA pipe reads half). Written by bench/report.py on %s." % (
             mc["model"], mc["cores"], mc["mhz"], mc["mhz_source"], "AVX-512" if mc["avx512"] else "no AVX-512",
             mc["gemm"], 4 * mc["lane"], mc["lane"],
             "; a Zen or Zen+ core splits each 256-bit FMA in two" if mc["zen1"] else "", mc["peak_core_gflops"], time.strftime("%Y-%m-%d")), ""]

# 1. char-LM RoPE step vs PyTorch, alternately
script = pytorch_program("tinycharlm_torch.py")
ours, theirs, gflops = [], [], []
for r in range(rounds):
    log("char-LM RoPE step, round %d/%d" % (r + 1, rounds))
    b = benchmarks("^BM_CharLMTrainStep/rope/real_time$")["BM_CharLMTrainStep/rope"]
    ours.append(b["real_time"])
    gflops.append(b["GFLOP/s"] * 1e-9)  # the counter is in FLOP/s
    if script:
        theirs.append(torch_charlm_step(script))
o, t, g = statistics.median(ours), statistics.median(theirs) if theirs else None, statistics.median(gflops)
peak2 = 2 * mc["peak_core_gflops"]
lines += ["## 1. Char-LM training step, RoPE, B 64 / T 128, 2 threads", "",
          "| | pe-bench | %s | ratio (target >= 4x) | pe-bench GFLOP/s | fraction of 2-core FMA peak (target ~0.85) |"
          % TORCH_SIDE,
          "|---|---|---|---|---|---|",
          "| median of %d rounds | %.1f ms (%s) | %s | %s | %.0f | %.2f |" % (
              rounds, o, ", ".join("%.1f" % x for x in ours),
              ("%.1f ms (%s)" % (t, ", ".join("%.1f" % x for x in theirs))) if t else
              "not measured (no python3-torch%s)" % (", or no tinycharlm_torch.py in --reference" if args.reference
                                                     else ""),
              fmt_ratio(t, o), g, g / peak2), ""]

# 2. every scheme against RoPE (each round runs every scheme once, RoPE among them: the ratio is the
# median over rounds of the round's own ratio, so the machine's drift between rounds cancels), 3. threads
runs = []
for r in range(rounds):
    log("every scheme's step, and RoPE on one thread, round %d/%d" % (r + 1, rounds))
    runs.append(benchmarks("^BM_CharLMTrainStep/"))
all_steps = runs[0]
rope = statistics.median(x["BM_CharLMTrainStep/rope"]["real_time"] for x in runs)
lines += ["## 2. Every scheme's step against RoPE's (target <= 1.3x)", "",
          "Median of %d rounds; each round runs every scheme once and the ratio is taken within the round." % rounds,
          "", "| scheme | ms/step | / RoPE |", "|---|---|---|"]
for name in all_steps:
    if "threads" in name:
        continue
    ms = statistics.median(x[name]["real_time"] for x in runs)
    ratio = statistics.median(x[name]["real_time"] / x["BM_CharLMTrainStep/rope"]["real_time"] for x in runs)
    lines.append("| %s | %.1f | %.2fx |" % (name.split("/")[1], ms, ratio))
one = statistics.median(x["BM_CharLMTrainStep/rope/threads:1"]["real_time"] for x in runs)
one_gf = statistics.median(x["BM_CharLMTrainStep/rope/threads:1"]["GFLOP/s"] for x in runs) * 1e-9
lines += ["", "## 3. Both cores (target >= 1.8x)", "",
          "RoPE step (medians of the rounds above): 1 thread %.1f ms, 2 threads %.1f ms: **%.2fx**; one thread "
          "reaches %.0f GFLOP/s (%.2f of one core's peak)." % (one, rope, one / rope, one_gf,
                                                             one_gf / mc["peak_core_gflops"]), ""]

# 4. the tournament, 1 thread
lines += ["## 4. The tournament, 1 thread (target >= 25x)", ""]
if args.quick:
    lines += ["(left out: --quick)", ""]
else:
    tscript = pytorch_program("tournament_torch.py")
    pe_s, torch_s = [], []
    # alternate rounds (the machine's speed moves between runs); the ratio is each round's own, the
    # report the median of the rounds'
    for r in range(rounds):
        log("the tournament in pe-bench (5 schemes x 3 seeds, 1 thread), round %d/%d" % (r + 1, rounds))
        shutil.rmtree(tmp + "/t", ignore_errors=True)  # every round trains from scratch
        pe_s.append(timed([BIN, "run", "experiments/tournament.json", "--set",
                           "schemes=none,sinusoidal,learned,rope,alibi", "--set", "out_dir=" + tmp + "/t",
                           "--set", "runs_dir=" + tmp + "/t/runs", "--set", "reference=", "--threads", "1", "-q"]))
        if tscript:
            log("the tournament in PyTorch (%s, 1 thread), round %d/%d" % (TORCH_SIDE, r + 1, rounds))
            torch_s.append(timed(torch_tournament(tscript)))
    p = statistics.median(pe_s)
    if torch_s:
        q = statistics.median(torch_s)
        ratio = statistics.median(t / e for t, e in zip(torch_s, pe_s))
        lines += ["Median of %d alternate rounds: pe-bench %.2f s (%s); %s %.1f s (%s): **%.2fx** "
                  "(the median of the rounds' own ratios)." % (
                      rounds, p, ", ".join("%.2f" % x for x in pe_s), TORCH_SIDE, q,
                      ", ".join("%.1f" % x for x in torch_s), ratio), ""]
    else:
        lines += ["pe-bench %.2f s (%s); %s not measured (no python3-torch%s)." % (
            p, ", ".join("%.2f" % x for x in pe_s), TORCH_SIDE,
            ", or no tournament_torch.py in --reference" if args.reference else ""), ""]

# 5. reading at 2,048
log("the char LM read at 2048")
windows = 16
res = subprocess.run(["/usr/bin/time", "-f", "%M %e", BIN, "eval", "--task", "charlm", "--checkpoint",
                      "results/charlm/runs/charlm/rope/seed0/checkpoint.json", "--lengths", "2048", "--set",
                      "val_windows=%d" % windows, "--out", tmp + "/e2048.json", "-q"],
                     capture_output=True, text=True, check=True)
kb, secs = res.stderr.strip().splitlines()[-1].split()
lines += ["## 5. The char LM read at 2,048 tokens (target: peak memory <= 1 GiB)", "",
          "%d validation windows of 2,048 (RoPE, the committed seed 0): peak resident memory %.0f MiB, %.2f s "
          "in all (%.0f ms per window, start-up and corpus included)." % (windows, int(kb) / 1024, float(secs),
                                                                         1e3 * float(secs) / windows), ""]

# 6. cached decoding
log("cached decoding")
dec = benchmarks("^BM_CachedDecode/")
lines += ["## 6. Cached decoding (RoPE char LM, 1 thread)", "",
          "| cached tokens | ms/token | µs per cached key | cache bytes per token | recompute / cached |",
          "|---|---|---|---|---|"]
for name, b in dec.items():
    n = int(b["cached_keys"])
    lines.append("| %d | %.3f | %.3f | %.0f | %.0fx |" % (n, b["real_time"], b["us/key"], b["cache_MB"] * 1e6 / n,
                                                       b["recompute/cached"]))
lines.append("")

# 7. the full width: AVX-512 against AVX2, alternately
lines += ["## 7. The full width (stretch): the AVX-512 matrix kernel against AVX2, same bits", ""]
if mc["gemm"] != "avx512":
    lines += ["This CPU runs the AVX2 kernel (%s): nothing to compare." % (
        "AVX-512 is present but the kernel was turned off" if mc["avx512"] else "no AVX-512"), ""]
else:
    w512, w256 = [], []
    for r in range(rounds):
        log("RoPE step, AVX-512 against AVX2, round %d/%d" % (r + 1, rounds))
        w256.append(benchmarks("^BM_CharLMTrainStep/rope/real_time$", avx512=False)["BM_CharLMTrainStep/rope"]["real_time"])
        w512.append(benchmarks("^BM_CharLMTrainStep/rope/real_time$")["BM_CharLMTrainStep/rope"]["real_time"])
    a, b = statistics.median(w256), statistics.median(w512)
    lines += ["Char-LM RoPE step, 2 threads, median of %d alternate rounds: AVX2 kernel %.1f ms (%s), AVX-512 kernel "
              "%.1f ms (%s): **%.2fx**. Every output is the same bits (each element: the same FMAs in the same "
              "k order; lanes run across columns only)." % (rounds, a, ", ".join("%.1f" % x for x in w256), b,
                                                             ", ".join("%.1f" % x for x in w512), a / b), ""]

# 8. coordinates as data (issue 48): one training chunk under each batch mode at equal token counts,
# each round running every mode of a scheme, the ratio taken within the round
lines += ["## 8. Coordinates: one training chunk per batch mode, 1 thread (targets: packed <= 1.05x, "
          "bidirectional <= 2.1x)", "",
          "Forward and backward of 4 sequences of 128 tokens (the char LM's model): default (positions 0..127 "
          "shared), per-row (the same positions given per token), packed (4 isolated documents of 32 per "
          "sequence, positions reset), bidirectional (every key visible; the model made for it). Median of %d "
          "rounds of each round's own ratio to default." % rounds, "",
          "| scheme | default ms | per-row / default | packed / default | bidirectional / default |",
          "|---|---|---|---|---|"]
chunk = []
for r in range(rounds):
    log("coordinates: one chunk per batch mode, round %d/%d" % (r + 1, rounds))
    chunk.append(benchmarks("^BM_CharLMChunk/", min_time=0.5 if args.quick else 1.0))
for scheme in sorted({n.split("/")[1] for n in chunk[0]}, key=lambda s: list(chunk[0]).index(
        "BM_CharLMChunk/%s/default" % s)):
    name = lambda mode: "BM_CharLMChunk/%s/%s" % (scheme, mode)  # noqa: E731
    ratio = lambda mode: statistics.median(x[name(mode)]["real_time"] / x[name("default")]["real_time"]  # noqa: E731
                                           for x in chunk)
    lines.append("| %s | %.2f | %.2fx | %.2fx | %.2fx |" % (
        scheme, statistics.median(x[name("default")]["real_time"] for x in chunk), ratio("per-row"), ratio("packed"),
        ratio("bidirectional")))
lines += ["", "Each block of query rows scores only the span of keys its rows can see (models/attention_dense.cpp), "
          "so isolation narrows the work rather than masking a full square.", ""]

text = "\n".join(lines)
print(text)
if args.out:
    with open(args.out, "w") as f:
        f.write(text)
