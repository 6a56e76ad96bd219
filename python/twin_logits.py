#!/usr/bin/python3
"""The logits of an export read by the PyTorch twin (python/pebench_torch), for `pe-bench doctor --twin`'s
twin row (docs/doctor.md). Usage: twin_logits.py EXPORT_DIR TOKENS_JSON OUT: TOKENS_JSON holds {"tokens": [[...],
...], "p0": p0} (B sequences of T tokens at positions p0 .. p0+T-1); OUT gets the logits as little-endian float32 ([B, T, vocab]
for a block stack, [B, classes] at the last row for a cue head). Needs Debian's python3-torch: exit 3 without it."""
import json
import os
import struct
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main(argv):
    if len(argv) != 4:
        print("usage: twin_logits.py EXPORT_DIR TOKENS_JSON OUT", file=sys.stderr)
        return 2
    try:
        import torch
    except ImportError as e:
        print("twin_logits.py: this python3 (%s) cannot import torch (%s); apt-get install python3-torch"
              % (sys.executable, e), file=sys.stderr)
        return 3
    from pebench_torch import load_model
    torch.set_num_threads(1)
    with open(argv[2]) as f:
        batch = json.load(f)
    x = torch.tensor(batch["tokens"], dtype=torch.long)
    positions = torch.arange(x.shape[1]) + int(batch.get("p0", 0))
    model = load_model(argv[1])
    with torch.no_grad():
        logits = model(x, positions=positions).to(torch.float32).reshape(-1).tolist()
    with open(argv[3], "wb") as f:
        f.write(struct.pack("<%df" % len(logits), *logits))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
