#!/usr/bin/python3
"""Summarise the char LM's RoPE draws (scripts/charlm-rope-draws.sh): every run's perplexity at
128/256/512 and final training loss, in pe-bench's own window order and in the PyTorch recipe's,
beside the published runs; the spread over draws, and how the extrapolation follows the final
training loss (Pearson and Spearman correlation of log perplexity at 512 with the final loss).

Usage: scripts/charlm_draws_summary.py results/charlm-rope-draws
Writes DIR/summary.json and DIR/summary.md; exits 4 with one line if a results file is missing or
lacks what it reads.
"""
import glob
import json
import math
import os
import statistics
import sys

sys.dont_write_bytecode = True  # the shared module leaves no __pycache__ in scripts/
import summaries  # noqa: E402


def fail(msg):
    summaries.fail("charlm_draws_summary.py", msg, 4)


def draws_of(path, order):
    try:
        r = json.load(open(path))
        loss = {(t["scheme"], t["seed"]): t["final_loss"] for t in r["training"]}
        out = []
        for row in r["rows"]:
            if row["scheme"] != "rope" or row["map"] != "none" or row["finetuned"] or row["band"]:
                continue
            out.append({"order": order, "seed": row["seed"], "lengths": r["lengths"],
                        "perplexity": row["perplexity"], "final_loss": loss[("rope", row["seed"])],
                        "train_order": r["experiment"].get("train_order", "")})
        return out
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail("%s: %s (run scripts/charlm-rope-draws.sh)" % (path, e))


def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    for k, i in enumerate(order):
        r[i] = float(k)
    return r


def pearson(a, b):
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    sab = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    return sab / math.sqrt(sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b))


def draw_figure(draws, ref, i512, path):
    """Perplexity at 512 (log scale) against the final training loss, one point per draw."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    fig, ax = plt.subplots(figsize=(7.0, 5.0))
    for order, colour, marker in (("pe-bench", "tab:blue", "o"), ("PyTorch recipe", "tab:orange", "s")):
        pts = [x for x in draws if x["order"] == order]
        ax.scatter([x["final_loss"] for x in pts], [x["perplexity"][i512] for x in pts], c=colour, marker=marker,
                   label="%s window order (pe-bench's initial weights)" % order)
        for x in pts:
            ax.annotate("s%d" % x["seed"], (x["final_loss"], x["perplexity"][i512]), fontsize=8,
                        xytext=(4, 3), textcoords="offset points")
    ax.scatter([ref["final_loss"]["rope"]], [ref["pytorch"]["rope"][2]], facecolors="none", edgecolors="k",
               marker="D", s=60, label="published PyTorch run")
    ax.axhline(ref["jax"]["rope"][2], color="grey", ls=":", lw=1, label="published JAX run (no final loss given)")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.yaxis.set_minor_formatter(matplotlib.ticker.ScalarFormatter())
    ax.set_xlabel("final training loss (nats; pe-bench: mean of the last 50 steps, published: last 100)")
    ax.set_ylabel("validation perplexity at 512 (log scale)")
    ax.set_title("Char-LM RoPE trained at 128, read at 512: every draw", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=100)
    os.replace(tmp, path)
    plt.close(fig)


def main():
    if len(sys.argv) != 2:
        fail("usage: charlm_draws_summary.py DIR")
    d = sys.argv[1]
    draws = draws_of(os.path.join(d, "own-order", "results.json"), "pe-bench")
    for p in sorted(glob.glob(os.path.join(d, "torch-order-seed*", "results.json"))):
        draws += draws_of(p, "PyTorch recipe")
    if len(draws) < 3:
        fail("%s: fewer than 3 draws" % d)
    ref = json.load(open("experiments/reference/charlm.json"))
    i512 = draws[0]["lengths"].index(512)
    loss = [x["final_loss"] for x in draws]
    log512 = [math.log(x["perplexity"][i512]) for x in draws]
    summary = {"draws": draws, "pearson_final_loss_log_ppl512": pearson(loss, log512),
               "spearman_final_loss_log_ppl512": pearson(ranks(loss), ranks(log512)),
               "published": {"pytorch": ref["pytorch"]["rope"], "jax": ref["jax"]["rope"],
                             "final_loss": ref["final_loss"]["rope"]}}
    lines = ["# The char LM's RoPE over draws: initial weights x window order", "",
             "Every RoPE run trained by the published recipe (3,000 steps, batch 64, context 128), read at "
             "128/256/512 on the 3,000 validation windows. *pe-bench* order: the run's seeded shuffle; "
             "*PyTorch recipe*: the data loader order of `torch.manual_seed(seed)` after the recipe's model "
             "is built (`scripts/torch_window_order.py`), with pe-bench's initial weights of the same seed.", "",
             "| window order | seed | 128 | 256 | 512 | final training loss |", "|---|---|---|---|---|---|"]
    for x in sorted(draws, key=lambda x: (x["order"] != "pe-bench", x["seed"])):
        lines.append("| %s | %d | %s | %.3f |" % (x["order"], x["seed"],
                                                  " | ".join("%.2f" % p for p in x["perplexity"]), x["final_loss"]))
    lines.append("| published PyTorch run | | %s | %.2f |" % (" | ".join("%.1f" % p for p in ref["pytorch"]["rope"]),
                                                              ref["final_loss"]["rope"]))
    lines.append("| published JAX run | | %s | |" % " | ".join("%.1f" % p for p in ref["jax"]["rope"]))
    own = [x["perplexity"][i512] for x in draws if x["order"] == "pe-bench"]
    lines += ["", "Perplexity at 512 over the %d pe-bench-order draws: median %.2f, range %.2f-%.2f; over every "
              "draw: median %.2f, range %.2f-%.2f." % (len(own), statistics.median(own), min(own), max(own),
                                                       statistics.median([math.exp(v) for v in log512]),
                                                       math.exp(min(log512)), math.exp(max(log512))),
              "Correlation of log perplexity at 512 with the final training loss over the %d draws: Pearson %.2f, "
              "Spearman %.2f (%s)."
              % (len(draws), summary["pearson_final_loss_log_ppl512"], summary["spearman_final_loss_log_ppl512"],
                 "a lower final loss goes with a worse reading past the training length"
                 if summary["pearson_final_loss_log_ppl512"] < 0 else
                 "a lower final loss goes with a better reading past the training length")]
    draw_figure(draws, ref, i512, os.path.join(d, "draws.png"))
    summaries.write_set(d, summary, lines, report=False)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
