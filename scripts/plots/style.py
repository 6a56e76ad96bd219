"""What the figures share: the standard size, labels, the 95% intervals as error-bar ends, and two
axis layouts (accuracy against length, perplexity against context). Importing it sets matplotlib's
headless backend."""
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

SIZE = (10.0, 5.0)  # inches; at DPI 100: 1000 x 500 pixels
DPI = 100


def label(row):
    return row["scheme"] + ("" if row["map"] == "none" else "+" + row["map"])


def interval_ends(row, mean_key="mean"):
    """A proportion's 95% intervals as error-bar lengths below and above each mean, from the row's lo and hi
    (docs/results-format.md, "Intervals": logit scale, always inside [0, 1]); None for a row without them
    (results from before those intervals: their symmetric half-width can pass 0 and 1, so it is not drawn)."""
    if "lo" not in row or "hi" not in row:
        return None
    return [(None, None) if m is None or lo is None or hi is None else (max(0.0, m - lo), max(0.0, hi - m))
            for m, lo, hi in zip(row[mean_key], row["lo"], row["hi"])]


def published(results, key):
    ref = results.get("reference") or {}
    rows, lens = ref.get("rows", {}), ref.get("lengths", [])
    if key not in rows:
        return [], []
    xs, ys = [], []
    for n, v in zip(lens, rows[key]):
        if isinstance(v, (int, float)) and not isinstance(v, bool) and n in results["lengths"]:
            xs.append(n), ys.append(v)
    return xs, ys


def accuracy_axes(ax, results, rows, title):
    lengths = results["lengths"]
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, row in enumerate(rows):
        # past the colour cycle (ten colours), the next rows repeat it dashed, then dotted
        c, ls = colours[i % len(colours)], ["-", "--", ":"][(i // len(colours)) % 3]
        ends = interval_ends(row) or [(None, None)] * len(lengths)
        pts = [(n, m, e) for n, m, e in zip(lengths, row["mean"], ends) if m is not None]
        if not pts:
            continue
        xs, ms, es = zip(*pts)
        ax.plot(xs, ms, ls, color=c, lw=2, label="%s (%d seeds)" % (label(row), len(row["seeds"])))
        band = [(x, m - e[0], m + e[1]) for x, m, e in zip(xs, ms, es) if e[0] is not None]
        if band:
            ax.fill_between([b[0] for b in band], [b[1] for b in band], [b[2] for b in band], color=c, alpha=0.15, lw=0)
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
             plt.Rectangle((0, 0), 1, 1, color="k", alpha=0.15, label="95% interval (logit scale)")]
    ax.legend(handles=handles + extra, fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.grid(alpha=0.3)


def log_length_axes(ax, lengths, train_length, minor_labels=False):
    """Perplexity against context: both axes logarithmic (x base 2, ticked at the lengths), plain
    numbers on y (minor ticks labelled too when asked: all of them over at most two decades, else
    only 2 and 5 times a power of ten, which would otherwise run into each other), the training
    length marked."""
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(lengths)
    ax.set_xticklabels([str(n) for n in lengths])
    ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    lo, hi = ax.get_ylim()
    if minor_labels and hi <= 100 * lo:
        ax.yaxis.set_minor_formatter(matplotlib.ticker.ScalarFormatter())
        ax.tick_params(axis="y", which="minor", labelsize=7)
    elif minor_labels:
        def two_and_five(v, _):
            mantissa = v / 10 ** math.floor(math.log10(v) + 1e-9)
            return "%g" % v if round(mantissa) in (2, 5) and abs(mantissa - round(mantissa)) < 1e-6 else ""
        ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(two_and_five))
        ax.tick_params(axis="y", which="minor", labelsize=7)
    else:
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.axvline(train_length, color="grey", ls=":", lw=1)
    ax.set_xlabel("context (characters, log2 scale)")
    ax.grid(alpha=0.3, which="both")
