"""txl_memory: Transformer-XL with its segment memory against the memory-less readers (the
summary.json of scripts/txl_memory_summary.py)."""
from .load import HALF_WIDTH, LENGTHS, Any, List, Num, Obj, Str
from .style import SIZE, log_length_axes, plt


def check_txl_memory(r):
    """What txl_memory reads of results/txl-memory/summary.json."""
    Obj({"lengths": LENGTHS}).check(r, "")
    n, why = len(r["lengths"]), " (one per entry of lengths)"
    Obj({"train_length": Num(above=0, hi=2 ** 31),
         "readers": List(Obj({"label": Str(), "name": Str(), "source": Str(), "seeds": List(Any(), nonempty=True),
                              "mean": List(Num(above=0, hi=1e300, null=True), n, why),
                              "half_width": List(HALF_WIDTH, n, why)}), nonempty=True)}).check(r, "")


def fig_txl_memory(r):
    lengths, L = r["lengths"], r["train_length"]
    fig, ax = plt.subplots(figsize=SIZE)
    tab = plt.get_cmap("tab10").colors
    for i, rd in enumerate(r["readers"]):
        pts = [(x, m, h or 0) for x, m, h in zip(lengths, rd["mean"], rd["half_width"]) if m is not None]
        if not pts:
            continue
        xs, ms, hs = zip(*pts)
        memory, segments = rd["source"] == "memory", "(memory" in rd["label"]
        ax.errorbar(xs, ms, yerr=[[min(h, 0.9 * m) for m, h in zip(ms, hs)], hs], marker="s" if segments else "o",
                    ms=5 if segments else 3, capsize=2, lw=2.2 if segments else 1.1, ls="-" if memory else "--",
                    color=tab[i % len(tab)], label="%s (%d seeds)" % (rd["name"], len(rd["seeds"])),
                    zorder=1 if segments else 2)
    log_length_axes(ax, lengths, L, minor_labels=True)
    ax.set_ylabel("validation perplexity (log scale; bars: 95% interval,\nthe lower bar cut at 10% of the mean)")
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title("Transformer-XL with its segment memory (solid) against the memory-less models (dashed): the char LM "
                 "trained at %d, read longer" % L, fontsize=10)
    return fig
