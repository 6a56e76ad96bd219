"""hybrids and hybrids_passkey_depth: local-RoPE / global-NoPE stacks (the summary.json of
scripts/hybrids_summary.py)."""
from .load import ACCURACY, HALF_WIDTH, LENGTHS, Any, List, Num, Obj, Str
from .passkey import fig_passkey_heatmaps
from .style import interval_ends, log_length_axes, plt


def check_hybrids(r):
    """What hybrids and hybrids_passkey_depth read of results/hybrids/summary.json."""
    def task(t, name):
        if not isinstance(t, dict) or "lengths" not in t:
            return  # a task none of whose stacks has run yet: nothing to check
        Obj({"lengths": LENGTHS}).check(t, name)
        n, why = len(t["lengths"]), " (one per entry of lengths)"
        value = Num(lo=0, hi=1e300, null=True)
        reader = {"map": Str(), "seeds": List(Any(), nonempty=True), "mean": List(value, n, why),
                  "half_width": List(HALF_WIDTH, n, why)}
        if name == "passkey":
            reader["lo?"] = List(ACCURACY, n, why)
            reader["hi?"] = List(ACCURACY, n, why)
            Obj({"depths": List(Num(lo=0, hi=1), nonempty=True)}).check(t, name)
            reader["depth_grid"] = List(List(ACCURACY, len(t["depths"]), " (one per depth)", null=True), n, why)
        Obj({"lengths": LENGTHS, "train_length": Num(above=0, hi=2 ** 31),
             "configs": List(Obj({"depth": Num(lo=1, integer=True), "config": Str(), "name": Str(),
                                  "layers": List(Str(), nonempty=True),
                                  "readers": List(Obj(reader), null=True)}), nonempty=True)}).check(t, name)
    Obj({"charlm?": Any(), "passkey?": Any()}).check(r, "")
    for name in ("charlm", "passkey"):
        task(r.get(name), name)


HYBRID_COLOURS = {"rope": "k", "none": "#888888", "1to1": "tab:blue", "3to1": "tab:orange", "5to1": "tab:red",
                  "3to1-partial": "tab:green", "5to1-partial": "tab:purple"}


def fig_hybrids(r):
    """Rows: the char LM (perplexity) and passkey (accuracy); columns: the depths."""
    tasks = [t for t in ("charlm", "passkey") if isinstance(r.get(t), dict) and r[t].get("lengths")]
    if not tasks:
        return "no stack that has run yet"
    depths = sorted({c["depth"] for t in tasks for c in r[t]["configs"]})
    fig, axes = plt.subplots(len(tasks), len(depths), figsize=(6.2 * len(depths), 4.6 * len(tasks)), squeeze=False)
    for i, name in enumerate(tasks):
        t = r[name]
        lengths, L = t["lengths"], t["train_length"]
        for j, depth in enumerate(depths):
            ax = axes[i][j]
            missing = []
            for c in t["configs"]:
                if c["depth"] != depth:
                    continue
                if c["readers"] is None:
                    missing.append(c["name"])
                    continue
                for rd in c["readers"]:
                    if name == "passkey":  # a proportion: its logit-scale interval, or none (older summaries)
                        ends = interval_ends(rd) or [(None, None)] * len(lengths)
                        pts = [(x, m, e) for x, m, e in zip(lengths, rd["mean"], ends) if m is not None]
                    else:
                        pts = [(x, m, h or 0) for x, m, h in zip(lengths, rd["mean"], rd["half_width"])
                               if m is not None]
                    if not pts:
                        continue
                    xs, ms, hs = zip(*pts)
                    if name == "charlm":  # a log axis: the lower bar stops above 0
                        hs = [[min(h, 0.9 * m) for m, h in zip(ms, hs)], hs]
                    else:
                        hs = [[e[0] or 0 for e in hs], [e[1] or 0 for e in hs]]
                    plain = rd["map"] == "none"
                    ax.errorbar(xs, ms, yerr=hs, marker="o", ms=3, capsize=2, lw=1.4 if plain else 1.0,
                                ls="-" if plain else "--", alpha=1.0 if plain else 0.7,
                                color=HYBRID_COLOURS.get(c["config"], None),
                                label=c["name"] + ("" if plain else " + " + rd["map"]))
            if not ax.get_legend_handles_labels()[0]:  # nothing of this depth has run yet
                ax.text(0.5, 0.5, "not run yet (make hybrids)", ha="center", va="center", transform=ax.transAxes)
                ax.set_xticks([]), ax.set_yticks([])
                ax.set_title("%s, %d layers" % ("char LM" if name == "charlm" else "passkey", depth), fontsize=9)
                continue
            if name == "charlm":
                log_length_axes(ax, lengths, L, minor_labels=True)
                ax.set_ylabel("validation perplexity (log scale)")
            else:
                ax.set_xscale("log", base=2)
                ax.set_xticks(lengths)
                ax.set_xticklabels([str(n) for n in lengths])
                ax.set_ylim(-0.02, 1.05)
                ax.axvline(L, color="k", ls=":", lw=1)
                ax.set_xlabel("sequence length (tokens)")
                ax.set_ylabel("whole-passkey accuracy (mean over depths)")
                ax.grid(alpha=0.3)
            ax.set_title("%s, %d layers%s" % ("char LM" if name == "charlm" else "passkey", depth,
                                              "; not run yet: " + ", ".join(missing) if missing else ""), fontsize=9)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=6.5, ncol=2)
    fig.suptitle("Hybrid stacks: local RoPE (window = half the training length) with global NoPE at 1:1, 3:1, 5:1,\n"
                 "or a global partial-RoPE layer, against all-RoPE and all-NoPE of the same depth; mean of seeds,\n"
                 "bars: 95% interval (passkey: logit scale); dashed: the RoPE layers read through a map", fontsize=10)
    return fig


def fig_hybrids_passkey_depth(r):
    t = r.get("passkey")
    if not isinstance(t, dict) or not t.get("lengths"):
        return "no passkey stack that has run yet"
    rows = [{"scheme": c["name"], "map": rd["map"], "depth_grid": rd["depth_grid"],
             "title": "%d layers, %s\n%s" % (c["depth"], c["name"],
                                             "plain" if rd["map"] == "none" else "+ " + rd["map"])}
            for c in t["configs"] if c["readers"] for rd in c["readers"]]
    fig = fig_passkey_heatmaps({"rows": rows, "lengths": t["lengths"], "depths": t["depths"],
                                "train_length": t["train_length"]})
    n_rows = (len(rows) + 4) // 5
    fig.subplots_adjust(top=1 - 1.0 / (2.2 * n_rows + 0.9), hspace=0.8)  # room for the two-line titles
    return fig
