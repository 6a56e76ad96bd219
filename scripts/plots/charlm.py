"""The character LM's figures: charlm_perplexity and charlm_position."""
import matplotlib.ticker

from .load import HALF_WIDTH, LENGTH, LENGTHS, Any, Bool, DataError, List, Num, Obj, Str
from .style import SIZE, label, plt


def check_charlm_perplexity(r):
    """What charlm_perplexity reads of a char-LM results.json."""
    Obj({"lengths": LENGTHS}).check(r, "")
    n, why = len(r["lengths"]), " (one per entry of lengths)"
    ppl = Num(above=0, hi=1e300, null=True)
    summary = r.get("summary")
    row = {"scheme": Str(), "map": Str(), "seed": Num(integer=True), "perplexity": List(ppl, n, why)}
    # without a summary every row is drawn as its own reading (its map, band and fine-tuning)
    row.update({"finetuned" if not summary else "finetuned?": Bool(),
                "band" if not summary else "band?": Num(lo=0, integer=True)})
    Obj({"rows": List(Obj(row), nonempty=True), "train_length": Num(above=0, hi=2 ** 31),
         "summary?": List(Obj({"label": Str(), "map": Str(), "band": Num(lo=0, integer=True), "finetuned": Bool(),
                               "seeds": List(Any()), "mean": List(ppl, n, why),
                               "half_width": List(HALF_WIDTH, n, why)}), null=True)}).check(r, "")
    if all(p is None for row in r["rows"] for p in row["perplexity"]):
        raise DataError("rows hold no perplexity: every value is null")


def check_charlm_position(r):
    """What charlm_position reads of a char-LM results.json."""
    Obj({"train_length": Num(above=0, hi=2 ** 31),
         "position_loss": Obj({"window": LENGTH, "length": LENGTH,
                               "rows": List(Obj({"bins": List(Num()), "label": Str(),
                                                 "seed": Num(integer=True)}))})}).check(r, "")


def charlm_label(row):
    s = label(row)
    if row.get("finetuned"):
        s += " (fine-tuned)"
    if row.get("band"):
        s += " (band %d)" % row["band"]
    return s


def fig_charlm_perplexity(r):
    fig, ax = plt.subplots(figsize=SIZE)
    lengths = r["lengths"]
    # one line per reading: over its seeds when the file has a summary (error bars: 95% interval)
    groups = r.get("summary") or [
        {"label": charlm_label(row), "map": row["map"], "band": row["band"], "finetuned": row["finetuned"],
         "seeds": [row["seed"]], "mean": row["perplexity"], "half_width": [0] * len(lengths)} for row in r["rows"]]
    colours = plt.get_cmap("tab20").colors
    for i, g in enumerate(groups):
        pts = [(n, m, h or 0) for n, m, h in zip(lengths, g["mean"], g["half_width"]) if m is not None]
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


def fig_charlm_position(r):
    pl = r["position_loss"]
    w = pl["window"]
    fig, ax = plt.subplots(figsize=SIZE)
    colours = plt.get_cmap("tab20").colors
    for i, row in enumerate(pl["rows"]):
        xs = [b * w + w / 2 for b in range(len(row["bins"]))]
        dashed = "+" in row["label"] or "band" in row["label"]
        style = ":" if "fine-tuned" in row["label"] else ("--" if dashed else "-")
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
