"""attention_diagnostics: what attention does beyond RoPE, from scripts/attention_diagnostics_summary.py's
summary.json (results/attention-diagnostics): per reader and layer type against the length read, the mass on
keys past the training length and each row's entropy over ln(its visible keys) (means over seeds, their range
shaded); and ALiBi's heads, the mass their bias alone would put past the training length beside the trained
heads' (the d2l exercise 11.4)."""
from matplotlib.ticker import FuncFormatter, NullLocator

from .load import LENGTH, List, Num, Obj, Str
from .style import plt

SPREAD = Obj({"mean": Num(), "min": Num(), "max": Num()})
MEASURES = (("beyond", "mass on keys past the training length"), ("entropy_ratio", "entropy / ln(visible keys)"))


def check_attention_diagnostics(r):
    """What the figure reads of results/attention-diagnostics/summary.json."""
    Obj({"train_length": List(LENGTH, nonempty=True),
         "by_layer_type": List(Obj({"reader": Str(), "layer_type": Str(), "length": LENGTH, "beyond": SPREAD,
                                    "entropy_ratio": SPREAD}), nonempty=True),
         "alibi_heads?": List(Obj({"head": Num(lo=0, integer=True), "slope": Num(above=0), "length": LENGTH,
                                   "bias_only": Num(lo=0, hi=1), "measured": SPREAD})),
         "probe?": Obj({"rows": List(Obj({"scheme": Str(), "weights": Str(), "state": Num(lo=0, integer=True),
                                          "r2": SPREAD}), nonempty=True)})}).check(r, "")


def fig_attention_diagnostics(r):
    alibi = any(h["length"] > max(r["train_length"]) for h in r.get("alibi_heads", []))
    probe = bool(r.get("probe"))
    panels = len(MEASURES) + (1 if alibi else 0) + (1 if probe else 0)
    cols = 2 if panels == 4 else panels
    fig, grid = plt.subplots(panels // cols, cols, figsize=(6.2 * cols, 5.0 * (panels // cols)), squeeze=False)
    axes = grid.reshape(1, -1)  # the panels in reading order
    lines = {}
    for rec in r["by_layer_type"]:
        lines.setdefault((rec["reader"], rec["layer_type"]), []).append(rec)
    styles = {}
    for ax, (key, label) in zip(axes[0], MEASURES):
        for (reader, kind), recs in lines.items():
            recs = sorted(recs, key=lambda x: x["length"])
            colour = styles.setdefault(reader, "C%d" % (len(styles) % 10))
            dash = "--" if kind.startswith("local") else ":" if kind.startswith("global") else "-"
            xs = [x["length"] for x in recs]
            ax.plot(xs, [x[key]["mean"] for x in recs], dash, color=colour, marker="o", ms=3,
                    label="%s: %s" % (reader, kind) if reader != kind.replace("NoPE", "none").lower() else reader)
            ax.fill_between(xs, [x[key]["min"] for x in recs], [x[key]["max"] for x in recs], color=colour,
                            alpha=0.12, lw=0)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%d" % v))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticks(sorted({x["length"] for x in r["by_layer_type"]}))
        ax.set_xlabel("length read (trained at %s)" % ", ".join(str(x) for x in r["train_length"]))
        ax.set_ylabel(label)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axes[0, 0].legend(fontsize=6.5, loc="upper left")
    if alibi:
        ax = axes[0, len(MEASURES)]
        heads = sorted({h["head"] for h in r["alibi_heads"]})
        # (at the training length no key is past it: nothing to draw)
        lengths = sorted({h["length"] for h in r["alibi_heads"] if h["length"] > max(r["train_length"])})
        width = 0.8 / max(1, len(lengths))
        for j, n in enumerate(lengths):
            hs = sorted((h for h in r["alibi_heads"] if h["length"] == n), key=lambda h: h["head"])
            xs = [heads.index(h["head"]) + (j - (len(lengths) - 1) / 2) * width for h in hs]
            m = [h["measured"]["mean"] for h in hs]
            err = [[h["measured"]["mean"] - h["measured"]["min"] for h in hs],
                   [h["measured"]["max"] - h["measured"]["mean"] for h in hs]]
            ax.bar(xs, m, width * 0.9, color="C%d" % (j + 1), alpha=0.7, yerr=err, capsize=2,
                   label="trained heads at %d" % n)
            ax.plot(xs, [h["bias_only"] for h in hs], "D", mfc="white", mec="k", ms=6, mew=1.5, ls="none",
                    label="the bias alone" if j == len(lengths) - 1 else None)
        slopes = {h["head"]: h["slope"] for h in r["alibi_heads"]}
        ax.set_xticks(range(len(heads)))
        ax.set_xticklabels(["head %d\nslope 1/%g" % (h, 1 / slopes[h]) for h in heads], fontsize=8)
        ax.set_ylabel("ALiBi: mass on keys past the training length")
        ax.legend(fontsize=8, loc="upper left")
        ax.grid(axis="y", alpha=0.3)
    if probe:
        ax = axes[0, -1]
        rows = r["probe"]["rows"]
        states = sorted({x["state"] for x in rows})
        keys = []
        for x in rows:
            if (x["scheme"], x["weights"]) not in keys:
                keys.append((x["scheme"], x["weights"]))
        width = 0.8 / max(1, len(keys))
        for j, (scheme, weights) in enumerate(keys):
            xs_ = sorted((x for x in rows if (x["scheme"], x["weights"]) == (scheme, weights)), key=lambda x: x["state"])
            pos = [states.index(x["state"]) + (j - (len(keys) - 1) / 2) * width for x in xs_]
            m = [x["r2"]["mean"] for x in xs_]
            err = [[x["r2"]["mean"] - x["r2"]["min"] for x in xs_], [x["r2"]["max"] - x["r2"]["mean"] for x in xs_]]
            ax.bar(pos, m, width * 0.9, yerr=err, capsize=2, label="%s, %s weights" % (scheme, weights),
                   color="C%d" % (j // 2 * 2), alpha=1.0 if weights == "trained" else 0.35)
        ax.axhline(0, color="k", lw=0.8)
        ax.set_xticks(range(len(states)))
        ax.set_xticklabels(["embedding" if st == 0 else "after block %d" % st for st in states])
        ax.set_ylabel("held-out R^2 of a linear probe of the position")
        ax.legend(fontsize=8, loc="upper left")
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("Attention beyond RoPE (char LM, committed checkpoints): solid a whole model's layers, dashed "
                 "local RoPE layers, dotted global NoPE layers of hybrid stacks", fontsize=10)
    fig.tight_layout()
    return fig
