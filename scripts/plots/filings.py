"""The filings study's figures: filings_accuracy, and filings_document / filings_lab (one filing
read by every reader)."""
import matplotlib.patches

from .load import ACCURACY, HALF_WIDTH, List, Map, Num, Obj, Str
from .style import SIZE, interval_ends, label, plt


def check_filings_results(r):
    """What filings_accuracy reads of the filings results.json: two columns (all queries, far ones)."""
    why = " (all queries, far queries)"
    two = List(ACCURACY, 2, why)
    Obj({"rows": List(Obj({"scheme": Str(), "map": Str(), "mean": two, "half_width?": List(HALF_WIDTH, 2, why),
                           "lo?": List(ACCURACY, 2, why), "hi?": List(ACCURACY, 2, why),
                           "seeds": List(Obj({"accuracy": two}))}), nonempty=True),
         "queries": Num(lo=0, integer=True), "far": Num(lo=0, integer=True), "far_queries": Num(lo=0, integer=True),
         "first_company": List(Num(lo=0, hi=1), 2, why), "most_named_so_far?": List(Num(lo=0, hi=1), 2, why),
         "reference?": Obj({"rows?": Map(two)}, null=True)}).check(r, "")


def check_document(d):
    """What filings_document reads of document.json: every list aligned with the document's words."""
    Obj({"document": Obj({"words": List(Str(), nonempty=True), "companies": List(Str(), most=8)})}).check(d, "")
    doc = d["document"]
    n, k, why = len(doc["words"]), len(doc["companies"]), " (one per word of document.words)"
    Obj({"document": Obj({"id": Str(), "kind": Str(), "marks": List(Num(integer=True), n, why),
                          "targets": List(Num(lo=-1, hi=k - 1, integer=True), n, why)}),
         "readers": List(Obj({"reader": Str(), "seed": Num(integer=True),
                              "answers": List(Num(lo=-1, hi=7, integer=True), n, why)}))}).check(d, "")


def fig_filings_accuracy(r):
    ref = (r.get("reference") or {}).get("rows", {})
    rows = r["rows"]
    fig, ax = plt.subplots(figsize=SIZE)
    width = 0.38
    names = ["all queries (%d)" % r["queries"], "answer more than %d back (%d)" % (r["far"], r["far_queries"])]
    for col in range(2):
        xs = [i + (col - 0.5) * width for i in range(len(rows))]
        means = [row["mean"][col] if row["mean"][col] is not None else 0 for row in rows]
        ends = [(interval_ends(row) or [(None, None)] * 2)[col] for row in rows]
        errs = [[e[0] or 0 for e in ends], [e[1] or 0 for e in ends]]  # asymmetric: below, above
        ax.bar(xs, means, width * 0.95, yerr=errs, capsize=3, color=("#4878a8", "#e08040")[col], label=names[col])
        for x, row in zip(xs, rows):
            ys = [sd["accuracy"][col] for sd in row["seeds"] if sd["accuracy"][col] is not None]
            ax.plot([x] * len(ys), ys, "k.", ms=3)
            pub = ref.get(label(row))
            if pub is not None and pub[col] is not None:
                ax.plot([x - width / 2, x + width / 2], [pub[col]] * 2, color="k", lw=2)
    # the two rules without positions: in the legend (their lines can lie within a hair of each other)
    for col in range(2):
        ax.axhline(r["first_company"][col], color=("#4878a8", "#e08040")[col], ls=":", lw=1,
                   label=None if col else "always the first company (dotted)")
    if "most_named_so_far" in r:
        for col in range(2):
            ax.axhline(r["most_named_so_far"][col], color=("#4878a8", "#e08040")[col], ls="--", lw=1,
                       label=None if col else "the company named most so far (dashed)")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([label(row) for row in rows])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy on the held-out filings")
    ax.set_title("Filings: which company was named last? Trained on 32-token windows, read on whole documents\n"
                 "bars: mean of %d seeds, 95%% interval (logit scale); dots: seeds; black lines: published; "
                 "dotted, dashed: rules without positions"
                 % max(len(row["seeds"]) for row in rows), fontsize=10)
    ax.legend(fontsize=8, loc="lower left")
    ax.grid(alpha=0.3, axis="y")
    return fig


def fig_filings_document(d):
    import numpy as np
    from matplotlib.colors import ListedColormap
    doc = d["document"]
    n = len(doc["words"])
    targets = doc["targets"]
    rows = [("true answer", targets)]
    for rd in d["readers"]:
        rows.append(("%s s%d" % (rd["reader"], rd["seed"]),
                     [x if t >= 0 else -1 for x, t in zip(rd["answers"], targets)]))
    grid = np.array([[v + 1 for v in answers] for _, answers in rows], dtype=float)  # 0: not a query
    colours = ["#ffffff"] + list(plt.get_cmap("tab10").colors[:8])
    fig, ax = plt.subplots(figsize=SIZE)
    ax.imshow(grid, aspect="auto", interpolation="nearest", cmap=ListedColormap(colours), vmin=0, vmax=8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([name for name, _ in rows], fontsize=5)
    ax.axhline(0.5, color="k", lw=1)
    mentions = [i for i, m in enumerate(doc["marks"]) if m]
    ax.plot(mentions, [-0.75] * len(mentions), "kv", ms=3, clip_on=False)
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_xlabel("position in the document (triangles: company mentions; white: before the first mention)")
    companies = ", ".join("%d %s" % (i, c) for i, c in enumerate(doc["companies"]))
    what = "The laboratory's filing" if doc["id"] == "lab" else "Held-out filing " + doc["id"]
    ax.set_title("%s (%s, %d tokens): each reader's answer at every position, colour = company\n%s"
                 % (what, doc["kind"], n, companies), fontsize=8)
    handles = [matplotlib.patches.Patch(color=colours[i + 1], label="%d %s" % (i, c))
               for i, c in enumerate(doc["companies"])]
    answered = sorted({v for _, answers in rows for v in answers if v >= len(doc["companies"])})
    handles += [matplotlib.patches.Patch(color=colours[v + 1], label="%d (no such company here)" % v) for v in answered]
    ax.legend(handles=handles, fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig
