"""probes: the four probes of docs/tasks.md section 7 (multi-needle, relative order, distractors, code), from
each probe's results.json under the --probes folder (<probe>/results.json; the probes absent are left out). Top
row, one panel per probe: accuracy (every answer right) against length, every scheme read plainly, and RoPE and
the hybrid through the map that does best at the longest length, the 95% interval shaded and the training length
marked. Bottom row: each plain scheme's accuracy by cell at four times the training length (or the longest length
read, when shorter), so the cell that fails first shows."""
from matplotlib.ticker import FuncFormatter, NullLocator

from .load import ACCURACY, LENGTHS, List, Num, Obj, Str, load_each
from .style import plt

PALETTE = ["C%d" % i for i in range(10)] + ["black", "darkgoldenrod", "slategray", "lime"]
PROBES = (("needles", "multi-needle"), ("order", "relative order"), ("distractors", "distractors"),
          ("declarations", "code with distant declarations"))


def load_probes(folder):
    """{probe: results} for the probes whose results.json is in the folder; ABSENT when none is."""
    return load_each(folder, [p for p, _ in PROBES])


def check_probes(d):
    for probe, r in d.items():
        Obj({"lengths": LENGTHS, "train_length": Num(lo=1, integer=True), "cells": List(Str(), nonempty=True),
             "rows": List(Obj({"scheme": Str(), "map": Str()}), nonempty=True)}).check(r, probe)
        n, c, why = len(r["lengths"]), len(r["cells"]), " (one per entry of lengths)"
        for i, row in enumerate(r["rows"]):
            where = "%s.rows[%d]" % (probe, i)
            Obj({"accuracy": List(ACCURACY, n, why), "lo": List(ACCURACY, n, why), "hi": List(ACCURACY, n, why),
                 "cell_grid": List(List(ACCURACY, c, " (one per cell)", null=True), n, why)}).check(row, where)


def label(row):
    return row["scheme"] if row["map"] == "none" else "%s+%s" % (row["scheme"], row["map"])


def shown_rows(r):
    """Every plain reader, then for each scheme read through maps the map best at the longest length."""
    plain = [row for row in r["rows"] if row["map"] == "none"]
    best = {}
    for row in r["rows"]:
        if row["map"] == "none" or row["accuracy"][-1] is None:
            continue
        b = best.get(row["scheme"])
        if b is None or row["accuracy"][-1] > b["accuracy"][-1]:
            best[row["scheme"]] = row
    return plain, [best[s] for s in best]


def fig_probes(d):
    probes = [(p, t) for p, t in PROBES if p in d]
    fig, axes = plt.subplots(2, len(probes), figsize=(max(9.0, 5.6 * len(probes)), 9.0), squeeze=False,
                             gridspec_kw={"height_ratios": [1.0, 1.0]})
    colours = {}
    for col, (probe, title) in enumerate(probes):
        r = d[probe]
        ax = axes[0][col]
        plain, mapped = shown_rows(r)
        for row in plain + mapped:
            xs = [n for n, a in zip(r["lengths"], row["accuracy"]) if a is not None]
            if not xs:
                continue
            key = label(row)
            colour = colours.setdefault(row["scheme"], PALETTE[len(colours) % len(PALETTE)])
            ys = [a for a in row["accuracy"] if a is not None]
            lo = [a for a in row["lo"] if a is not None]
            hi = [a for a in row["hi"] if a is not None]
            style = "-" if row["map"] == "none" else ":"
            ax.plot(xs, ys, style, color=colour, marker="o", ms=3, lw=1.5, label=key)
            ax.fill_between(xs, lo, hi, color=colour, alpha=0.05, lw=0)
        ax.axvline(r["train_length"], color="0.5", lw=0.8, ls="--")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%d" % v))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticks(r["lengths"])
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("length read (trained at %d, dashed)" % r["train_length"])
        if col == 0:
            ax.set_ylabel("accuracy: every answer right (mean over cells and seeds)")
        seeds = max(len(row.get("seeds", [])) for row in r["rows"])
        ax.set_title("%s (%d seed%s)" % (title, seeds, "" if seeds == 1 else "s"), fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower left", ncol=2)
        # by cell at 4x the training length (or the longest read)
        want = 4 * r["train_length"]
        li = max(i for i, n in enumerate(r["lengths"]) if n <= want) if min(r["lengths"]) <= want else 0
        ax2 = axes[1][col]
        rows = [row for row in plain if row["cell_grid"][li] is not None]
        grid = [row["cell_grid"][li] for row in rows]
        if grid:
            im = ax2.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
            ax2.set_yticks(range(len(rows)))
            ax2.set_yticklabels([label(row) for row in rows], fontsize=7)
            ax2.set_xticks(range(len(r["cells"])))
            ax2.set_xticklabels(r["cells"], rotation=60, ha="right", fontsize=7)
            for i, g in enumerate(grid):
                for j, v in enumerate(g):
                    ax2.text(j, i, "%.2f" % v, ha="center", va="center", fontsize=6,
                             color="white" if v < 0.5 else "black")
            fig.colorbar(im, ax=ax2, fraction=0.04)
        ax2.set_title("by cell at %d (mean over seeds)" % r["lengths"][li], fontsize=9)
    fig.suptitle("Probes: a 3-block stack per scheme trained at %d, read to %d" %
                 (d[probes[0][0]]["train_length"], max(d[probes[0][0]]["lengths"])), fontsize=11)
    fig.tight_layout()
    return fig
