"""The char LM's text and its perplexity, as pe-bench computes them (docs/tasks.md), for a twin."""
import math
import re

import torch


def char_ids(text, vocab):
    """d2l's preprocessing (letters only, lower case, runs of anything else one space), then the ids
    of the checkpoint's vocabulary (config.json pe_bench_checkpoint.vocab; <unk>, id 1, for the rest)."""
    pre = re.sub(r"[^A-Za-z]+", " ", text).lower()
    index = {c: i for i, c in enumerate(vocab)}
    return torch.tensor([index.get(c, 1) for c in pre])


def _batches(ids, start, windows, length, batch):
    """The validation windows start, start + 1, ... in batches of `batch`: (x, y), each [n, length]."""
    for b in range(0, windows, batch):
        w = range(b, min(b + batch, windows))
        yield (torch.stack([ids[start + i:start + i + length] for i in w]),
               torch.stack([ids[start + i + 1:start + i + length + 1] for i in w]))


def perplexity(model, ids, start, windows, length, batch):
    """exp of the mean over batches of `batch` windows (the last one partial) of each batch's mean
    next-token loss, over the windows starting at start, start + 1, ..., start + windows - 1: the
    average pe-bench's evaluation reports (val_start, val_windows, eval_batch)."""
    means = []
    with torch.no_grad():
        for x, y in _batches(ids, start, windows, length, batch):
            logits = model(x)
            means.append(torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1),
                                                           reduction="none").double().mean().item())
    return math.exp(sum(means) / len(means))


def segment_perplexity(model, ids, start, windows, length, batch, segment, mem_len):
    """The same average over windows each read in segments of `segment` tokens, every segment
    attending to the states of the last mem_len tokens before it (Transformer-XL's reading)."""
    means = []
    with torch.no_grad():
        for x, y in _batches(ids, start, windows, length, batch):
            memory, losses = None, []
            for s0 in range(0, length, segment):
                logits = model(x[:, s0:s0 + segment], memory=memory)
                losses.append(torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                                                y[:, s0:s0 + segment].reshape(-1), reduction="none"))
                states = model.block_inputs if memory is None else [torch.cat([m, h], dim=1) for m, h in
                                                                     zip(memory, model.block_inputs)]
                memory = [t[:, -mem_len:] for t in states]
            means.append(torch.cat(losses).double().mean().item())
    return math.exp(sum(means) / len(means))
