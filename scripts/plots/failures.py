"""The failure lab's figure (docs/failures.md), from pe-bench failures' results.json: one panel per fault,
the correct models' score (dashed) and the faulty ones' (solid) against length, one colour per scheme (an
accuracy on 0..1, a perplexity on a log axis); and
below, the fault x invariant matrix (which of the doctor's invariants failed on the faulty model and held
on the correct one, per scheme)."""
import math
import textwrap

from .load import ACCURACY, LENGTHS, Bool, List, Num, Obj, Str
from .style import plt


def check_failures(r):
    Obj({"seeds": Num(lo=1, integer=True), "items": Num(lo=0, integer=True), "invariants": List(Str(), nonempty=True),
         "faults": List(Obj({"number": Num(lo=1, integer=True), "name": Str(), "words": Str(), "expected": Str(),
                             "skipped": List(Str()), "models": List(Obj({}))}), nonempty=True)}).check(r, "")
    for i, f in enumerate(r["faults"]):
        if not f["models"]:
            continue
        Obj({"lengths": LENGTHS, "metric": Str(), "higher_is_better": Bool()}).check(f, "faults[%d]" % i)
        n, why = len(f["lengths"]), " (one per entry of the fault's lengths)"
        score = ACCURACY if f["higher_is_better"] else Num(above=0, null=True)
        Obj({"models": List(Obj({"scheme": Str(), "control": Bool(), "seeds": Num(lo=1, integer=True),
                                 "correct": List(score, n, why), "faulty": List(score, n, why),
                                 "doctor": Obj({"length": Num(integer=True), "caught_by": List(Str()),
                                                "refused": List(Str())})}))}).check(f, "faults[%d]" % i)


def fig_failures(r):
    faults = [f for f in r["faults"] if f["models"]]
    if not faults:
        return "no fault was read on any model (every scheme skipped)"
    cols = 4
    rows = math.ceil(len(faults) / cols)
    fig = plt.figure(figsize=(16.0, 3.6 * rows + 4.2))
    grid = fig.add_gridspec(rows + 1, cols, height_ratios=[3.6] * rows + [4.0])
    colours = {}
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, f in enumerate(faults):
        ax = fig.add_subplot(grid[i // cols, i % cols])
        lengths = f["lengths"]
        for m in f["models"]:
            c = colours.setdefault(m["scheme"], palette[len(colours) % len(palette)])
            xs = [x for x, v in zip(lengths, m["correct"]) if v is not None]
            ax.plot(xs, [v for v in m["correct"] if v is not None], "--", color=c, lw=1.2, alpha=0.8)
            xs = [x for x, v in zip(lengths, m["faulty"]) if v is not None]
            ax.plot(xs, [v for v in m["faulty"] if v is not None], "-o", color=c, ms=3, lw=1.6,
                    label=m["scheme"] + (" (control)" if m["control"] else ""))
        ax.set_xscale("log", base=2)
        ax.set_xticks(lengths)
        ax.set_xticklabels([str(n) for n in lengths], fontsize=7)
        if f["higher_is_better"]:
            ax.set_ylim(-0.03, 1.03)
        else:
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
        caught = sorted({c for m in f["models"] if not m["control"] for c in m["doctor"]["caught_by"]})
        refused = any(m["doctor"]["refused"] for m in f["models"])
        title = "caught by: %s%s" % (", ".join(caught) or "NONE", " (some readings refused)" if refused else "")
        ax.set_title("%d. %s\n%s" % (f["number"], f["name"], "\n".join(textwrap.wrap(title, 60))), fontsize=8,
                     color="black" if caught else "firebrick")
        ax.legend(fontsize=6, loc="lower left")
        ax.set_ylabel(f["metric"], fontsize=8)
    # the matrix
    ax = fig.add_subplot(grid[rows, :])
    invariants = r["invariants"]
    cells = [[sum(1 for m in f["models"] if not m["control"] and inv in m["doctor"]["caught_by"]) /
              max(1, sum(1 for m in f["models"] if not m["control"])) for inv in invariants] for f in faults]
    ax.imshow(cells, cmap="Reds", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(invariants)))
    ax.set_xticklabels(invariants, rotation=35, ha="right", fontsize=8)
    ax.set_yticks(range(len(faults)))
    ax.set_yticklabels(["%d. %s" % (f["number"], f["name"]) for f in faults], fontsize=8)
    for y, row in enumerate(cells):
        for x, v in enumerate(row):
            if v > 0:
                ax.text(x, y, "%.0f%%" % (100 * v), ha="center", va="center", fontsize=7,
                        color="white" if v > 0.6 else "black")
    ax.set_title("fault x invariant: the share of a fault's schemes (controls aside) on which the invariant failed "
                 "for the faulty model and held for the correct one", fontsize=9)
    fig.suptitle("The failure lab: committed models read with each fault (solid) and correctly (dashed), mean over "
                 "up to %d seed%s; length on the x axis (log2)" % (r["seeds"], "" if r["seeds"] == 1 else "s"),
                 fontsize=11)
    fig.tight_layout()
    return fig
