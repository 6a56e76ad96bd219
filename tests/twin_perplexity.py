#!/usr/bin/python3
"""The PyTorch twin (python/pebench_torch) against pe-bench: for each of the
published five schemes, the committed char-LM checkpoint is exported (`pe-bench export`), loaded
into the twin, and read on the experiment's 3000 validation windows at 128, averaged as pe-bench
averages (exp of the mean over batches of eval_batch windows of each batch's mean loss); the
perplexity must equal results/charlm/results.json's to a relative 1e-6 (float32 arithmetic in a
different order). Then a txl trained with Transformer-XL's memory (results/txl-memory) read plainly and in
segments with its memory at 512, against that experiment's rows. Exit 0 when every scheme agrees, 1 otherwise, 77 (one line) without python3-torch.
Usage: tests/twin_perplexity.py path/to/pe-bench"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import torch
except ImportError:
    print("twin_perplexity: skipped: python3-torch is not installed (scripts/install-deps.sh installs it)")
    sys.exit(77)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from pebench_torch import load_model  # noqa: E402
from pebench_torch.charlm import char_ids, perplexity, segment_perplexity  # noqa: E402

binary = sys.argv[1]
results = json.load(open("results/charlm/results.json"))
e = results["experiment"]
T = 128
text = open(e["corpus"]).read()
torch.set_num_threads(1)  # ctest -j runs another test on the other core (CMakeLists.txt)
failures = 0
for scheme in ["none", "sinusoidal", "learned", "rope", "alibi"]:
    row = next(r for r in results["rows"] if r["scheme"] == scheme and r["map"] == "none" and not r.get("finetuned")
               and not r.get("band"))
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([binary, "export", "--checkpoint", row["checkpoint"], "--out", tmp], check=True,
                       stdout=subprocess.DEVNULL)
        model = load_model(tmp)
    ids = char_ids(text, model.config["pe_bench_checkpoint"]["vocab"])
    twin = perplexity(model, ids, e["val_start"], e["val_windows"], T, e["eval_batch"])
    ours = row["perplexity"][results["lengths"].index(T)]
    ok = abs(twin / ours - 1) <= 1e-6
    failures += not ok
    print("twin_perplexity: %-10s twin %.7f  pe-bench %.7f  relative %.1e %s" % (scheme, twin, ours, abs(twin / ours - 1),
                                                                              "" if ok else "FAIL"))
# Transformer-XL's memory: a txl trained with mem_len 128 (results/txl-memory), read plainly and in segments of
# 128 with its memory, at 512 on that experiment's 160 windows
mem_results = json.load(open("results/txl-memory/memory/results.json"))
me = mem_results["experiment"]
for row in mem_results["rows"]:
    if row["seed"] != 0:
        continue
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([binary, "export", "--checkpoint", row["checkpoint"], "--out", tmp], check=True,
                       stdout=subprocess.DEVNULL)
        model = load_model(tmp)
    ids = char_ids(text, model.config["pe_bench_checkpoint"]["vocab"])
    L = 512
    if row.get("memory"):
        twin = segment_perplexity(model, ids, me["val_start"], me["val_windows"], L, me["eval_batch"], me["train_length"],
                                  row["memory"])
    else:
        twin = perplexity(model, ids, me["val_start"], me["val_windows"], L, me["eval_batch"])
    ours = row["perplexity"][mem_results["lengths"].index(L)]
    ok = abs(twin / ours - 1) <= 1e-6
    failures += not ok
    label = "txl" + (" (memory %d)" % row["memory"] if row.get("memory") else "")
    print("twin_perplexity: %-17s at %d twin %.7f  pe-bench %.7f  relative %.1e %s" % (
        label, L, twin, ours, abs(twin / ours - 1), "" if ok else "FAIL"))
sys.exit(1 if failures else 0)
