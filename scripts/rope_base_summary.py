#!/usr/bin/python3
"""Issue 30's RoPE-base experiments in one file: results/rope-base/summary.json and summary.md.

Reads DIR/base-<B>/results.json (the char LM's RoPE retrained with base B, seeds 0-2, read at
128-2048), DIR/census-base-<B>.json (pe-bench census: turns per plane over the training offsets) and
DIR/abf/results.json (the base-10^4 models read and fine-tuned with pi, yarn-hf and base=B). Every
number is copied or counted from those files: the means and 95% intervals are pe-bench's own (the
results' summary rows). plot.py draws results/figures/rope_base.png from summary.json.
Usage: scripts/rope_base_summary.py [DIR]   (default results/rope-base)"""
import glob
import json
import os
import re
import sys

sys.dont_write_bytecode = True  # the shared module leaves no __pycache__ in scripts/
from summaries import fail, head, mean_pm, row, write_set  # noqa: E402

SCRIPT = "rope_base_summary.py"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "results/rope-base"
    bases, lengths, train_len = [], None, None
    for path in glob.glob(os.path.join(root, "base-*", "results.json")):
        b = float(re.search(r"base-([0-9.e+]+)", path).group(1))
        r = json.load(open(path))
        lengths, train_len = r["lengths"], r["train_length"]
        plain = [g for g in r["summary"] if g["map"] == "none" and not g["finetuned"] and not g.get("band")]
        if len(plain) != 1:
            fail(SCRIPT, "%s: expected one plain RoPE reading, found %d" % (path, len(plain)))
        g = plain[0]
        rows = [row for row in r["rows"] if row["map"] == "none" and not row["finetuned"] and not row.get("band")]
        census_path = os.path.join(root, "census-base-%d.json" % b)
        census = json.load(open(census_path)) if os.path.exists(census_path) else None
        final = [t["final_loss"] for t in r.get("training", []) if "final_loss" in t] if isinstance(
            r.get("training"), list) else []
        bases.append({
            "base": b,
            "seeds": g["seeds"],
            "mean": g["mean"],
            "half_width": g["half_width"],
            "per_seed": [row["perplexity"] for row in sorted(rows, key=lambda x: x["seed"])],
            "final_training_loss": final,
            "turns": [p["turns_over_training_offsets"] for p in census["planes"]] if census else None,
            "planes_full_turn": sum(p["completes_turn"] for p in census["planes"]) if census else None,
            "planes": len(census["planes"]) if census else None,
        })
    bases.sort(key=lambda x: x["base"])
    abf = []
    abf_path = os.path.join(root, "abf", "results.json")
    if os.path.exists(abf_path):
        r = json.load(open(abf_path))
        for g in r["summary"]:
            if g.get("band"):
                continue
            abf.append({k: g[k] for k in ("label", "map", "finetuned", "seeds", "mean", "half_width")})
    if not bases:
        fail(SCRIPT, "no %s/base-*/results.json: run scripts/rope-base.sh first" % root)
    out = {"train_length": train_len, "lengths": lengths, "bases": bases, "abf": abf,
           "sources": sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "*", "results.json")))}
    md = ["# RoPE's base: the char LM retrained with bases 100 to 10^6, and a base change at fine-tuning",
          "",
          "Written by scripts/rope_base_summary.py from results/rope-base/ (scripts/rope-base.sh). Validation "
          "perplexity, mean of seeds 0-2 ± the half-width of its 95%% interval (t, 2 degrees of freedom); "
          "160 validation windows per length; trained at %d." % train_len,
          ""] + head(["base", "planes turning fully over 0..%d" % (train_len - 1)] + lengths)
    for b in bases:
        full = "%d of %d" % (b["planes_full_turn"], b["planes"]) if b["planes"] else "—"
        md.append(row(["%d" % b["base"], full] + [mean_pm(m, h) for m, h in zip(b["mean"], b["half_width"])]))
    if abf:
        md += ["", "## A base change at fine-tuning time (ABF) against PI and the code YaRN", "",
               "The base-10^4 models read with each map (planned for %d -> %d), and after 300 fine-tuning steps at "
               "512 with each (the map's plan for %d -> 512; a base change is the same at every length)."
               % (train_len, lengths[-1], train_len), ""] + head(["reader"] + lengths)
        for g in abf:
            md.append(row([g["label"]] + [mean_pm(m, h) for m, h in zip(g["mean"], g["half_width"])]))
    write_set(root, out, md)


if __name__ == "__main__":
    main()
