#!/usr/bin/python3
"""Issue 51's sinusoidal variants in one file: results/sinusoidal/summary.json and summary.md.

The d2l exercise (does the scale of the code relative to the embedding matter?) and the layout question
(each plane's sine and cosine side by side, or every sine then every cosine): the sinusoidal rows of
DIR/<variant>/results.json (experiments/sinusoidal/<variant>.json) beside the default code's, read from
results/tournament/results.json (the tournament's head, token embedding N(0, 0.3^2)) and
results/charlm-3seeds/results.json (the char LM, token embedding N(0, 0.02^2)). Every number is copied from
those files: means and 95% intervals are pe-bench's own. A variant not yet run is listed as missing.
Usage: scripts/sinusoidal_summary.py [DIR]"""
import os
import sys

sys.dont_write_bytecode = True  # the shared module leaves no __pycache__ in scripts/
from summaries import fail, head, load_json, mean_interval, mean_pm, row, write_set  # noqa: E402

SCRIPT = "sinusoidal_summary.py"
# (task, variant folder or None for the committed default, what it is, the results file of the default)
VARIANTS = {
    "tournament": ("results/tournament/results.json",
                   ["tournament-scale-0.1", "tournament-scale-0.3", None, "tournament-scale-3", "tournament-concatenated"]),
    "charlm": ("results/charlm-3seeds/results.json", ["charlm-scale-0.1", None, "charlm-concatenated"]),
}


def describe(variant):
    if variant is None:
        return "interleaved, scale 1 (the default)"
    if "concatenated" in variant:
        return "concatenated, scale 1"
    return "interleaved, scale %s" % variant.split("scale-")[1]


def sinusoidal_row(script, path, rows_key):
    r = load_json(script, path)
    for g in r.get(rows_key, []):
        if g.get("scheme") == "sinusoidal" and g.get("map", "none") == "none" and not g.get("band") \
                and not g.get("finetuned") and g.get("label", "sinusoidal") == "sinusoidal":
            return r, g
    fail(script, "%s has no sinusoidal row" % path)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "results/sinusoidal"
    out, md, missing = {"tasks": {}}, [
        "# The sinusoidal code's amplitude and layout",
        "",
        "Written by scripts/sinusoidal_summary.py (scripts/sinusoidal.sh). Each row is the sinusoidal scheme with "
        "the code `a p(m)` added to the token embedding, in the layout named; the default row is the committed "
        "tournament's or char LM's (results/tournament, results/charlm-3seeds), the others "
        "experiments/sinusoidal/. Seeds 0-2.", ""], []
    for task, (default, variants) in VARIANTS.items():
        readers, lengths = [], None
        for v in variants:
            path = default if v is None else os.path.join(root, v, "results.json")
            if not os.path.exists(path):
                missing.append(v or default)
                continue
            r, g = sinusoidal_row(SCRIPT, path, "rows" if task == "tournament" else "summary")
            if lengths is not None and r["lengths"] != lengths:
                fail(SCRIPT, "%s is read at %s, the others at %s" % (path, r["lengths"], lengths))
            lengths = r["lengths"]
            readers.append({"variant": describe(v), "source": path, "mean": g["mean"], "half_width": g["half_width"],
                            "lo": g.get("lo"), "hi": g.get("hi")})
        if not readers:
            continue
        out["tasks"][task] = {"lengths": lengths, "readers": readers}
        if task == "tournament":
            md += ["## The tournament (accuracy, mean [95% interval])", "",
                   "Token embedding N(0, 0.3^2), so a coordinate of the code (rms 0.71) is 2.4 times a token's at "
                   "scale 1.", ""] + head(["code"] + lengths)
            for rd in readers:
                md.append(row([rd["variant"]] + [mean_interval(m, lo, hi, 3)
                                                 for m, lo, hi in zip(rd["mean"], rd["lo"], rd["hi"])]))
        else:
            md += ["", "## The character LM (validation perplexity, mean ± half-width of its 95% interval)", "",
                   "Token embedding N(0, 0.02^2), so a coordinate of the code is 35 times a token's at scale 1.",
                   ""] + head(["code"] + lengths)
            for rd in readers:
                md.append(row([rd["variant"]] + [mean_pm(m, h) for m, h in zip(rd["mean"], rd["half_width"])]))
    if not out["tasks"]:
        fail(SCRIPT, "no results under %s: run scripts/sinusoidal.sh first" % root)
    if missing:
        out["missing"] = missing
        md += ["", "Not yet run: " + ", ".join(missing) + "."]
    write_set(root, out, md)


if __name__ == "__main__":
    main()
