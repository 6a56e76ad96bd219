"""The cue task's figures: tournament, rescaling (its RoPE heads read through each map) and
rope_score_by_age (geometry.json)."""
from .load import ACCURACY, HALF_WIDTH, LENGTH, LENGTHS, Any, List, Map, Num, Obj, Str
from .style import SIZE, accuracy_axes, plt


def check_cue_results(r):
    """What tournament and rescaling read of a cue results.json."""
    Obj({"lengths": LENGTHS}).check(r, "")
    n, why = len(r["lengths"]), " (one per entry of lengths)"
    Obj({"rows": List(Obj({"scheme": Str(), "map": Str(),
                           "mean": List(ACCURACY, n, why),
                           "half_width?": List(HALF_WIDTH, n, why),
                           "lo?": List(ACCURACY, n, why), "hi?": List(ACCURACY, n, why),
                           "seeds": List(Obj({"accuracy": List(ACCURACY, n, why)}))}), nonempty=True),
         "test_sequences": Num(lo=0, integer=True),
         "experiment?": Obj({"train_length?": Num(lo=1, hi=2 ** 31)}),
         "reference?": Obj({"rows?": Map(List(Any())), "lengths?": List(Any())}, null=True)}).check(r, "")


def check_geometry(g):
    """What rope_score_by_age reads of geometry.json."""
    point = Obj({"age": Num(), "score": Num()})
    Obj({"rope?": List(Obj({"train_length": LENGTH, "seed": Num(integer=True),
                            "score_by_age": List(Num(), nonempty=True),
                            "deepest_past_window": point, "highest_after_deepest": point}), null=True)}).check(g, "")


def fig_tournament(r):
    rows = [row for row in r["rows"] if row["map"] == "none"]
    if not rows:
        return "no row is read without a map"
    fig, ax = plt.subplots(figsize=SIZE)
    accuracy_axes(ax, r, rows, "Cue task: which marked token came last? accuracy against test length\n"
                  "(%d test sequences per length; bands: 95%% interval over seeds and test set)" % r["test_sequences"])
    return fig


def fig_rescaling(r):
    rows = [row for row in r["rows"] if row["scheme"] == "rope"]
    if not rows:
        return "no RoPE row"
    fig, ax = plt.subplots(figsize=SIZE)
    accuracy_axes(ax, r, rows, "RoPE heads re-read with context-extension maps (kappa = n / 32, no retraining)")
    return fig


def fig_rope_score(g):
    if not g.get("rope"):
        return "no RoPE head"
    fig, ax = plt.subplots(figsize=SIZE)
    train = g["rope"][0]["train_length"]
    ax.axvspan(0, train - 1, color="grey", alpha=0.15, label="training window (ages 0..%d)" % (train - 1))
    for head in g["rope"]:
        s = head["score_by_age"]
        ax.plot(range(len(s)), s, lw=1, alpha=0.8, label="seed %d" % head["seed"])
    # the dive and the rebound of the first head, labelled
    h = g["rope"][0]
    d, up = h["deepest_past_window"], h["highest_after_deepest"]
    ax.annotate("dive: age %d (seed %d)" % (d["age"], h["seed"]), (d["age"], d["score"]),
                (d["age"] + 15, d["score"] - 4),
                arrowprops={"arrowstyle": "->"}, fontsize=8)
    ax.annotate("rebound: age %d (seed %d)" % (up["age"], h["seed"]), (up["age"], up["score"]),
                (up["age"] + 10, up["score"] + 4),
                arrowprops={"arrowstyle": "->"}, fontsize=8)
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("age of the marked key r = query position - key position (tokens)")
    ax.set_ylabel("query-key content score q.k / sqrt(d)")
    ax.set_title("RoPE heads: score of a marked key against its age (mean over marked symbols)")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.grid(alpha=0.3)
    return fig
