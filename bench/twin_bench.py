#!/usr/bin/python3
"""The PyTorch side of `make bench` (bench/report.py), from the repository alone: the project's PyTorch
twin (python/pebench_torch) trained by PyTorch's autograd and optimiser on the same model and recipe
pe-bench's benchmark uses. The model comes from a `pe-bench export` of a committed checkpoint (the
architecture; the work per step does not depend on the weights). Prints one JSON object.

  step:        the char-LM training step, B 64 / T 128: forward, mean cross-entropy, backward, Adam
               (lr 1e-3, betas 0.9/0.999, eps 1e-8, no weight decay, no clipping: experiments/charlm.json),
               random tokens; --steps timed after 3 warm-up steps; the median in ms.
  tournament:  the tournament's five published schemes x 3 seeds (experiments/tournament.json: a cue
               head of width 16, Adam lr 1e-2, batch 256 at length 32, 1,500 steps; then 10,000 test
               sequences at 32, 64, 128, 256, RoPE also under three maps, the learned table only within
               its rows), seconds in all. The cue batches are drawn here (8 symbols, marked with p 0.1,
               one forced mark, the query last) with torch's generator, not pe-bench's draws; the maps
               are read through rope_scaling dictionaries (linear, dynamic, yarn), the same work as
               pe-bench's pi, ntk and yarn. pe-bench's run also does the geometry and the exact reader;
               this does not.

Usage: bench/twin_bench.py step PE_BENCH [--threads N] [--steps N]
       bench/twin_bench.py tournament PE_BENCH [--threads N] [--steps N] [--test-sequences N]"""
import argparse
import atexit
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# Tiny products: one BLAS thread per torch thread. OpenBLAS 0.3.21 (Debian's) does not recognise every
# AVX-512 CPU and then runs a generic kernel: name the AVX-512 one where the CPU has the instructions.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
if "avx512f" in open("/proc/cpuinfo").read():
    os.environ.setdefault("OPENBLAS_CORETYPE", "SkylakeX")

import torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from pebench_torch import load_model  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("what", choices=["step", "tournament"])
ap.add_argument("binary")
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--steps", type=int, default=0, help="step: steps timed (default 10); tournament: training steps "
                                                     "(default 1500)")
ap.add_argument("--test-sequences", type=int, default=10000)
args = ap.parse_args()
torch.set_num_threads(args.threads)
work = tempfile.mkdtemp(prefix="twin_bench.")
atexit.register(shutil.rmtree, work, True)


def exported(checkpoint):
    out = os.path.join(work, "export")
    subprocess.run([args.binary, "export", "--checkpoint", checkpoint, "--out", out], check=True,
                   stdout=subprocess.DEVNULL)
    return load_model(out)


def adam(model, lr):
    return torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0)


def train_step(model, opt, x, y):
    logits = model(x)
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


def charlm_step():
    model = exported("results/charlm/runs/charlm/rope/seed0/checkpoint.json")
    opt = adam(model, 1e-3)
    g = torch.Generator().manual_seed(1)
    vocab = model.config["vocab_size"]
    x, y = (torch.randint(0, vocab, (64, 128), generator=g) for _ in range(2))
    times = []
    for i in range(3 + (args.steps or 10)):
        t0 = time.perf_counter()
        train_step(model, opt, x, y)
        if i >= 3:
            times.append(time.perf_counter() - t0)
    return {"train_step_ms_median": 1e3 * statistics.median(times), "steps": len(times),
            "threads": torch.get_num_threads()}


def cue_batch(B, n, alphabet, g):
    """(tokens [B, n], targets [B]): n-1 content tokens (symbol + alphabet * marked) then the query (2A)."""
    sym = torch.randint(0, alphabet, (B, n - 1), generator=g)
    mark = torch.rand(B, n - 1, generator=g) < 0.1
    none = ~mark.any(1)
    forced = torch.randint(0, n - 1, (B,), generator=g)
    mark[none, forced[none]] = True
    last = (n - 2) - mark.flip(1).int().argmax(1)
    x = torch.cat([sym + alphabet * mark.long(), torch.full((B, 1), 2 * alphabet)], dim=1)
    return x, sym[torch.arange(B), last]


def tournament():
    lengths, maps = [32, 64, 128, 256], [{"rope_type": "linear"}, {"rope_type": "dynamic"}, {"rope_type": "yarn"}]
    steps = args.steps or 1500
    t0 = time.perf_counter()
    for scheme in ["none", "sinusoidal", "learned", "rope", "alibi"]:
        for seed in range(3):
            model = exported("results/tournament/runs/cue/%s/seed%d/checkpoint.json" % (scheme, seed))
            alphabet = model.config["pe_bench_checkpoint"]["model"]["alphabet"]
            g = torch.Generator().manual_seed(seed)
            opt = adam(model, 1e-2)
            for _ in range(steps):
                train_step(model, opt, *cue_batch(256, 32, alphabet, g))
            rows = model.p("pos.table.weight").shape[0] if scheme == "learned" else None
            test = torch.Generator().manual_seed(777)
            with torch.no_grad():
                for n in lengths:
                    if rows is not None and n > rows:
                        continue  # past the learned table: not readable
                    x, y = cue_batch(args.test_sequences, n, alphabet, test)
                    readings = [None] + (maps if scheme == "rope" else [])
                    for m in readings:
                        if m is not None:
                            plan = dict(m, factor=n / 32, original_max_position_embeddings=32)
                            model.set_plan({"rope_scaling": plan, "original": 32, "length": n})
                        for b in range(0, len(x), 1000):
                            (model(x[b:b + 1000]).argmax(-1) == y[b:b + 1000]).float().mean()
                    if scheme == "rope":
                        model.set_plan({"rope_scaling": None, "original": 32, "length": n})
    return {"seconds": time.perf_counter() - t0, "steps": steps, "threads": torch.get_num_threads()}


print(json.dumps(charlm_step() if args.what == "step" else tournament()))
