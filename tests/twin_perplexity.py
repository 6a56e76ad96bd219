#!/usr/bin/python3
"""The PyTorch twin (python/pebench_torch, issue 28, in progress) against pe-bench: for each of the
published five schemes, the committed char-LM checkpoint is exported (`pe-bench export`), loaded
into the twin, and read on the experiment's 3000 validation windows at 128, averaged as pe-bench
averages (exp of the mean over batches of eval_batch windows of each batch's mean loss); the
perplexity must equal results/charlm/results.json's to a relative 1e-6 (float32 arithmetic in a
different order). Exit 0 when every scheme agrees, 1 otherwise, 77 (one line) without python3-torch.
Usage: tests/twin_perplexity.py path/to/pe-bench"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

try:
    import torch
except ImportError:
    print("twin_perplexity: skipped: python3-torch is not installed (scripts/install-deps.sh installs it)")
    sys.exit(77)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from pebench_torch import BlockStack, load_export  # noqa: E402

binary = sys.argv[1]
results = json.load(open("results/charlm/results.json"))
e = results["experiment"]
T, start, n, batch = 128, e["val_start"], e["val_windows"], e["eval_batch"]
text = open(e["corpus"]).read()
pre = re.sub(r"[^A-Za-z]+", " ", text).lower()  # d2l's preprocessing (docs/tasks.md)
torch.set_num_threads(2)
failures = 0
for scheme in ["none", "sinusoidal", "learned", "rope", "alibi"]:
    row = next(r for r in results["rows"] if r["scheme"] == scheme and r["map"] == "none" and not r.get("finetuned")
               and not r.get("band"))
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([binary, "export", "--checkpoint", row["checkpoint"], "--out", tmp], check=True,
                       stdout=subprocess.DEVNULL)
        config, tensors = load_export(tmp)
    vocab = config["pe_bench_checkpoint"]["vocab"]
    ids = torch.tensor([vocab.index(c) if c in vocab else 1 for c in pre[:start + n + T + 1]])
    model = BlockStack(config, tensors)
    means = []
    with torch.no_grad():
        for b in range(0, n, batch):
            w = range(b, min(b + batch, n))
            x = torch.stack([ids[start + i:start + i + T] for i in w])
            y = torch.stack([ids[start + i + 1:start + i + T + 1] for i in w])
            logits = model(x)
            means.append(torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1),
                                                           reduction="none").double().mean().item())
    twin = math.exp(sum(means) / len(means))
    ours = row["perplexity"][results["lengths"].index(T)]
    ok = abs(twin / ours - 1) <= 1e-6
    failures += not ok
    print("twin_perplexity: %-10s twin %.7f  pe-bench %.7f  relative %.1e %s" % (scheme, twin, ours, abs(twin / ours - 1),
                                                                              "" if ok else "FAIL"))
sys.exit(1 if failures else 0)
