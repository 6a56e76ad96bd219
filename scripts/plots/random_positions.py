"""random_positions: randomised positions (Ruoss et al. 2023) against positions 0..n-1, from
scripts/schemes_summary.py's summary.json (its random_positions_tournament, random_positions and
random_positions_charlm sections): one panel per task, each scheme's value against length, dashed with
positions 0..n-1 and solid with positions drawn from [0, L) in training and reading (the tournament and
passkey: accuracy with its 95% interval shaded; the char LM: validation perplexity on a log scale)."""
from matplotlib.ticker import FuncFormatter, NullLocator

from .load import ACCURACY, LENGTHS, DataError, List, Num, Obj, Str
from .style import plt

# (summary section, panel title, measure, y label of an accuracy panel)
SECTIONS = (("random_positions_tournament", "tournament", "accuracy", "accuracy (10 seeds, 95% interval shaded)"),
            ("random_positions", "passkey", "accuracy", "whole-passkey accuracy (3 seeds, 95% interval shaded)"),
            ("random_positions_charlm", "char LM", "perplexity", None))
POSITIONS = ("0..n-1", "random")


def check_random_positions(r):
    """What the figure reads of results/schemes/summary.json."""
    present = [s for s, _, _, _ in SECTIONS if s in r]
    if not present:
        raise DataError("holds none of random_positions_tournament, random_positions and random_positions_charlm: "
                        "run scripts/schemes_summary.py after make random-positions-tournament (or "
                        "random-positions, random-positions-charlm)")
    cells = {"accuracy": Obj({"mean": ACCURACY, "lo": ACCURACY, "hi": ACCURACY}, null=True),
             "perplexity": Obj({"mean": Num(above=0), "half_width?": Num(lo=0, null=True)}, null=True)}
    for name, _, key, _ in SECTIONS:
        if name not in r:
            continue
        Obj({"range": Num(lo=1, integer=True), "rows": List(Obj({"scheme": Str(), "positions": Str(),
                                                                 "lengths": LENGTHS}), nonempty=True)}).check(
            r[name], name)
        for i, row in enumerate(r[name]["rows"]):
            where = "%s.rows[%d]" % (name, i)
            if row["positions"] not in POSITIONS:
                raise DataError('%s.positions is "%s", expected one of %s' % (where, row["positions"],
                                                                              ", ".join(POSITIONS)))
            n = len(row["lengths"])
            Obj({key: List(cells[key], n, " (one per entry of lengths)")}).check(row, where)


def fig_random_positions(r):
    sections = [s for s in SECTIONS if s[0] in r]
    fig, axes = plt.subplots(1, len(sections), figsize=(6.5 * len(sections) if len(sections) > 1 else 10.0, 5.5),
                             squeeze=False)
    colours = {}  # one colour per scheme across the panels (up to 20 distinct)
    for ax, (name, task, key, ylabel) in zip(axes[0], sections):
        sec = r[name]
        for row in sec["rows"]:
            s = row["scheme"]
            colour = colours.setdefault(s, plt.cm.tab20(len(colours) % 20))
            xs = [n for n, c in zip(row["lengths"], row[key]) if c is not None]
            ys = [c["mean"] for c in row[key] if c is not None]
            if not xs:
                continue
            drawn = row["positions"] == "random"
            ax.plot(xs, ys, "-" if drawn else "--", color=colour, marker="o" if drawn else None, ms=3.5,
                    lw=1.8 if drawn else 1.1, alpha=1.0 if drawn else 0.75,
                    label=s if drawn else None)
            if key == "accuracy" and drawn:
                lo = [c["lo"] for c in row[key] if c is not None]
                hi = [c["hi"] for c in row[key] if c is not None]
                ax.fill_between(xs, lo, hi, color=colour, alpha=0.10, lw=0)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%d" % v))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticks(sorted({n for row in sec["rows"] for n in row["lengths"]}))
        ax.set_xlabel("length read")
        if key == "perplexity":
            ax.set_yscale("log")
            lo, hi = ax.get_ylim()
            ax.set_yticks([v for v in (2, 3, 4, 5, 6, 7, 8, 10, 15, 20, 30, 50, 100, 200, 500) if lo <= v <= hi])
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
            ax.yaxis.set_minor_locator(NullLocator())
            ax.set_ylabel("validation perplexity (3 seeds; lower is better)")
        else:
            ax.set_ylim(-0.03, 1.03)
            ax.set_ylabel(ylabel)
        ax.set_title("%s: positions drawn from [0, %d) (solid)\nor 0..n-1 (dashed)" % (task, sec["range"]),
                     fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="best", ncol=2 if len(sec["rows"]) > 16 else 1)
    fig.suptitle("Randomised positions (Ruoss et al. 2023), trained and read with them", fontsize=11)
    fig.tight_layout()
    return fig
