"""exercises: the chapter's exercises drawn from results/exercises/ (pe-bench exercise; docs/exercises.md).
Exercise 3's code at d = 32: columns 6-9 against the position (the d2l figure), and the whole code as a
heatmap beside the binary digits of the same positions (the binary-counting view: the fast columns flip
like the low bits, the slow ones like the high bits). Exercise 4: the cosine between the rows of a learned
table of 512 rows trained at 128, the untrained rows past the training length marked. Exercise 7: the
rotated pair plane, a unit pair in four of RoPE's planes turned to positions 0..31. Exercise 13.1: the head that prefers the key one
step back, its score against the key's age read at 8x its training length plainly and through each map,
age 1 marked."""
from .load import List, Num, Obj, Str, load_each

IDS = ("3", "4", "7", "13.1")
CODE_COLUMNS = (6, 7, 8, 9)
SHOWN_AGES = 48  # 13.1's curves up to this age: the best ages (1, 4, 8) and the first returns
WIDE = 3  # each binary digit drawn this many columns wide


def load_exercises(folder):
    """{id: answer} for the exercises this figure draws whose <id>.json is in the folder; ABSENT when none is."""
    return load_each(folder, IDS, lambda eid: eid + ".json")


def check_exercises(d):
    if "3" in d:
        Obj({"answer": Obj({"figure": Obj({"d": Num(lo=max(CODE_COLUMNS) + 1, hi=4096, integer=True),
                                           "positions": Num(lo=2, hi=4096, integer=True),
                                           "code": List(List(Num(lo=-1, hi=1)), nonempty=True)})})}).check(d["3"], "3")
        fig = d["3"]["answer"]["figure"]
        List(List(Num(lo=-1, hi=1), fig["d"], " (one per column, d)"), fig["positions"],
             " (one per position)").check(fig["code"], "3.answer.figure.code")
    if "4" in d:
        Obj({"answer": Obj({"without_weight_decay": Obj({
            "train_length": Num(lo=1, integer=True), "rows": Num(lo=2, integer=True),
            "cosine_heatmap": Obj({"stride": Num(lo=1, integer=True),
                                   "values": List(List(Num(lo=-1.0001, hi=1.0001), nonempty=True),
                                                  nonempty=True)})})})}).check(d["4"], "4")
        h = d["4"]["answer"]["without_weight_decay"]["cosine_heatmap"]
        n = len(h["values"])
        List(List(Num(lo=-1.0001, hi=1.0001), n, " (a square: as many columns as rows)"), n).check(
            h["values"], "4.answer.without_weight_decay.cosine_heatmap.values")
    if "7" in d:
        Obj({"answer": Obj({"planes": List(Obj({
            "plane": Num(lo=0, integer=True), "theta": Num(lo=0), "turns_over_training": Num(lo=0),
            "points": List(List(Num(lo=-1.0001, hi=1.0001), 2, " (x, y)"), nonempty=True)}), nonempty=True,
            most=10)})}).check(d["7"], "7")
    if "13.1" in d:
        Obj({"answer": Obj({"train_length": Num(lo=1, integer=True), "read_length": Num(lo=2, integer=True),
                            "rows": List(Obj({"map": Str(), "best_age": Num(lo=0, integer=True),
                                              "scores_over_c": List(Num(lo=-100, hi=100), nonempty=True)}),
                                         nonempty=True)})}).check(d["13.1"], "13.1")


def fig_exercises(d):
    from .style import plt
    panels = (2 if "3" in d else 0) + (1 if "4" in d else 0) + (1 if "7" in d else 0) + (1 if "13.1" in d else 0)
    cols = 2 if panels == 4 else 3 if panels > 4 else panels
    rows = -(-panels // cols)
    fig, grid = plt.subplots(rows, cols, figsize=(5.8 * cols, 4.8 * rows), squeeze=False)
    axes = list(grid.reshape(-1))  # the panels in reading order
    for ax in axes[panels:]:
        ax.set_visible(False)
    if "3" in d:
        f = d["3"]["answer"]["figure"]
        code, n = f["code"], f["positions"]
        ax = axes.pop(0)
        for c in CODE_COLUMNS:
            ax.plot(range(n), [row[c] for row in code], marker="o", ms=2.5, lw=1.2, label="column %d" % c)
        ax.set_xlabel("position")
        ax.set_ylabel("code value")
        ax.set_title("exercise 3: columns 6-9 of the code, d = %d" % f["d"], fontsize=10)
        ax.legend(fontsize=7, loc="lower left")
        ax.grid(alpha=0.3)
        ax = axes.pop(0)
        bits = max(1, (n - 1).bit_length())
        # the code's columns, then a gap, then the binary digits of each position (lowest bit first)
        # (each digit drawn WIDE columns wide, so the few digits read beside the code's many columns)
        rows = [row + [float("nan")] + [1.0 if (m >> b) & 1 else -1.0 for b in range(bits) for _ in range(WIDE)]
                for m, row in enumerate(code)]
        ax.imshow(rows, aspect="auto", cmap="RdBu", vmin=-1, vmax=1, interpolation="nearest")
        ax.set_xticks([0, f["d"] // 2, f["d"] - 1, f["d"] + 1 + WIDE // 2, f["d"] + 1 + WIDE * (bits - 1) + WIDE // 2])
        ax.set_xticklabels(["0", str(f["d"] // 2), str(f["d"] - 1), "bit 0", "bit %d" % (bits - 1)], fontsize=7)
        ax.set_ylabel("position")
        ax.set_xlabel("code column | binary digits of the position")
        ax.set_title("the code beside binary counting", fontsize=10)
    if "4" in d:
        r = d["4"]["answer"]["without_weight_decay"]
        h = r["cosine_heatmap"]
        ax = axes.pop(0)
        extent = (0, len(h["values"]) * h["stride"], len(h["values"]) * h["stride"], 0)
        im = ax.imshow(h["values"], cmap="RdBu_r", vmin=-1, vmax=1, extent=extent, interpolation="nearest")
        ax.axhline(r["train_length"], color="black", lw=0.8, ls="--")
        ax.axvline(r["train_length"], color="black", lw=0.8, ls="--")
        ax.set_xlabel("row (position); dashed: the training length")
        ax.set_ylabel("row (position)")
        ax.set_title("exercise 4: cosines of a learned table's rows", fontsize=10)
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    if "7" in d:
        ax = axes.pop(0)
        for i, p in enumerate(d["7"]["answer"]["planes"]):
            r = 1.0 + 0.3 * i  # each plane on its own circle, so the four read apart
            xs, ys = [r * q[0] for q in p["points"]], [r * q[1] for q in p["points"]]
            ax.plot(xs, ys, "-", color="C%d" % i, lw=0.6, alpha=0.5)
            ax.scatter(xs, ys, s=[18 if m == 0 else 6 for m in range(len(xs))], color="C%d" % i,
                       label="plane %d: theta %.2g, %.2f turns over 0..%d" % (p["plane"], p["theta"],
                                                                            p["turns_over_training"], len(xs) - 1))
        ax.set_aspect("equal")
        ax.set_xlabel("first coordinate of the pair")
        ax.set_ylabel("second coordinate")
        ax.set_title("exercise 7: a pair turned to positions 0..%d (circles apart)" % (len(xs) - 1), fontsize=10)
        ax.legend(fontsize=6.5, loc="lower left")
        ax.grid(alpha=0.3)
    if "13.1" in d:
        a = d["13.1"]["answer"]
        ax = axes.pop(0)
        for i, row in enumerate(a["rows"]):
            s = row["scores_over_c"][:SHOWN_AGES]
            ax.plot(range(len(s)), s, lw=1.3, color="C%d" % (i % 10),
                    label="%s (best age %d)" % (row["map"], row["best_age"]))
        ax.axvline(1, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("age of the key (1: one position back)")
        ax.set_ylabel("score / c (YaRN's times its logit scale)")
        ax.set_title("exercise 13.1: trained at %d, read at %d" % (a["train_length"], a["read_length"]), fontsize=10)
        ax.legend(fontsize=7, loc="lower right")
        ax.grid(alpha=0.3)
    return fig
