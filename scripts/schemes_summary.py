#!/usr/bin/python3
"""Every scheme on every task, at the training length and the longest length read, in one file:
results/schemes/summary.json and summary.md (issue 51's closing table).

Copied from the committed results (means and 95% intervals are pe-bench's own, nothing is recomputed):
the tournament over 10 seeds (results/tournament-10seeds: trained at 32, read at 32 and 256), the char LM
over 3 seeds (results/charlm-3seeds: validation perplexity at 128, its training length, and 512; a scheme
it lacks from results/charlm, one seed) and
passkey retrieval over 3 seeds (results/passkey: trained at 64, read at 64 and 1,024); each scheme read
plainly (no map). A scheme a task has no row for is listed with a dash, as is a length a learned table
cannot read. Then randomised positions on the tournament (results/random-positions-tournament, when run) beside
its tournament-10seeds rows, on passkey (results/random-positions) beside the same schemes' passkey rows, and on
the char LM (results/random-positions-charlm) beside its charlm-3seeds rows.
Usage: scripts/schemes_summary.py [OUT_DIR]   (run from the repository's root; Python 3 standard library)"""
import os
import sys

sys.dont_write_bytecode = True  # the shared module leaves no __pycache__ in scripts/
from summaries import fail, head, load_json, mean_interval, mean_pm, row, write_set  # noqa: E402

SCRIPT = "schemes_summary.py"
TOURNAMENT, CHARLM, PASSKEY = "results/tournament-10seeds", "results/charlm-3seeds", "results/passkey"
CHARLM_ONE = "results/charlm"  # seed 0 of every scheme: the char LM row of a scheme charlm-3seeds lacks
RANDOM = "results/random-positions"
RANDOM_CUE = "results/random-positions-tournament"
RANDOM_LM = "results/random-positions-charlm"


def plain_rows(results, key):
    """{scheme: row} of the rows read without a map (and, for the char LM, without a band or fine-tune)."""
    out = {}
    for g in results.get(key, []):
        if g.get("map", "none") != "none" or g.get("band") or g.get("finetuned"):
            continue
        if g.get("label", g["scheme"]) != g["scheme"]:
            continue
        out.setdefault(g["scheme"], g)
    return out


def column(results, length, path):
    if length not in results["lengths"]:
        fail(SCRIPT, "%s reads no length %d" % (path, length))
    return results["lengths"].index(length)


def accuracy_cells(g, i):
    """(text, record) of a proportion row's column i: mean [lo, hi]; a dash when the length was not read."""
    m = None if g is None else g["mean" if "mean" in g else "accuracy"][i]  # the tournament's or passkey's name
    if m is None:
        return "—", None
    return mean_interval(m, g["lo"][i], g["hi"][i], 3), {"mean": m, "lo": g["lo"][i], "hi": g["hi"][i]}


def perplexity_cells(g, i):
    """A char LM summary row's column i: mean ± half-width over its seeds; one seed's value, so marked."""
    if g is None or g["mean"][i] is None:
        return "—", None
    if len(g.get("seeds", [])) < 2:
        return "%.2f (1 seed)" % g["mean"][i], {"mean": g["mean"][i], "seeds": 1}
    return mean_pm(g["mean"][i], g["half_width"][i]), {"mean": g["mean"][i], "half_width": g["half_width"][i]}


def random_accuracy(source, task, measure, base_rows, base, base_dir, md):
    """An accuracy task's randomised-positions section (source beside base_dir's rows read at 0..n-1): appends its
    table to md, returns its record."""
    rp = load_json(SCRIPT, source + "/results.json")
    r_rows = plain_rows(rp, "rows")
    L = rp.get("experiment", {}).get("random_positions")
    if not L:
        fail(SCRIPT, "%s/results.json names no random_positions in its experiment" % source)
    lengths = rp["lengths"]
    md += ["", "## Randomised positions (%s)" % task, "",
           "Each scheme trained and read with positions drawn from [0, %s) (%s) beside the same scheme with "
           "positions 0..n-1 (%s): %s." % (L, source, base_dir, measure), ""]
    md += head(["scheme", "positions"] + [str(n) for n in lengths])
    recs = []
    for s, g in r_rows.items():
        for label, src, res in (("0..n-1", base_rows.get(s), base), ("random", g, rp)):
            cells, vals = [s, label], []
            for n in lengths:
                if src is None or n not in res["lengths"]:
                    cells.append("—")
                    vals.append(None)
                    continue
                text, value = accuracy_cells(src, res["lengths"].index(n))
                cells.append(text)
                vals.append(value)
            md.append(row(cells))
            recs.append({"scheme": s, "positions": label, "lengths": lengths, "accuracy": vals})
    return {"source": source, "range": L, "rows": recs}


def random_charlm(lm, c_rows, md):
    """The char LM's randomised-positions section (results/random-positions-charlm beside results/charlm-3seeds):
    appends its table to md, returns its record."""
    rp = load_json(SCRIPT, RANDOM_LM + "/results.json")
    L = rp.get("experiment", {}).get("random_positions")
    if not L:
        fail(SCRIPT, "%s/results.json names no random_positions in its experiment" % RANDOM_LM)
    lengths = rp["lengths"]
    if lengths != lm["lengths"]:
        fail(SCRIPT, "%s and %s read other lengths" % (RANDOM_LM, CHARLM))
    drawn = {g["scheme"]: g for g in rp.get("summary", [])
             if g.get("map", "none") == "none" and g["label"] == "%s (random %d)" % (g["scheme"], L)}
    md += ["", "## Randomised positions (char LM)", "",
           "Each scheme trained and read with positions drawn from [0, %s) (%s) beside the same scheme with "
           "positions 0..n-1 (%s): validation perplexity, 3 seeds, mean ± the half-width of its 95%% interval "
           "(lower is better)." % (L, RANDOM_LM, CHARLM), ""]
    md += head(["scheme", "positions"] + [str(n) for n in lengths])
    recs = []
    for s, g in drawn.items():
        for label, src in (("0..n-1", c_rows.get(s)), ("random", g)):
            cells, vals = [s, label], []
            for i in range(len(lengths)):
                text, value = perplexity_cells(src, i)
                cells.append(text)
                vals.append(value)
            md.append(row(cells))
            recs.append({"scheme": s, "positions": label, "lengths": lengths, "perplexity": vals})
    return {"source": RANDOM_LM, "range": L, "rows": recs}


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "results/schemes"
    for d in (TOURNAMENT, CHARLM, CHARLM_ONE, PASSKEY):
        if not os.path.exists(os.path.join(d, "results.json")):
            fail(SCRIPT, "%s/results.json is missing: run from the repository's root (make run writes it)" % d)
    tour = load_json(SCRIPT, TOURNAMENT + "/results.json")
    lm = load_json(SCRIPT, CHARLM + "/results.json")
    pk = load_json(SCRIPT, PASSKEY + "/results.json")
    t_rows, c_rows, p_rows = plain_rows(tour, "rows"), plain_rows(lm, "summary"), plain_rows(pk, "rows")
    one = load_json(SCRIPT, CHARLM_ONE + "/results.json")
    if one["lengths"] != lm["lengths"]:
        fail(SCRIPT, "%s and %s read other lengths" % (CHARLM, CHARLM_ONE))
    for s, g in plain_rows(one, "summary").items():
        c_rows.setdefault(s, g)
    tc = [column(tour, n, TOURNAMENT) for n in (32, 256)]
    cc = [column(lm, n, CHARLM) for n in (128, 512)]
    pc = [column(pk, n, PASSKEY) for n in (64, 1024)]
    schemes = list(t_rows)
    for extra in list(c_rows) + list(p_rows):
        if extra not in schemes:
            schemes.append(extra)
    md = [
        "# Every scheme on every task",
        "",
        "Written by scripts/schemes_summary.py from the committed results; each scheme read plainly (no map). "
        "The tournament: accuracy over 10 seeds (%s), trained at 32. The char LM: validation perplexity over 3 "
        "seeds (%s; a scheme it lacks: seed 0 of %s, marked), trained at 128, mean ± the half-width of its 95%% "
        "interval. Passkey: whole-passkey "
        "accuracy over 3 seeds (%s), trained at 64. Accuracies are mean [95%% interval]; a dash: no row, or a "
        "learned table with no row at that length." % (TOURNAMENT, CHARLM, CHARLM_ONE, PASSKEY),
        "",
    ]
    md += head(["scheme", "tournament 32", "tournament 256", "char LM 128", "char LM 512", "passkey 64",
                "passkey 1024"])
    table = []
    for s in schemes:
        cells, rec = [s], {"scheme": s}
        for name, rows, cols, fn, lengths in (("tournament", t_rows, tc, accuracy_cells, (32, 256)),
                                              ("charlm", c_rows, cc, perplexity_cells, (128, 512)),
                                              ("passkey", p_rows, pc, accuracy_cells, (64, 1024))):
            for i, n in zip(cols, lengths):
                text, value = fn(rows.get(s), i)
                cells.append(text)
                rec["%s_%d" % (name, n)] = value
        md.append(row(cells))
        table.append(rec)
    summary = {"sources": {"tournament": TOURNAMENT, "charlm": [CHARLM, CHARLM_ONE], "passkey": PASSKEY},
               "rows": table}
    if os.path.exists(os.path.join(RANDOM_CUE, "results.json")):
        summary["random_positions_tournament"] = random_accuracy(
            RANDOM_CUE, "tournament", "accuracy over 10 seeds", t_rows, tour, TOURNAMENT, md)
    if os.path.exists(os.path.join(RANDOM, "results.json")):
        summary["random_positions"] = random_accuracy(RANDOM, "passkey", "whole-passkey accuracy, 3 seeds", p_rows,
                                                      pk, PASSKEY, md)
    if os.path.exists(os.path.join(RANDOM_LM, "results.json")):
        summary["random_positions_charlm"] = random_charlm(lm, c_rows, md)
    os.makedirs(out_dir, exist_ok=True)
    write_set(out_dir, summary, md)


if __name__ == "__main__":
    main()
