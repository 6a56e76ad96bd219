"""packing: passkey models trained under four packing policies (and whole windows, from results/passkey),
from scripts/packing_summary.py's summary.json: one panel per scheme, whole-passkey accuracy of single
documents against length per policy; a last panel of the packed windows at the training length
(accuracy read as each policy trained, accuracy across documents, and how often a distractor was taken).
packing_charlm: char LMs trained on The Time Machine's paragraphs under the same policies, from
scripts/packing_charlm_summary.py's summary-charlm.json: perplexity against context per scheme, and the
loss by position inside a paragraph."""
from matplotlib.ticker import FuncFormatter, NullLocator

from .load import ACCURACY, LENGTHS, Any, DataError, List, Num, Obj, Str
from .style import plt

POLICY_COLOURS = {"none": "k", "padded": "tab:blue", "packed": "tab:red", "isolated-reset": "tab:green",
                  "isolated-global": "tab:orange"}


def check_packing(r):
    """What packing reads of results/packing/summary.json."""
    Obj({"lengths": LENGTHS, "schemes": List(Str(), nonempty=True), "policies": List(Str(), nonempty=True),
         "single": Any(), "packed": Any(), "missing": List(Str())}).check(r, "")
    n, why = len(r["lengths"]), " (one per entry of lengths)"
    cell = Obj({"accuracy": List(ACCURACY, n, why, null=True), "lo": List(ACCURACY, n, why, null=True),
                "hi": List(ACCURACY, n, why, null=True)})

    def section(name, s):
        if not isinstance(r[name], dict):
            raise DataError("%s: not an object of schemes" % name)
        v = r[name].get(s, {})
        if not isinstance(v, dict) or not all(isinstance(c, dict) for c in v.values()):
            raise DataError("%s.%s: not an object of policies" % (name, s))
        return v

    for s in r["schemes"]:
        for p, c in section("single", s).items():
            cell.check(c, "single.%s.%s" % (s, p))
        for p, c in section("packed", s).items():
            Obj({"own": Str()}).check(c, "packed.%s.%s" % (s, p))
            for layout in ("packed", c["own"]):
                if not isinstance(c.get(layout), dict):
                    raise DataError("packed.%s.%s: no reading under the layout %s" % (s, p, layout))
            for layout in ("packed", c["own"]):
                Obj({"later_accuracy": ACCURACY, "later_lo": ACCURACY, "later_hi": ACCURACY,
                     "distractor_rate": Num(lo=0, hi=1)}).check(c[layout], "packed.%s.%s.%s" % (s, p, layout))


def fig_packing(r):
    schemes, lengths = r["schemes"], r["lengths"]
    cols = 4
    rows = (len(schemes) + 1 + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.4 * cols, 3.6 * rows), squeeze=False)
    flat = [a for line in axes for a in line]
    for ax, s in zip(flat, schemes):
        for p in ["none"] + r["policies"]:
            c = r["single"].get(s, {}).get(p)
            if c is None:
                continue
            pts = [(x, m, lo, hi) for x, m, lo, hi in zip(lengths, c["accuracy"], c["lo"], c["hi"]) if m is not None]
            if not pts:
                continue
            xs, ms, los, his = zip(*pts)
            ax.plot(xs, ms, marker="o", ms=3, lw=1.3, color=POLICY_COLOURS.get(p), label=p)
            ax.fill_between(xs, los, his, color=POLICY_COLOURS.get(p), alpha=0.12, lw=0)
        ax.set_xscale("log", base=2)
        ax.set_xticks(lengths)
        ax.set_xticklabels([str(n) for n in lengths])
        ax.set_ylim(-0.02, 1.05)
        ax.axvline(64, color="k", ls=":", lw=1)
        ax.grid(alpha=0.3)
        ax.set_title(s, fontsize=10)
        ax.set_xlabel("document length (tokens)", fontsize=8)
        ax.set_ylabel("whole-passkey accuracy", fontsize=8)
    flat[0].legend(fontsize=7, title="training windows", title_fontsize=7)
    ax = flat[len(schemes)]
    width = 0.8 / max(1, len(r["policies"]))
    for j, p in enumerate(r["policies"]):
        xs, own, across, distract = [], [], [], []
        for i, s in enumerate(schemes):
            c = r["packed"].get(s, {}).get(p)
            if c is None:
                continue
            xs.append(i + (j - (len(r["policies"]) - 1) / 2) * width)
            own.append(c[c["own"]]["later_accuracy"])
            across.append(c["packed"]["later_accuracy"])
            distract.append(c["packed"]["distractor_rate"])
        if not xs:
            continue
        ax.bar(xs, own, width * 0.9, color=POLICY_COLOURS.get(p), alpha=0.35, label=p + ": as trained")
        ax.bar(xs, across, width * 0.9, color=POLICY_COLOURS.get(p), alpha=0.9, label=p + ": across documents")
        ax.scatter(xs, distract, marker="x", color="k", s=14, zorder=3)
    ax.set_xticks(range(len(schemes)))
    ax.set_xticklabels(schemes, rotation=45, fontsize=7)
    ax.set_ylim(0, 1.5)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_title("packed windows of 64, documents after the first: accuracy\nas trained (light), across documents "
                 "(dark); x: distractor taken",
                 fontsize=8)
    ax.legend(fontsize=5.5, ncol=2, loc="upper center")
    for a in flat[len(schemes) + 1:]:
        a.axis("off")
    missing = ("; not yet run: " + ", ".join(r["missing"])) if r["missing"] else ""
    fig.suptitle("Packing: passkey problems of 16-64 tokens in training windows of 64 (mean of seeds and 95%% interval, "
                 "logit scale)%s\nsingle documents read at each length (dotted: the training window); none = whole "
                 "64-token windows (results/passkey)" % missing, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    return fig


READING_STYLES = {"running": "-", "documents": "--"}


def check_packing_charlm(r):
    """What packing_charlm reads of results/packing/summary-charlm.json."""
    Obj({"lengths": LENGTHS, "train_length": Num(lo=1, integer=True), "schemes": List(Str(), nonempty=True),
         "policies": List(Str(), nonempty=True), "cells": Any(), "position": Any(),
         "missing": List(Str())}).check(r, "")
    n, why = len(r["lengths"]), " (one per entry of lengths)"
    cell = Obj({"mean": List(Num(above=0, null=True), n, why), "half_width": List(Num(lo=0, null=True), n, why)})
    for name in ("cells", "position"):
        if not isinstance(r[name], dict) or not all(isinstance(v, dict) for v in r[name].values()):
            raise DataError("%s: not an object of models, each an object of policies" % name)
    for s, by_policy in r["cells"].items():
        for p, readings in by_policy.items():
            if not isinstance(readings, dict):
                raise DataError("cells.%s.%s: not an object of readings" % (s, p))
            for reading, c in readings.items():
                cell.check(c, "cells.%s.%s.%s" % (s, p, reading))
    for s, by_policy in r["position"].items():
        for p, c in by_policy.items():
            Obj({"window": Num(lo=1, integer=True), "bins": List(Num(lo=0, null=True), nonempty=True)}).check(
                c, "position.%s.%s" % (s, p))


def octaves(bins, window):
    """The bins of `window` positions averaged over octaves of position: [0, w), [w, 2w), [2w, 4w), ... as
    (the octave's middle position, the mean of its bins), an octave with a missing bin left out."""
    out, lo = [], 0
    while lo < len(bins):
        hi = max(1, 2 * lo)
        part = bins[lo:hi]
        if all(v is not None for v in part):
            out.append(((lo + min(hi, len(bins))) * window / 2, sum(part) / len(part)))
        lo = hi
    return out


def fig_packing_charlm(r):
    schemes, lengths = r["schemes"], r["lengths"]
    position_schemes = [s for s in ("none", "learned", "rope", "alibi") if s in r["position"]]
    cols = 4
    panels = len(schemes) + len(position_schemes)
    rows = (panels + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.4 * cols, 3.5 * rows), squeeze=False)
    flat = [a for line in axes for a in line]
    for ax, s in zip(flat, schemes):
        top = 0
        for p in r["policies"]:
            for reading, ls in READING_STYLES.items():
                c = r["cells"].get(s, {}).get(p, {}).get(reading)
                if c is None:
                    continue
                pts = [(x, m, h or 0) for x, m, h in zip(lengths, c["mean"], c["half_width"]) if m is not None]
                if not pts:
                    continue
                xs, ms, hs = zip(*pts)
                ax.plot(xs, ms, ls=ls, marker="o", ms=2.5, lw=1.2, color=POLICY_COLOURS.get(p),
                        label="%s, %s" % (p, "running text" if reading == "running" else "each paragraph alone"))
                ax.fill_between(xs, [max(m - h, m / 2) for m, h in zip(ms, hs)], [m + h for m, h in zip(ms, hs)],
                                color=POLICY_COLOURS.get(p), alpha=0.12, lw=0)
                top = max(top, max(ms))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        if top > 0:  # about five ticks spread evenly on the log scale, labelled plainly
            lo, hi = ax.get_ylim()
            ax.yaxis.set_minor_locator(NullLocator())
            ax.set_yticks([lo * (hi / lo) ** (k / 5) for k in range(6)])
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%.4g" % v))
            ax.set_ylim(lo, hi)
        ax.tick_params(axis="y", labelsize=7)
        ax.set_xticks(lengths)
        ax.set_xticklabels([str(n) for n in lengths])
        ax.axvline(r["train_length"], color="k", ls=":", lw=1)
        ax.grid(alpha=0.3, which="both")
        ax.set_title(s, fontsize=10)
        ax.set_xlabel("context read (characters)", fontsize=8)
        ax.set_ylabel("validation perplexity (log)", fontsize=8)
    flat[0].legend(fontsize=5.5, title="training policy, reading", title_fontsize=6)
    for ax, s in zip(flat[len(schemes):], position_schemes):
        for p in r["policies"]:
            c = r["position"][s].get(p)
            if c is None:
                continue
            pts = octaves(c["bins"], c["window"])
            if pts:
                ax.plot(*zip(*pts), lw=1.2, marker="o", ms=2.5, color=POLICY_COLOURS.get(p), label=p)
        ax.set_xscale("log", base=2)
        ax.axvline(r["train_length"], color="k", ls=":", lw=1)
        ax.grid(alpha=0.3)
        ax.set_title("%s: loss by position inside a paragraph" % s, fontsize=9)
        ax.set_xlabel("position in the paragraph (read alone; octaves from the first bin)", fontsize=8)
        ax.set_ylabel("cross-entropy (nats)", fontsize=8)
        ax.legend(fontsize=6)
    for a in flat[panels:]:
        a.axis("off")
    missing = ("; not yet run: " + ", ".join(r["missing"])) if r["missing"] else ""
    fig.suptitle("Packing, the char LM: the paragraphs of The Time Machine in training windows of %d under four "
                 "policies (mean of seeds, 95%% interval)%s\nsolid: the running text read across paragraphs; "
                 "dashed: each paragraph read alone from position 0 (dotted: the training length)" %
                 (r["train_length"], missing), fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    return fig
