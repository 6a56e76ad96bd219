#!/usr/bin/python3
"""Issue 30's Transformer-XL memory experiment in one file: results/txl-memory/summary.json and summary.md.

Reads DIR/memory/results.json (experiments/txl-memory.json: txl trained with segment recurrence,
mem_len 128, read plainly and in segments with the memory), DIR/memoryless/results.json
(experiments/txl-memoryless.json: txl and ALiBi without memory) and, for RoPE on the same validation
windows, results/rope-base/base-10000/results.json. Every number is copied from those files: the means
and 95% intervals are pe-bench's own (the results' summary rows). plot.py draws
results/figures/txl_memory.png from summary.json.
Usage: scripts/txl_memory_summary.py [DIR] [ROPE_RESULTS]"""
import json
import os
import sys

sys.dont_write_bytecode = True  # the shared module leaves no __pycache__ in scripts/
from summaries import fail, head, mean_pm, row, write_set  # noqa: E402

SCRIPT = "txl_memory_summary.py"


def readers(path, tag):
    r = json.load(open(path))
    out = []
    for g in r["summary"]:
        if g.get("band") or g["finetuned"] or g["map"] != "none":
            continue
        out.append({"label": g["label"], "source": tag, "seeds": g["seeds"], "mean": g["mean"],
                    "half_width": g["half_width"]})
    return r, out


def describe(rd):
    memory = rd["source"] == "memory"
    if rd["label"].startswith("txl (memory"):
        return "txl, trained with memory, read in segments of 128 with a memory of %s" % rd["label"].split()[-1][:-1]
    if rd["label"] == "txl":
        return "txl, trained with memory, read plainly (one forward over the window)" if memory else \
            "txl without memory (the four-term score alone), read plainly"
    return rd["label"] + (" (results/rope-base, base 10^4)" if rd["source"] == "rope-base" else "")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "results/txl-memory"
    rope = sys.argv[2] if len(sys.argv) > 2 else "results/rope-base/base-10000/results.json"
    rows, lengths, train_len, sources = [], None, None, []
    for tag, path in (("memory", os.path.join(root, "memory", "results.json")),
                      ("memoryless", os.path.join(root, "memoryless", "results.json")), ("rope-base", rope)):
        if not os.path.exists(path):
            print("%s: %s is absent; its readers are left out" % (SCRIPT, path))
            continue
        r, out = readers(path, tag)
        if lengths is not None and r["lengths"] != lengths:
            fail(SCRIPT, "%s is read at %s, the others at %s" % (path, r["lengths"], lengths))
        lengths, train_len = r["lengths"], r["train_length"]
        for rd in out:
            rd["name"] = describe(rd)
        rows += out
        sources.append(path)
    if not rows:
        fail(SCRIPT, "no results under %s: run scripts/txl-memory.sh first" % root)
    out = {"lengths": lengths, "train_length": train_len, "readers": rows, "sources": sources}
    md = ["# Transformer-XL with its memory against the memory-less txl, ALiBi and RoPE",
          "",
          "Written by scripts/txl_memory_summary.py (scripts/txl-memory.sh). The char LM trained at %d; validation "
          "perplexity on 160 windows per length, mean of seeds ± the half-width of its 95%% interval (t over "
          "seeds). The memory runs train on batch_size streams of consecutive segments of %d, each attending to "
          "the 128 cached states of its stream before it (no gradient into them)." % (train_len, train_len),
          ""] + head(["reader", "seeds"] + lengths)
    for rd in rows:
        md.append(row([rd["name"], len(rd["seeds"])] + [mean_pm(m, h) for m, h in zip(rd["mean"], rd["half_width"])]))
    write_set(root, out, md)


if __name__ == "__main__":
    main()
