"""The direction task's figures (docs/tasks.md, "Direction"), from the folder of its two experiments
(results/direction/before/results.json and results/direction/nearest/results.json): direction_accuracy
(accuracy against length per scheme, one panel per rule, the exact readers dashed) and
direction_score_by_offset (every head's score against the signed offset of a key from its query)."""
from .load import ACCURACY, LENGTHS, DataError, List, Num, Obj, Str, load_each
from .style import accuracy_axes, plt

RULES = ("before", "nearest")
TITLES = {"before": "before: the nearest mark BEFORE the query (signed)",
          "nearest": "nearest: the nearest mark on EITHER side (unsigned control)"}


def load_direction(folder):
    """{rule: results} for the rules whose results.json is in the folder; ABSENT when neither is."""
    return load_each(folder, RULES)


def check_direction(d):
    for rule, r in d.items():
        Obj({"lengths": LENGTHS}).check(r, "")
        n, why = len(r["lengths"]), " (one per entry of lengths)"
        curve = List(Num(), nonempty=True, null=True)
        Obj({"direction_rule": Str(),
             "rows": List(Obj({"scheme": Str(), "map": Str(), "mean": List(ACCURACY, n, why),
                               "lo?": List(ACCURACY, n, why), "hi?": List(ACCURACY, n, why),
                               "seeds": List(Obj({"accuracy": List(ACCURACY, n, why)}))}), nonempty=True),
             "bag_reader_on_test_set": List(ACCURACY, n, why),
             "distance_reader_on_test_set": List(ACCURACY, n, why),
             "test_sequences": Num(lo=0, integer=True),
             "geometry": Obj({"window": Obj({"length": Num(integer=True), "query_row": Num(integer=True)}),
                              "heads": List(Obj({"scheme": Str(), "seed": Num(integer=True), "window": curve}))})}
            ).check(r, rule)
        if r["direction_rule"] != rule:
            raise DataError("%s/results.json holds rule %r" % (rule, r["direction_rule"]))


def fig_direction_accuracy(d):
    fig, axes = plt.subplots(len(d), 1, figsize=(11.0, 4.6 * len(d)), squeeze=False)
    for ax, (rule, r) in zip(axes[:, 0], sorted(d.items(), key=lambda kv: RULES.index(kv[0]))):
        rows = [row for row in r["rows"] if row["map"] == "none"]
        accuracy_axes(ax, r, rows, "Direction task, %s\n(%d test sequences per length; bands: 95%% interval)"
                      % (TITLES[rule], r["test_sequences"]))
        for key, style, name in (("bag_reader_on_test_set", "k--", "bag reader (no positions)"),
                                 ("distance_reader_on_test_set", "k:", "unsigned-distance reader")):
            ax.plot(r["lengths"], r[key], style, lw=1.5, label=name)
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(handles=handles, fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig


def fig_direction_score_by_offset(d):
    schemes = []
    for r in d.values():
        for h in r["geometry"]["heads"]:
            if h["scheme"] not in schemes and h["window"] is not None:
                schemes.append(h["scheme"])
    if not schemes:
        return "no head with a score curve"
    cols = 5
    rows = (len(schemes) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(15.0, 3.2 * rows), squeeze=False, sharex=True)
    colour = {"before": "tab:blue", "nearest": "tab:orange"}
    for i, scheme in enumerate(schemes):
        ax = axes[i // cols][i % cols]
        for rule, r in d.items():
            q = r["geometry"]["window"]["query_row"]
            for k, h in enumerate(h for h in r["geometry"]["heads"] if h["scheme"] == scheme and h["window"]):
                s = h["window"]
                xs = [t - q for t in range(len(s)) if t != q]
                ys = [s[t] for t in range(len(s)) if t != q]
                ax.plot(xs, ys, "-", color=colour[rule], lw=1, alpha=0.8, label=rule if k == 0 else None)
        ax.axvline(0, color="grey", lw=0.8, ls=":")
        ax.set_title(scheme, fontsize=10)
        ax.grid(alpha=0.3)
        if i % cols == 0:
            ax.set_ylabel("score of a marked key")
        if i // cols == rows - 1:
            ax.set_xlabel("signed offset key - query (tokens)")
        if i == 0:
            ax.legend(fontsize=7, title="rule (each seed)", title_fontsize=7)
    for j in range(len(schemes), rows * cols):
        axes[j // cols][j % cols].axis("off")
    fig.suptitle("Direction heads: score of the query token for a marked key against its signed offset\n(query in "
                 "the middle of the training window; mean over the marked symbols; left of 0: before the query)")
    fig.tight_layout()
    return fig
