#!/usr/bin/python3
"""Issue 30's hybrid stacks in one file: results/hybrids/summary.json and summary.md.

Reads every experiment in experiments/hybrids/ (<task>-d<depth>-<config>.json) and, when it has run,
its results.json under results/hybrids/<task>-d<depth>-<config>/ (scripts/hybrids.sh). Every number
is copied from those files: the means and 95% intervals are pe-bench's own (the results' summary rows
for the char LM, the passkey rows); a configuration not yet run is listed as missing. plot.py draws
results/figures/hybrids.png and hybrids_passkey_depth.png from summary.json.
Usage: scripts/hybrids_summary.py [DIR] [EXPERIMENTS]   (defaults results/hybrids, experiments/hybrids)"""
import glob
import json
import os
import re
import sys

sys.dont_write_bytecode = True  # the shared module leaves no __pycache__ in scripts/
from summaries import fail, head, mean_interval, mean_pm, row, write_set  # noqa: E402

SCRIPT = "hybrids_summary.py"
NAMES = {"rope": "all-RoPE", "none": "all-NoPE", "1to1": "1:1", "3to1": "3:1", "5to1": "5:1",
         "3to1-partial": "3:1, partial-RoPE global", "5to1-partial": "5:1, partial-RoPE global"}
ORDER = ["rope", "none", "1to1", "3to1", "5to1", "3to1-partial", "5to1-partial"]


def layers_of(e):
    if "hybrid_layers" in e:
        return list(e["hybrid_layers"])
    return [e["schemes"][0]] * e["n_layers"]


def charlm_readers(r):
    out = []
    for g in r["summary"]:
        if g.get("band") or g["finetuned"]:
            continue
        rows = sorted((x for x in r["rows"] if x["map"] == g["map"] and not x["finetuned"] and not x.get("band")),
                      key=lambda x: x["seed"])
        out.append({"map": g["map"], "seeds": g["seeds"], "mean": g["mean"], "half_width": g["half_width"],
                    "per_seed": [x["perplexity"] for x in rows]})
    return out


def passkey_readers(r):
    return [{"map": x["map"], "seeds": x["seeds"], "mean": x["accuracy"], "half_width": x["half_width"],
             "lo": x.get("lo", [None] * len(x["accuracy"])), "hi": x.get("hi", [None] * len(x["accuracy"])),
             "depth_grid": x["depth_grid"],
             "per_seed": [[None if g is None else sum(g) / len(g) for g in seed] for seed in x["whole"]]}
            for x in r["rows"]]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "results/hybrids"
    exp_dir = sys.argv[2] if len(sys.argv) > 2 else "experiments/hybrids"
    tasks = {}
    for path in sorted(glob.glob(os.path.join(exp_dir, "*.json"))):
        m = re.fullmatch(r"(charlm|passkey)-d(\d+)-(.+)\.json", os.path.basename(path))
        if not m:
            fail(SCRIPT, "%s: expected <task>-d<depth>-<config>.json" % path)
        task, depth, config = m.group(1), int(m.group(2)), m.group(3)
        e = json.load(open(path))
        entry = {"depth": depth, "config": config, "name": NAMES.get(config, config), "layers": layers_of(e),
                 "experiment": path, "readers": None}
        res = os.path.join(root, "%s-d%d-%s" % (task, depth, config), "results.json")
        t = tasks.setdefault(task, {"configs": []})
        if os.path.exists(res):
            r = json.load(open(res))
            t["lengths"], t["train_length"] = r["lengths"], r["train_length"]
            if task == "passkey":
                t["depths"] = r["depths"]
            entry["readers"] = charlm_readers(r) if task == "charlm" else passkey_readers(r)
            entry["results"] = os.path.relpath(res, root)
        t["configs"].append(entry)
    for t in tasks.values():
        t["configs"].sort(key=lambda c: (c["depth"], ORDER.index(c["config"]) if c["config"] in ORDER else 99))
    if not tasks:
        fail(SCRIPT, "no experiments in %s" % exp_dir)
    md = ["# Hybrid stacks: local-RoPE / global-NoPE at 1:1, 3:1 and 5:1 against all-RoPE and all-NoPE",
          "",
          "Written by scripts/hybrids_summary.py from results/hybrids/ (scripts/hybrids.sh; the design and the "
          "windows: docs/hybrids.md). Mean of seeds 0-2 with its 95% interval (perplexity: ± the "
          "half-width, Student t over seeds; passkey accuracy: [lo, hi], logit scale, docs/results-format.md); "
          "`+ map`: the RoPE "
          "layers read through that map (planned for the training length -> the reading's length). "
          "Layers are listed first to last; `rope:W` sees only the W most recent keys."]
    for task, title, digits in (("charlm", "Character LM: validation perplexity (160 windows per length)", 2),
                                ("passkey", "Passkey retrieval: whole-passkey accuracy, mean over depths "
                                            "(the worst depth at the longest length in the last column)", 3)):
        t = tasks.get(task)
        if not t:
            continue
        lengths = t.get("lengths", [])
        md += ["", "## " + title, ""]
        if not lengths:
            md.append("Not run yet.")
            continue
        md.append("Trained at %d." % t["train_length"])
        extra = ["worst depth at %d" % lengths[-1]] if task == "passkey" else []
        md += [""] + head(["layers", "stack", "reader"] + lengths + extra)
        for c in t["configs"]:
            stack = ", ".join(c["layers"]) if c["config"] not in ("rope", "none") else "%s x %d" % (
                c["layers"][0], c["depth"])
            if c["readers"] is None:
                md.append(row([c["depth"], c["name"], "not run yet"] + [""] * len(lengths)) + (" |" if extra else ""))
                continue
            for rd in c["readers"]:
                worst = []
                if extra:
                    g = rd["depth_grid"][-1]
                    worst = ["—" if g is None else "%.3f" % min(g)]
                if task == "charlm":
                    cells = [mean_pm(m, h, digits) for m, h in zip(rd["mean"], rd["half_width"])]
                else:
                    cells = [mean_interval(m, lo, hi, digits) for m, lo, hi in zip(rd["mean"], rd["lo"], rd["hi"])]
                md.append(row([c["depth"], c["name"] + " (`" + stack + "`)" if rd is c["readers"][0] else "",
                               "plain" if rd["map"] == "none" else "+ " + rd["map"]] + cells + worst))
    write_set(root, tasks, md)


if __name__ == "__main__":
    main()
