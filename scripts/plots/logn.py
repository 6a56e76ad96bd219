"""logn: every scheme read plainly and with log-length scaling (docs/schemes.md, "Log-length scaling"), from
the folder of experiments/logn/ (tournament/, passkey/ and charlm/ results.json): one panel per task, the
value at its longest read per scheme, plain (open) and with logn (filled), an arrow between them."""
from .load import ACCURACY, LENGTHS, List, Num, Obj, Str, load_each
from .style import plt

TASKS = ("tournament", "passkey", "charlm")


def load_logn(folder):
    """{task: results} for the tasks whose results.json is in the folder; ABSENT when none is."""
    return load_each(folder, TASKS)


def check_logn(d):
    for task, r in d.items():
        Obj({"lengths": LENGTHS}).check(r, task)
        n, why = len(r["lengths"]), " (one per entry of lengths)"
        if task == "charlm":
            Obj({"summary": List(Obj({"scheme": Str(), "map": Str(), "mean": List(Num(lo=0, null=True), n, why)}),
                                 nonempty=True)}).check(r, task)
        else:
            key = "mean" if task == "tournament" else "accuracy"
            Obj({"rows": List(Obj({"scheme": Str(), "map": Str(), key: List(ACCURACY, n, why, null=True)}),
                              nonempty=True)}).check(r, task)


def pairs(task, r):
    """[(scheme, plain, with logn, disjoint)] at the longest length, in the results' order (schemes without both
    skipped); disjoint: the two 95% intervals do not overlap (False where a row has none)."""
    i = len(r["lengths"]) - 1
    rows = r["summary"] if task == "charlm" else r["rows"]
    key = "mean" if task != "passkey" else "accuracy"

    def interval(x):
        m = x[key][i]
        if "lo" in x and "hi" in x and x["lo"][i] is not None and x["hi"][i] is not None:
            return x["lo"][i], x["hi"][i]
        if x.get("half_width") and x["half_width"][i] is not None:
            return m - x["half_width"][i], m + x["half_width"][i]
        return None

    found = {(x["scheme"], x["map"]): x for x in rows if not x.get("finetuned")}
    out = []
    for x in rows:
        s, y = x["scheme"], found.get((x["scheme"], "logn"))
        if x["map"] != "none" or y is None or x[key][i] is None or y[key][i] is None:
            continue
        a, b = interval(x), interval(y)
        out.append((s, x[key][i], y[key][i], bool(a and b and (a[1] < b[0] or b[1] < a[0]))))
    return out


TITLES = {"tournament": "tournament (10 seeds), accuracy at %d", "passkey": "passkey (3 seeds), accuracy at %d",
          "charlm": "char LM (3 seeds), perplexity at %d (lower is better)"}


def fig_logn(d):
    tasks = [t for t in TASKS if t in d]
    fig, axes = plt.subplots(len(tasks), 1, figsize=(11.0, 3.4 * len(tasks)), squeeze=False)
    for ax, task in zip(axes[:, 0], tasks):
        r = d[task]
        ps = pairs(task, r)
        if not ps:
            ax.text(0.5, 0.5, "no scheme read both ways", ha="center", transform=ax.transAxes)
            continue
        for k, (s, a, b, disjoint) in enumerate(ps):
            better = b < a if task == "charlm" else b > a
            color = ("tab:green" if better else "tab:red") if disjoint else "0.55"
            visible = abs(b - a) > (0.05 * max(a, b) if task == "charlm" else 0.03)
            if visible:
                ax.annotate("", xy=(k, b), xytext=(k, a), arrowprops=dict(arrowstyle="->", color=color, lw=1.4))
            ax.plot([k], [b], "o", color=color, ms=6)
            ax.plot([k], [a], "o", mfc="none", mec="k", ms=8)
        ax.set_xticks(range(len(ps)))
        ax.set_xticklabels([p[0] for p in ps], rotation=30, ha="right", fontsize=8)
        if task == "charlm":
            ax.set_yscale("log")
        else:
            ax.set_ylim(-0.03, 1.03)
        ax.set_title(TITLES[task] % r["lengths"][-1], fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0, 0].plot([], [], "o", mfc="none", mec="k", ms=8, label="plain")
    axes[0, 0].plot([], [], "o", color="tab:green", label="with logn: better\n(95% intervals disjoint)")
    axes[0, 0].plot([], [], "o", color="tab:red", label="with logn: worse\n(95% intervals disjoint)")
    axes[0, 0].plot([], [], "o", color="0.55", label="with logn: intervals\noverlap")
    axes[0, 0].legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.suptitle("Log-length scaling (logits x max(1, ln n / ln L)) at the longest read, committed checkpoints",
                 fontsize=11)
    fig.tight_layout()
    return fig
