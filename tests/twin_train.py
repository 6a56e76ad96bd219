#!/usr/bin/python3
"""The way back from PyTorch: a committed char LM (RoPE, and T5 for a scheme with its own table) is
exported, trained further in PyTorch with the twin (python/pebench_torch: 30 Adam steps on random
training windows of The Time Machine), saved as an export (save_export), imported into pe-bench
(`pe-bench import`) and read by `pe-bench eval` at 128 on 256 validation windows. pe-bench's
perplexity must equal the one PyTorch computes on the same windows, averaged the same way (exp of the
mean over batches of eval_batch windows of each batch's mean loss), to a relative 1e-5 (float32 in
another order), and differ from the untrained model's (the steps changed the weights).
Exit 0 when both agree, 1 otherwise, 77 (one line) without python3-torch.
Usage: tests/twin_train.py path/to/pe-bench"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import torch
except ImportError:
    print("twin_train: skipped: python3-torch is not installed (scripts/install-deps.sh installs it)")
    sys.exit(77)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from pebench_torch import load_model, save_export  # noqa: E402
from pebench_torch.charlm import char_ids, perplexity  # noqa: E402

binary = sys.argv[1]
T, WINDOWS, STEPS = 128, 256, 30
torch.set_num_threads(1)  # ctest -j runs another test on the other core (CMakeLists.txt)
failures = 0


def pebench_perplexity(checkpoint, out):
    subprocess.run([binary, "eval", "--task", "charlm", "--checkpoint", checkpoint, "--lengths", str(T), "--set",
                    "val_windows=%d" % WINDOWS, "--out", out, "-q"], check=True, stdout=subprocess.DEVNULL)
    r = json.load(open(out))
    return r["rows"][0]["perplexity"][0], r["experiment"]


with tempfile.TemporaryDirectory() as tmp:
    for scheme in ["rope", "t5"]:
        original = "results/charlm-quick/runs/charlm/%s/seed0/checkpoint.json" % scheme
        subprocess.run([binary, "export", "--checkpoint", original, "--out", tmp + "/a"], check=True,
                       stdout=subprocess.DEVNULL)
        before, e = pebench_perplexity(original, tmp + "/before.json")
        model = load_model(tmp + "/a")
        ids = char_ids(open(e["corpus"]).read(), model.config["pe_bench_checkpoint"]["vocab"])
        # a few steps of training in PyTorch, on windows before the validation part
        torch.manual_seed(0)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        for step in range(STEPS):
            starts = torch.randint(0, e["val_start"] - T - 1, (8,))
            x = torch.stack([ids[s:s + T] for s in starts])
            y = torch.stack([ids[s + 1:s + T + 1] for s in starts])
            logits = model(x)
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
        save_export(model, tmp + "/b", training={"continued_in": "PyTorch (tests/twin_train.py)", "steps": STEPS,
                                                 "lr": 1e-3, "batch_size": 8})
        subprocess.run([binary, "import", "--from", tmp + "/b", "--out", tmp + "/trained.json"], check=True,
                       stdout=subprocess.DEVNULL)
        ours, _ = pebench_perplexity(tmp + "/trained.json", tmp + "/after.json")
        theirs = perplexity(model, ids, e["val_start"], WINDOWS, T, e["eval_batch"])
        ok = abs(ours / theirs - 1) <= 1e-5 and abs(ours / before - 1) > 1e-3
        failures += not ok
        print("twin_train: %-5s before %.5f; after %d PyTorch steps: PyTorch %.7f, pe-bench eval of the import %.7f, "
              "relative %.1e %s" % (scheme, before, STEPS, theirs, ours, abs(ours / theirs - 1), "" if ok else "FAIL"))
sys.exit(1 if failures else 0)
