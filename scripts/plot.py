#!/usr/bin/python3
"""Figures from pe-bench's results files, as PNG and SVG (headless matplotlib).

Usage: scripts/plot.py [--tournament results/tournament-10seeds/results.json]
                       [--geometry results/tournament-10seeds/geometry.json]
                       [--theory results/theory.json] [--charlm results/charlm/results.json]
                       [--filings results/filings/results.json] [--out results/figures] [--only NAME,NAME]
`make plots` runs it on the committed results. Figures (NAME.png and NAME.svg under --out):
  tournament        accuracy against length, every scheme: mean, each seed, 95% interval, published
  rescaling         RoPE read plainly and with each context-extension map, same style
  rope_score_by_age each RoPE head's score for a marked key against its age; the dive and rebound
  wavelength_census RoPE's wavelength per plane, and each map's per-plane factor
  log_ruler         the RoPE kernel at d = 64, 512, 8192 beside its limit and the straight line
  charlm_perplexity character-LM perplexity against context, every scheme and RoPE reading
  charlm_position   character-LM loss by position at the longest context, training length marked
  filings_accuracy  filings readers on all queries and on the far ones: mean, each seed, interval, published
  filings_document  one held-out filing (document.json beside --filings): every reader's answer at every
                    position, coloured by company, the true answer on top
A figure whose input file is absent is skipped with a note. Needs Debian's python3-matplotlib.
"""
import argparse
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.patches  # noqa: E402
import matplotlib.ticker  # noqa: E402

SIZE = (10.0, 5.0)  # inches; at DPI 100: 1000 x 500 pixels
DPI = 100
NAMES = ["tournament", "rescaling", "rope_score_by_age", "wavelength_census", "log_ruler",
         "charlm_perplexity", "charlm_position", "filings_accuracy", "filings_document"]


def load(path):
    if not path or not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def save(fig, out, name):
    os.makedirs(out, exist_ok=True)
    fig.tight_layout()
    for ext in ("png", "svg"):
        tmp = os.path.join(out, ".%s.tmp.%d.%s" % (name, os.getpid(), ext))
        fig.savefig(tmp, dpi=DPI, format=ext, metadata={"Date": None} if ext == "svg" else {"Software": None})
        os.replace(tmp, os.path.join(out, name + "." + ext))  # whole or absent
    plt.close(fig)
    print("wrote %s/%s.png and .svg" % (out, name))


def label(row):
    return row["scheme"] + ("" if row["map"] == "none" else "+" + row["map"])


def published(results, key):
    ref = results.get("reference") or {}
    rows, lens = ref.get("rows", {}), ref.get("lengths", [])
    if key not in rows:
        return [], []
    xs, ys = [], []
    for n, v in zip(lens, rows[key]):
        if isinstance(v, (int, float)) and n in results["lengths"]:
            xs.append(n), ys.append(v)
    return xs, ys


def accuracy_axes(ax, results, rows, title):
    lengths = results["lengths"]
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, row in enumerate(rows):
        c = colours[i % len(colours)]
        pts = [(n, m, h) for n, m, h in zip(lengths, row["mean"], row.get("half_width", [0] * len(lengths)))
               if m is not None]
        if not pts:
            continue
        xs, ms, hs = zip(*pts)
        ax.plot(xs, ms, "-", color=c, lw=2, label="%s (%d seeds)" % (label(row), len(row["seeds"])))
        ax.fill_between(xs, [m - h for m, h in zip(ms, hs)], [min(1.0, m + h) for m, h in zip(ms, hs)],
                        color=c, alpha=0.15, lw=0)
        for sd in row["seeds"]:
            sx = [n for n, a in zip(lengths, sd["accuracy"]) if a is not None]
            sy = [a for a in sd["accuracy"] if a is not None]
            ax.plot(sx, sy, ".", color=c, ms=4, alpha=0.6)
        px, py = published(results, label(row))
        if px:
            ax.plot(px, py, "o", mfc="none", mec=c, ms=9, mew=1.5)
    ax.set_xscale("log", base=2)
    ax.set_xticks(lengths)
    ax.set_xticklabels([str(n) for n in lengths])
    train = results.get("experiment", {}).get("train_length", 32)
    ax.axvline(train, color="grey", ls=":", lw=1)
    ax.text(train, 0.02, " trained at %d" % train, color="grey", fontsize=8)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("test length n (tokens, log scale)")
    ax.set_ylabel("accuracy (fraction of test sequences)")
    ax.set_title(title)
    handles, labels = ax.get_legend_handles_labels()
    extra = [plt.Line2D([], [], color="k", marker=".", ls="none", label="one seed"),
             plt.Line2D([], [], color="k", marker="o", mfc="none", ls="none", ms=8, label="published mean"),
             plt.Rectangle((0, 0), 1, 1, color="k", alpha=0.15, label="95% interval")]
    ax.legend(handles=handles + extra, fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.grid(alpha=0.3)


def fig_tournament(a):
    r = load(a.tournament)
    if r is None:
        return None
    rows = [row for row in r["rows"] if row["map"] == "none"]
    fig, ax = plt.subplots(figsize=SIZE)
    accuracy_axes(ax, r, rows, "Cue task: which marked token came last? accuracy against test length\n"
                  "(%d test sequences per length; bands: 95%% interval over seeds and test set)" % r["test_sequences"])
    return fig


def fig_rescaling(a):
    r = load(a.tournament)
    if r is None:
        return None
    rows = [row for row in r["rows"] if row["scheme"] == "rope"]
    fig, ax = plt.subplots(figsize=SIZE)
    accuracy_axes(ax, r, rows, "RoPE heads re-read with context-extension maps (kappa = n / 32, no retraining)")
    return fig


def fig_rope_score(a):
    g = load(a.geometry)
    if g is None or not g.get("rope"):
        return None
    fig, ax = plt.subplots(figsize=SIZE)
    train = g["rope"][0]["train_length"]
    ax.axvspan(0, train - 1, color="grey", alpha=0.15, label="training window (ages 0..%d)" % (train - 1))
    for head in g["rope"]:
        s = head["score_by_age"]
        ax.plot(range(len(s)), s, lw=1, alpha=0.8, label="seed %d" % head["seed"])
    # the dive and the rebound of the first head, labelled
    h = g["rope"][0]
    d, up = h["deepest_past_window"], h["highest_after_deepest"]
    ax.annotate("dive: age %d (seed %d)" % (d["age"], h["seed"]), (d["age"], d["score"]), (d["age"] + 15, d["score"] - 4),
                arrowprops={"arrowstyle": "->"}, fontsize=8)
    ax.annotate("rebound: age %d (seed %d)" % (up["age"], h["seed"]), (up["age"], up["score"]), (up["age"] + 10, up["score"] + 4),
                arrowprops={"arrowstyle": "->"}, fontsize=8)
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("age of the marked key r = query position - key position (tokens)")
    ax.set_ylabel("query-key content score q.k / sqrt(d)")
    ax.set_title("RoPE heads: score of a marked key against its age (mean over marked symbols)")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.grid(alpha=0.3)
    return fig


def fig_census(a):
    t = load(a.theory)
    if t is None or "wavelength_census" not in t:
        return None
    w = t["wavelength_census"]
    planes = w["planes"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=SIZE)
    j = [p["plane"] for p in planes]
    ax1.semilogy(j, [p["wavelength"] for p in planes], "o-", label="wavelength 2 pi / theta_j")
    ax1.axhline(w["train_len"], color="grey", ls=":", label="training length L = %d" % w["train_len"])
    ax1.set_xlabel("plane j")
    ax1.set_ylabel("wavelength (tokens, log scale)")
    ax1.set_title("RoPE planes, d = %d, base %g" % (w["d"], w["base"]), fontsize=10)
    ax1.legend(fontsize=7)
    ax1.grid(alpha=0.3)
    kappa = str(w["kappas"][-1]).rstrip("0").rstrip(".") if isinstance(w["kappas"][-1], float) else str(w["kappas"][-1])
    for m in w["maps"]:
        ys = []
        for p in planes:
            f = p["factors"][m]
            ys.append(f.get(kappa, f.get(str(w["kappas"][-1]))))
        ax2.plot(j, ys, "o-", label=m)
    ax2.set_yscale("log", base=2)
    ax2.set_xlabel("plane j")
    ax2.set_ylabel("factor theta'_j / theta_j (log2 scale)")
    ax2.set_title("each map's factor per plane at kappa = %s" % kappa, fontsize=10)
    ax2.legend(fontsize=7)
    ax2.grid(alpha=0.3)
    fig.suptitle("The wavelength census: which planes turn within training, and what each map does to them")
    fig.tight_layout()
    return fig


def fig_log_ruler(a):
    t = load(a.theory)
    if t is None or "log_ruler" not in t:
        return None
    lr = t["log_ruler"]
    rows = lr["rows"]
    deltas = [r["delta"] for r in rows]
    fig, ax = plt.subplots(figsize=SIZE)
    for k, d in enumerate([b["d"] for b in rows[0]["by_d"]]):
        ax.plot(deltas, [r["by_d"][k]["ratio"] for r in rows], "o-", ms=4, label="d = %d" % d)
    ax.plot(deltas, [r["limit"] for r in rows], "k--", lw=1.5, label="limit d -> infinity")
    ax.plot(deltas, [r["line"] for r in rows], ":", color="grey", lw=2, label="straight line in log offset")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("offset delta (tokens, log2 scale)")
    ax.set_ylabel(lr["quantity"])
    ax.set_title("The logarithmic ruler: RoPE's mean kernel against offset (base %g)" % lr["base"])
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def charlm_label(row):
    s = label(row)
    if row.get("finetuned"):
        s += " (fine-tuned)"
    if row.get("band"):
        s += " (band %d)" % row["band"]
    return s


def fig_charlm_perplexity(a):
    r = load(a.charlm)
    if r is None:
        return None
    fig, ax = plt.subplots(figsize=SIZE)
    lengths = r["lengths"]
    # one line per reading: over its seeds when the file has a summary (error bars: 95% interval)
    groups = r.get("summary") or [
        {"label": charlm_label(row), "map": row["map"], "band": row["band"], "finetuned": row["finetuned"],
         "seeds": [row["seed"]], "mean": row["perplexity"], "half_width": [0] * len(lengths)} for row in r["rows"]]
    colours = plt.get_cmap("tab20").colors
    for i, g in enumerate(groups):
        pts = [(n, m, h) for n, m, h in zip(lengths, g["mean"], g["half_width"]) if m is not None]
        if not pts:
            continue
        xs, ms, hs = zip(*pts)
        style = ":" if g["finetuned"] else ("--" if g["map"] != "none" or g["band"] else "-")
        seeds = len(g["seeds"])
        c = colours[i % len(colours)]
        ax.errorbar(xs, ms, yerr=hs if seeds > 1 else None, ls=style, marker="o", ms=4, capsize=3, color=c,
                    label=g["label"] + ("" if seeds == 1 else " (%d seeds)" % seeds))
        if seeds > 1:  # each seed as a dot
            for row in r["rows"]:
                if charlm_label(row) == g["label"]:
                    pts = [(n, p) for n, p in zip(lengths, row["perplexity"]) if p is not None]
                    ax.plot([x for x, _ in pts], [p for _, p in pts], ".", color=c, ms=5, alpha=0.7)
    ax.set_yscale("log")
    # an interval over 3 seeds can reach below zero; the axis stops just under the lowest reading
    lowest = min(p for row in r["rows"] for p in row["perplexity"] if p is not None)
    ax.set_ylim(bottom=0.85 * lowest)
    ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.yaxis.set_minor_formatter(matplotlib.ticker.ScalarFormatter())
    ax.tick_params(axis="y", which="minor", labelsize=7)
    ax.set_xscale("log", base=2)
    ax.set_xticks(lengths)
    ax.set_xticklabels([str(n) for n in lengths])
    ax.axvline(r["train_length"], color="grey", ls=":", lw=1)
    ax.set_xlabel("context (characters, log2 scale)")
    ax.set_ylabel("validation perplexity (log scale)")
    ax.set_title("Character LM on The Time Machine: perplexity against context (trained at %d)\n"
                 "solid: read plainly; dashed: RoPE read with a map or a band; dotted: fine-tuned with the map%s"
                 % (r["train_length"], "\nbars: 95% interval over seeds; dots: each seed"
                    if any(len(g["seeds"]) > 1 for g in groups) else ""), fontsize=10)
    ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.grid(alpha=0.3, which="both")
    return fig


def fig_charlm_position(a):
    r = load(a.charlm)
    if r is None:
        return None
    pl = r["position_loss"]
    w = pl["window"]
    fig, ax = plt.subplots(figsize=SIZE)
    colours = plt.get_cmap("tab20").colors
    for i, row in enumerate(pl["rows"]):
        xs = [b * w + w / 2 for b in range(len(row["bins"]))]
        style = ":" if "fine-tuned" in row["label"] else ("--" if "+" in row["label"] or "band" in row["label"] else "-")
        ax.plot(xs, row["bins"], lw=1.2, ls=style, color=colours[i % len(colours)],
                label="%s s%d" % (row["label"], row["seed"]))
    ax.axvline(r["train_length"], color="k", ls=":", lw=1.5)
    ax.text(r["train_length"], 0.98, " training length %d" % r["train_length"], va="top", fontsize=8,
            transform=ax.get_xaxis_transform())
    ax.set_xlabel("position in the %d-character window (bins of %d)" % (pl["length"], w))
    ax.set_ylabel("mean cross-entropy (nats per character)")
    ax.set_title("Character LM: loss by position at context %d" % pl["length"])
    ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.grid(alpha=0.3)
    return fig


def fig_filings_accuracy(a):
    r = load(a.filings)
    if r is None:
        return None
    ref = (r.get("reference") or {}).get("rows", {})
    rows = r["rows"]
    fig, ax = plt.subplots(figsize=SIZE)
    width = 0.38
    names = ["all queries (%d)" % r["queries"], "answer more than %d back (%d)" % (r["far"], r["far_queries"])]
    for col in range(2):
        xs = [i + (col - 0.5) * width for i in range(len(rows))]
        means = [row["mean"][col] if row["mean"][col] is not None else 0 for row in rows]
        errs = [row["half_width"][col] or 0 for row in rows]
        ax.bar(xs, means, width * 0.95, yerr=errs, capsize=3, color=("#4878a8", "#e08040")[col], label=names[col])
        for x, row in zip(xs, rows):
            ys = [sd["accuracy"][col] for sd in row["seeds"] if sd["accuracy"][col] is not None]
            ax.plot([x] * len(ys), ys, "k.", ms=3)
            pub = ref.get(label(row))
            if pub is not None and pub[col] is not None:
                ax.plot([x - width / 2, x + width / 2], [pub[col]] * 2, color="k", lw=2)
    ax.axhline(r["first_company"][0], color="#4878a8", ls=":", lw=1)
    ax.axhline(r["first_company"][1], color="#e08040", ls=":", lw=1)
    ax.text(len(rows) - 0.5, r["first_company"][0], "always the first company ", ha="right", va="bottom", fontsize=7)
    if "most_named_so_far" in r:
        for col in range(2):
            ax.axhline(r["most_named_so_far"][col], color=("#4878a8", "#e08040")[col], ls="--", lw=1)
        ax.text(len(rows) - 0.5, r["most_named_so_far"][0], "the company named most so far ", ha="right",
                va="bottom", fontsize=7)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([label(row) for row in rows])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy on the held-out filings")
    ax.set_title("Filings: which company was named last? Trained on 32-token windows, read on whole documents\n"
                 "bars: mean of %d seeds with its 95%% interval; dots: each seed; black lines: published; "
                 "dotted and dashed: two rules without positions"
                 % max(len(row["seeds"]) for row in rows), fontsize=10)
    ax.legend(fontsize=8, loc="lower left")
    ax.grid(alpha=0.3, axis="y")
    return fig


def fig_filings_document(a):
    d = load(os.path.join(os.path.dirname(a.filings), "document.json"))
    if d is None:
        return None
    import numpy as np
    from matplotlib.colors import ListedColormap
    doc = d["document"]
    n = len(doc["words"])
    targets = doc["targets"]
    rows = [("true answer", targets)]
    for rd in d["readers"]:
        rows.append(("%s s%d" % (rd["reader"], rd["seed"]), [x if t >= 0 else -1 for x, t in zip(rd["answers"], targets)]))
    grid = np.array([[v + 1 for v in answers] for _, answers in rows], dtype=float)  # 0: not a query
    colours = ["#ffffff"] + list(plt.get_cmap("tab10").colors[:8])
    fig, ax = plt.subplots(figsize=SIZE)
    ax.imshow(grid, aspect="auto", interpolation="nearest", cmap=ListedColormap(colours), vmin=0, vmax=8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([name for name, _ in rows], fontsize=5)
    ax.axhline(0.5, color="k", lw=1)
    mentions = [i for i, m in enumerate(doc["marks"]) if m]
    ax.plot(mentions, [-0.75] * len(mentions), "kv", ms=3, clip_on=False)
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_xlabel("position in the document (triangles: company mentions; white: before the first mention)")
    companies = ", ".join("%d %s" % (i, c) for i, c in enumerate(doc["companies"]))
    ax.set_title("Held-out filing %s (%s, %d tokens): each reader's answer at every position, colour = company\n%s"
                 % (doc["id"], doc["kind"], n, companies), fontsize=8)
    handles = [matplotlib.patches.Patch(color=colours[i + 1], label="%d %s" % (i, c)) for i, c in enumerate(doc["companies"])]
    answered = sorted({v for _, answers in rows for v in answers if v >= len(doc["companies"])})
    handles += [matplotlib.patches.Patch(color=colours[v + 1], label="%d (no such company here)" % v) for v in answered]
    ax.legend(handles=handles, fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig


FIGURES = {"tournament": fig_tournament, "rescaling": fig_rescaling, "rope_score_by_age": fig_rope_score,
           "wavelength_census": fig_census, "log_ruler": fig_log_ruler, "charlm_perplexity": fig_charlm_perplexity,
           "charlm_position": fig_charlm_position, "filings_accuracy": fig_filings_accuracy,
           "filings_document": fig_filings_document}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tournament", default="results/tournament-10seeds/results.json")
    p.add_argument("--geometry", default=None, help="default: geometry.json beside --tournament")
    p.add_argument("--theory", default="results/theory.json")
    p.add_argument("--charlm", default="results/charlm/results.json")
    p.add_argument("--filings", default="results/filings/results.json")
    p.add_argument("--out", default="results/figures")
    p.add_argument("--only", default="", help="comma-separated figure names: " + ", ".join(NAMES))
    a = p.parse_args()
    if a.geometry is None:
        a.geometry = os.path.join(os.path.dirname(a.tournament), "geometry.json")
    names = [n for n in a.only.split(",") if n] or NAMES
    for n in names:
        if n not in FIGURES:
            sys.exit("plot.py: unknown figure '%s' (known: %s)" % (n, ", ".join(NAMES)))
    plt.rcParams["svg.hashsalt"] = "pe-bench"  # the same SVG bytes from the same results
    for n in names:
        fig = FIGURES[n](a)
        if fig is None:
            print("skipped %s: its input file is absent" % n)
            continue
        save(fig, a.out, n)


if __name__ == "__main__":
    main()
