#!/usr/bin/python3
"""The window order of the d2l TinyCharLM recipe in PyTorch, for `--set train_order=FILE`.

The published char-LM runs train in PyTorch: torch.manual_seed(seed), then the model is built (its
initialisation draws from the global generator), then a DataLoader over the training windows
(batch 64, shuffle=True) is iterated for `steps` steps. Its RandomSampler draws one seed from the
global generator at the start of each epoch, so the order is a function of the seed and of how many
numbers the model's initialisation drew. This script builds a model of the recipe's shapes (token
embedding V x 128 drawn twice: nn.Embedding's own init, then N(0, 0.02^2); per block a 128 -> 384
and a 128 -> 128 nn.Linear without bias; a `learned` model also a 512 x 128 table) in the recipe's
order, then writes the loader's window starts, one list per step (the last batch of an epoch is
partial: 100000 windows = 1562 x 64 + 32), as JSON.

Needs python3-torch (Debian). Usage:
  scripts/torch_window_order.py --seed 1 --out data/orders/torch-rope-seed1.json
"""
import argparse
import json
import os
import sys

import torch
from torch import nn


def window_order(seed, steps, batch, windows, vocab, hidden, blocks, scheme):
    torch.manual_seed(seed)
    emb = nn.Embedding(vocab, hidden)
    nn.init.normal_(emb.weight, std=0.02)
    if scheme == "learned":
        table = nn.Embedding(512, hidden)
        nn.init.normal_(table.weight, std=0.02)
    for _ in range(blocks):
        nn.Linear(hidden, 3 * hidden, bias=False)
        nn.Linear(hidden, hidden, bias=False)
    starts = torch.arange(windows)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(starts), batch_size=batch, shuffle=True)
    order = []
    while len(order) < steps:
        for (s,) in loader:
            order.append(s.tolist())
            if len(order) == steps:
                break
    return order


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--windows", type=int, default=100000)
    ap.add_argument("--vocab", type=int, default=28)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--blocks", type=int, default=2)
    ap.add_argument("--scheme", default="rope", help="the model whose initialisation precedes the loader "
                    "(only 'learned' draws more)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    order = window_order(a.seed, a.steps, a.batch, a.windows, a.vocab, a.hidden, a.blocks, a.scheme)
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(order, f, separators=(",", ":"))
    os.replace(tmp, a.out)
    print("%s: %d steps, %d windows (torch %s, seed %d)" % (a.out, len(order), sum(map(len, order)),
                                                          torch.__version__, a.seed), file=sys.stderr)


if __name__ == "__main__":
    main()
