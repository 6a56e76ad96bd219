"""rope_base: RoPE retrained with bases 100 to 10^6, and a base change at fine-tuning
(the summary.json of scripts/rope_base_summary.py)."""
from .load import HALF_WIDTH, LENGTHS, Any, Bool, List, Num, Obj, Str
from .style import log_length_axes, plt


def check_rope_base(r):
    """What rope_base reads of results/rope-base/summary.json."""
    Obj({"lengths": LENGTHS}).check(r, "")
    n, why = len(r["lengths"]), " (one per entry of lengths)"
    ppl = Num(above=0, hi=1e300, null=True)
    Obj({"train_length": Num(above=0, hi=2 ** 31),
         "bases": List(Obj({"base": Num(above=0), "seeds": List(Any(), nonempty=True), "mean": List(ppl, n, why),
                            "half_width": List(HALF_WIDTH, n, why),
                            "turns": List(Num(lo=0), nonempty=True, null=True)}), nonempty=True),
         "abf": List(Obj({"label": Str(), "map": Str(), "finetuned": Bool(), "mean": List(ppl, n, why),
                          "half_width": List(HALF_WIDTH, n, why)}))}).check(r, "")


def fig_rope_base(r):
    """Three panels: perplexity against context per base; turns per plane per base; the ABF readers."""
    lengths, L = r["lengths"], r["train_length"]
    fig, axes = plt.subplots(1, 3, figsize=(17.0, 5.6))
    colours = plt.get_cmap("viridis")
    nb = len(r["bases"])

    ax = axes[0]
    for i, b in enumerate(r["bases"]):
        pts = [(x, m, h or 0) for x, m, h in zip(lengths, b["mean"], b["half_width"]) if m is not None]
        if pts:
            xs, ms, hs = zip(*pts)
            ax.errorbar(xs, ms, yerr=[[min(h, 0.9 * m) for m, h in zip(ms, hs)], hs], marker="o", ms=3, capsize=2,
                        lw=1.4, color=colours(i / max(1, nb - 1)),
                        label="base %d (%d seeds)" % (b["base"], len(b["seeds"])))
    log_length_axes(ax, lengths, L)
    ax.set_ylabel("validation perplexity (log scale; mean of seeds, bars: 95% interval,\n"
                  "the lower bar cut at 10% of the mean)")
    ax.set_title("RoPE retrained with each base, read plainly", fontsize=9)
    ax.legend(fontsize=7)

    ax = axes[1]
    for i, b in enumerate(r["bases"]):
        if b.get("turns"):
            ax.plot(range(len(b["turns"])), b["turns"], marker="o", ms=3, color=colours(i / max(1, nb - 1)),
                    label="base %d" % b["base"])
    ax.axhline(1.0, color="k", lw=0.8, ls="--")
    ax.text(0.2, 1.08, "one full turn over the training offsets", fontsize=7)
    ax.set_yscale("log")
    ax.set_xlabel("plane j (head width 32: 16 planes)")
    ax.set_ylabel("turns of plane j over offsets 0..%d (log scale)" % (L - 1))
    ax.set_title("The census: which planes the training window turns fully", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)

    ax = axes[2]
    maps = []
    for g in r["abf"]:
        if g["map"] not in maps:
            maps.append(g["map"])
    tab = plt.get_cmap("tab10").colors
    for g in r["abf"]:
        pts = [(x, m, h or 0) for x, m, h in zip(lengths, g["mean"], g["half_width"]) if m is not None]
        if not pts:
            continue
        xs, ms, hs = zip(*pts)
        hs = [[min(h, 0.9 * m) for m, h in zip(ms, hs)], hs]  # a log axis: the lower bar stops above 0
        plain = g["map"] == "none"
        c = "k" if plain else tab[maps.index(g["map"]) % len(tab)]
        ax.errorbar(xs, ms, yerr=hs, marker="o", ms=3, capsize=2, lw=1.2 if g["finetuned"] or plain else 0.9,
                    ls="-" if g["finetuned"] or plain else "--", color=c, alpha=1.0 if g["finetuned"] or plain else 0.6,
                    label=g["label"])
    log_length_axes(ax, lengths, L)
    ax.set_title("Base 10^4 models: each map read plainly (dashed),\nand after 300 fine-tuning steps at 512 (solid)",
                 fontsize=9)
    if r["abf"]:
        ax.legend(fontsize=6.5, ncol=2)
    fig.suptitle("RoPE's base in the char LM (trained at %d): retraining with another base, and changing it at "
                 "fine-tuning time (ABF)" % L, fontsize=10)
    return fig
