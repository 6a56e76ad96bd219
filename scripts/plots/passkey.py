"""Passkey retrieval's figures: passkey_accuracy, passkey_heatmaps (also drawn for the
context-extension and hybrid readers) and passkey_training (the runs' metrics.jsonl)."""
import json
import os

import matplotlib.patches
import matplotlib.ticker

from .load import ABSENT, ACCURACY, HALF_WIDTH, DataError, List, Map, Num, Obj, Str
from .style import SIZE, interval_ends, plt


def check_passkey_results(r):
    """What passkey_accuracy and passkey_heatmaps read of a passkey results.json."""
    n_len = len(r["lengths"]) if isinstance(r, dict) and isinstance(r.get("lengths"), list) else None
    n_dep = len(r["depths"]) if isinstance(r, dict) and isinstance(r.get("depths"), list) else None
    why_l, why_d = " (one per length)", " (one per depth)"
    Obj({"lengths": List(Num(lo=2, integer=True), nonempty=True), "depths": List(Num(lo=0, hi=1), nonempty=True),
         "train_length": Num(lo=2, integer=True), "passkey?": Obj({"symbols?": Num(lo=1, integer=True)}),
         "rows": List(Obj({"scheme": Str(), "map": Str(), "accuracy": List(ACCURACY, n_len, why_l),
                           "half_width?": List(HALF_WIDTH, n_len, why_l),
                           "lo?": List(ACCURACY, n_len, why_l), "hi?": List(ACCURACY, n_len, why_l),
                           "depth_grid": List(List(ACCURACY, n_dep, why_d, null=True), n_len, why_l),
                           "whole": List(List(List(ACCURACY, n_dep, why_d, null=True), n_len, why_l))}),
                      nonempty=True)}).check(r, "")


def check_passkey_runs(runs):
    """What passkey_training reads: {scheme: {seed: [[step, loss], ...]}} gathered from the runs."""
    Map(Map(List(List(Num(), 2), nonempty=True))).check(runs, "")


def load_passkey_runs(root):
    """The answer loss of every passkey run under root (<scheme>/seed<N>/metrics.jsonl), or ABSENT when there
    are none."""
    if not os.path.isdir(root):
        return ABSENT
    runs = {}
    for scheme in sorted(os.listdir(root)):
        for seed in sorted(os.listdir(os.path.join(root, scheme))):
            path = os.path.join(root, scheme, seed, "metrics.jsonl")
            if not seed.startswith("seed") or not os.path.isfile(path):
                continue
            points = []
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    try:
                        m = json.loads(line)
                        points.append([m["step"], m["loss_avg"]])
                    except (ValueError, KeyError, TypeError):
                        raise DataError("%s line %d is not a metrics line (step, loss_avg)" % (path, n))
            if points:
                runs.setdefault(scheme, {})[seed[4:]] = points
    return runs or ABSENT


def passkey_label(row):
    return row["scheme"] if row["map"] == "none" else row["scheme"] + " + " + row["map"]


def fig_passkey_accuracy(r):
    fig, ax = plt.subplots(figsize=SIZE)
    xs = r["lengths"]
    cmap = plt.get_cmap("tab20")
    for i, row in enumerate(r["rows"]):
        color = cmap(i % 20)
        ends = interval_ends(row, "accuracy") or [(None, None)] * len(xs)
        pts = [(x, m, e) for x, m, e in zip(xs, row["accuracy"], ends) if m is not None]
        if not pts:
            continue
        style = "-" if row["map"] == "none" else "--"
        ax.errorbar([p[0] for p in pts], [p[1] for p in pts],
                    yerr=[[p[2][0] or 0 for p in pts], [p[2][1] or 0 for p in pts]], fmt=style + "o", ms=3,
                    capsize=2, color=color, label=passkey_label(row), lw=1.2)
        for seed in row["whole"]:
            ys = [(x, sum(g) / len(g)) for x, g in zip(xs, seed) if g is not None]
            ax.plot([p[0] for p in ys], [p[1] for p in ys], ".", color=color, ms=2, alpha=0.6)
    ax.axvline(r["train_length"], color="k", ls=":", lw=1)
    ax.text(r["train_length"], 1.02, " trained at %d" % r["train_length"], fontsize=8, va="bottom")
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.set_ylim(-0.02, 1.08)
    ax.set_xlabel("sequence length (tokens)")
    ax.set_ylabel("whole-passkey accuracy (mean over depths)")
    ax.set_title("Passkey retrieval: a %d-symbol key at a depth of random filler, asked for at the end\n"
                 "mean of %d seeds with its 95%% interval (logit scale; dots: each seed); "
                 "dashed: RoPE read through a map"
                 % (r.get("passkey", {}).get("symbols", 0), max(len(row["whole"]) for row in r["rows"])), fontsize=10)
    ax.legend(fontsize=7, ncol=2, loc="center left", bbox_to_anchor=(1.0, 0.5))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def fig_passkey_heatmaps(r):
    rows = r["rows"]
    cols = min(5, len(rows))
    nrows = (len(rows) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(2.4 * cols + 1.2, 2.2 * nrows + 0.9), squeeze=False)
    lengths, depths = r["lengths"], r["depths"]
    image = None
    for k, ax in enumerate(axes.flat):
        if k >= len(rows):
            ax.axis("off")
            continue
        row = rows[k]
        grid = [[(g[d] if g is not None else float("nan")) for g in row["depth_grid"]] for d in range(len(depths))]
        image = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto", origin="lower",
                          interpolation="nearest")
        for li, g in enumerate(row["depth_grid"]):
            if g is None:
                ax.add_patch(matplotlib.patches.Rectangle((li - 0.5, -0.5), 1, len(depths), color="#dddddd"))
        if r["train_length"] in lengths:
            t = lengths.index(r["train_length"])
            ax.add_patch(matplotlib.patches.Rectangle((t - 0.5, -0.5), 1, len(depths), fill=False, ec="red", lw=1.5))
        ax.set_title(row.get("title") or passkey_label(row), fontsize=9)
        ax.set_xticks(range(len(lengths)))
        ax.set_xticklabels([str(n) for n in lengths], fontsize=6, rotation=45)
        ticks = sorted({0, len(depths) // 2, len(depths) - 1})
        ax.set_yticks(ticks)
        ax.set_yticklabels(["%.1f" % depths[i] for i in ticks], fontsize=6)
        if k % cols == 0:
            ax.set_ylabel("depth", fontsize=8)
    fig.suptitle("Passkey retrieval by length (columns) and depth (rows, 0: the start of the filler): whole-passkey "
                 "accuracy, mean over seeds;\nred frame: the training length %d; grey: a length the reader cannot "
                 "read" % r["train_length"], fontsize=10)
    fig.subplots_adjust(left=0.05, right=0.9, bottom=0.08, top=0.86, wspace=0.3, hspace=0.55)
    cax = fig.add_axes((0.925, 0.15, 0.012, 0.65))
    fig.colorbar(image, cax=cax)
    fig.pe_laid_out = True
    return fig


def fig_passkey_training(runs):
    schemes = sorted(runs)
    cols = min(4, len(schemes))
    nrows = (len(schemes) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(max(8.0, 2.6 * cols + 0.6), max(4.0, 2.0 * nrows + 0.8)),
                             squeeze=False, sharey=True)
    for k, ax in enumerate(axes.flat):
        if k >= len(schemes):
            ax.axis("off")
            continue
        for seed, pts in sorted(runs[schemes[k]].items()):
            ax.plot([p[0] for p in pts], [max(p[1], 1e-5) for p in pts], lw=1, label="seed " + seed)
        ax.set_yscale("log")
        ax.set_title(schemes[k], fontsize=9)
        ax.tick_params(labelsize=6)
        ax.grid(alpha=0.3)
        if k == 0:
            ax.legend(fontsize=6)
    fig.suptitle("Passkey training: mean answer loss (nats) between log lines against step, every run", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig
