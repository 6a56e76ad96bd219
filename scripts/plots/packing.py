"""packing: passkey models trained under four packing policies (and whole windows, from results/passkey),
from scripts/packing_summary.py's summary.json: one panel per scheme, whole-passkey accuracy of single
documents against length per policy; a last panel of the packed windows at the training length
(accuracy read as each policy trained, accuracy across documents, and how often a distractor was taken)."""
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
