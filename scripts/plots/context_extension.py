"""The figures of `make context-extension`: the char LM's RoPE models, the tournament's heads and
what attention does past the window, every reader (plain, each map, cached decoding, fine-tuned)."""
import matplotlib.ticker

from .load import LENGTH, List, Num, Obj, Str
from .style import accuracy_axes, log_length_axes, plt


def fig_context_extension_perplexity(r):
    """Two panels: the readers (plain, each map, cached decoding) and the fine-tuned ones, log axes."""
    lengths = r["lengths"]
    groups = r.get("summary") or []
    if not groups:
        return "no summary over seeds"
    fig, axes = plt.subplots(1, 2, figsize=(14.0, 6.0), sharey=True)
    colours = plt.get_cmap("tab20").colors
    maps = []
    for g in groups:
        if g["map"] not in maps:
            maps.append(g["map"])
    for ax, tuned in zip(axes, (False, True)):
        for g in groups:
            if bool(g["finetuned"]) != tuned or g.get("band"):
                continue
            pts = [(n, m, h or 0) for n, m, h in zip(lengths, g["mean"], g["half_width"]) if m is not None]
            if not pts:
                continue
            xs, ms, hs = zip(*pts)
            cached = "(cached)" in g["label"]
            style = ":" if cached else ("-" if g["map"] == "none" else "--")
            c = "k" if g["map"] == "none" and not tuned else colours[maps.index(g["map"]) % len(colours)]
            if g["label"].startswith("rope+"):
                name = g["label"][5:]  # the map's own name
            elif g["label"].startswith("rope"):
                name = "plain" + g["label"][4:]
            else:
                name = g["label"]
            ax.errorbar(xs, ms, yerr=hs, ls=style, marker="o", ms=3, capsize=2, color=c, lw=1.2, label=name)
        log_length_axes(ax, lengths, r["train_length"], minor_labels=True)
        ax.legend(fontsize=6.5, loc="upper left", ncol=2)
        ax.set_title(("after 300 fine-tuning steps at 512 with each map's 128 -> 512 plan" if tuned else
                      "read without retraining: each map planned for 128 -> 2048 "
                      "(dynamic, longrope: each pass's length)"),
                     fontsize=9)
    axes[0].set_ylabel("validation perplexity (log scale; mean of %d seeds, bars: 95%% interval)"
                       % max(len(g["seeds"]) for g in groups))
    fig.suptitle("Context extension: the char LM's RoPE models (trained at %d) read at longer contexts, one line "
                 "per reader\ndashed: a map; dotted: cached decoding (token by token); black: plain RoPE"
                 % r["train_length"], fontsize=10)
    return fig


def fig_context_extension_tournament(r):
    rows = [row for row in r["rows"] if row["scheme"] == "rope"]
    if not rows:
        return "no RoPE row"
    fig, ax = plt.subplots(figsize=(12.0, 6.0))
    accuracy_axes(ax, r, rows, "Tournament RoPE heads read with every map (kappa = n / 32; no retraining)")
    return fig


def check_attention(a):
    """What context_extension_attention reads of an `analyze attention` JSON."""
    frac = Num(lo=0, hi=1.000001)
    layer = Obj({"layer": Num(lo=0, integer=True), "rows": Num(lo=0), "entropy_ratio": Num(lo=0, hi=1.000001),
                 "sink_mass": frac, "beyond_training_mass": frac})
    Obj({"readings": List(Obj({"label": Str(), "map": Str(), "length": LENGTH,
                               "stats": Obj({"layers": List(layer, nonempty=True),
                                             "train_length": LENGTH})}), nonempty=True),
         "task?": Str(), "sequences?": Num(lo=0, integer=True)}).check(a, "")


def fig_context_extension_attention(a):
    """Entropy over ln n, sink mass and mass beyond the training length against context, one line per reader
    (a checkpoint read plainly or through a map; plain RoPE black)."""
    readers = []
    for rd in a["readings"]:
        if rd["label"] not in readers:
            readers.append(rd["label"])
    fig, axes = plt.subplots(1, 3, figsize=(15.0, 5.0))
    colours = plt.get_cmap("tab20").colors
    keys = [("entropy_ratio", "entropy / ln(visible keys)"), ("sink_mass", "mass on the first token"),
            ("beyond_training_mass", "mass beyond the training length")]
    layers = max(len(rd["stats"]["layers"]) for rd in a["readings"])
    for i, label in enumerate(readers):
        rows = sorted((rd for rd in a["readings"] if rd["label"] == label), key=lambda rd: rd["length"])
        plain_rope = rows[0]["map"] == "none" and rows[0].get("scheme") in ("rope", None)
        for ax, (key, title) in zip(axes, keys):
            for layer, style in ((0, "-"), (1, "--")):
                pts = [(rd["length"], rd["stats"]["layers"][layer][key]) for rd in rows
                       if layer < len(rd["stats"]["layers"])]
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", ms=3, lw=1.2,
                            color="k" if plain_rope else colours[i % len(colours)],
                            label=label if layer == 0 else None)
            ax.set_title(title, fontsize=10)
    train = a["readings"][0]["stats"]["train_length"]
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.axvline(train, color="grey", ls=":", lw=1)
        ax.set_xlabel("context (log2 scale)")
        ax.grid(alpha=0.3)
    axes[2].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.suptitle("What attention does past the window (%s task, %d sequences per reading, trained at %d)%s"
                 % (a.get("task", "?"), a.get("sequences", 0), train,
                    ": solid block 1, dashed block 2" if layers > 1 else ": the query row"), fontsize=10)
    return fig
