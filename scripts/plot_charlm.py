#!/usr/bin/python3
"""Plot the character LM's results: perplexity by context, and loss by position at the longest context.

Usage: scripts/plot_charlm.py [results/charlm/results.json] [out.png]
Needs matplotlib (scripts/install-deps.sh --with-plots).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

path = sys.argv[1] if len(sys.argv) > 1 else "results/charlm/results.json"
out = sys.argv[2] if len(sys.argv) > 2 else path.rsplit("/", 1)[0] + "/charlm.png"
r = json.load(open(path))


def label(row):
    s = row["scheme"]
    if row["map"] != "none":
        s += "+" + row["map"]
    if row["finetuned"]:
        s += " (ft)"
    if row["band"]:
        s += " (band %d)" % row["band"]
    return s


fig, (a, b) = plt.subplots(1, 2, figsize=(13, 4.8))
for row in r["rows"]:
    xs = [n for n, p in zip(r["lengths"], row["perplexity"]) if p is not None]
    ys = [p for p in row["perplexity"] if p is not None]
    a.plot(xs, ys, marker="o", label=label(row))
a.set_xscale("log", base=2)
a.set_yscale("log")
a.set_xticks(r["lengths"], [str(n) for n in r["lengths"]])
a.axvline(r["train_length"], color="grey", lw=0.8, ls=":")
a.set_xlabel("context")
a.set_ylabel("validation perplexity")
a.set_title("perplexity by context (trained at %d)" % r["train_length"])
pl = r["position_loss"]
w = pl["window"]
for row in pl["rows"]:
    xs = [i * w + w / 2 for i in range(len(row["bins"]))]
    b.plot(xs, row["bins"], label=row["label"])
b.axvline(r["train_length"], color="grey", lw=0.8, ls=":")
b.set_xlabel("position (bins of %d)" % w)
b.set_ylabel("mean cross-entropy")
b.set_title("loss by position at context %d" % pl["length"])
b.set_ylim(top=min(6.0, b.get_ylim()[1]))
b.legend(fontsize=7, ncol=2)
fig.tight_layout()
fig.savefig(out, dpi=110)
print(out)
