#!/usr/bin/python3
"""Issue 49's packing experiment, the char LM's half: results/packing/summary-charlm.json and .md.

Reads results/packing/charlm-<policy>/results.json for each policy (experiments/packing/charlm-*.json,
run by scripts/packing.sh): the paragraphs of The Time Machine as documents, each policy's models read
on the validation text as it runs (across paragraphs, positions 0..n-1), with each paragraph's piece
isolated (positions reset, positions global), and paragraph by paragraph (each alone, from position 0).
Every number is copied from those files (pe-bench's means over seeds and the half-widths of their 95%
intervals); a policy not yet run is listed as missing. plot.py draws results/figures/packing-charlm.png
from summary-charlm.json.
Usage: scripts/packing_charlm_summary.py [DIR]   (default results/packing)"""
import re
import sys

sys.dont_write_bytecode = True  # the shared module leaves no __pycache__ in scripts/
from summaries import head, mean_pm, policy_results, row, write_set  # noqa: E402

SCRIPT = "packing_charlm_summary.py"
POLICIES = ["padded", "packed", "isolated-reset", "isolated-global"]
READINGS = ["running", "isolated-reset", "isolated-global", "documents"]
# The reading that matches how each policy trained (padded: each paragraph alone from position 0).
OWN = {"padded": "documents", "packed": "running", "isolated-reset": "isolated-reset",
       "isolated-global": "isolated-global"}
LABEL = re.compile(r"^(?P<base>[^ \[]+)(?: \[(?P<layout>[a-z-]+)\])?$")


def reading_of(label):
    """(scheme or scheme+map, reading) of a results label; None for a label this study does not make."""
    m = LABEL.match(label)
    if not m:
        return None
    return m.group("base"), m.group("layout") or "running"


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "results/packing"
    policies, missing, sources = policy_results(SCRIPT, folder, "charlm-", POLICIES, "char LM packing results")
    first = next(iter(policies.values()))
    lengths, train_length = first["lengths"], first["train_length"]
    bases = []  # every scheme, and scheme+map, in the results' order
    for g in first["summary"]:
        base = reading_of(g["label"])
        if base and base[0] not in bases:
            bases.append(base[0])
    schemes = [b for b in bases if "+" not in b]
    summary = {"lengths": lengths, "train_length": train_length, "policies": POLICIES, "missing": missing,
               "schemes": schemes, "readings": READINGS, "own": OWN, "cells": {}, "position": {},
               "validation": first["validation"], "documents": None,
               "sources": sources}
    for p, res in policies.items():
        for g in res["summary"]:
            key = reading_of(g["label"])
            if key is None:
                continue
            base, reading = key
            summary["cells"].setdefault(base, {}).setdefault(p, {})[reading] = {
                "mean": g["mean"], "half_width": g["half_width"], "seeds": len(g["seeds"])}
        for r in res["rows"]:  # how many paragraphs each length of the documents reading holds
            if r.get("layout") == "documents" and summary["documents"] is None and \
                    None not in (r.get("documents") or {}).get("reaching", [None]):
                summary["documents"] = r["documents"]
        pl = res["position_loss"]
        groups = {}
        for r in pl["rows"]:
            key = reading_of(r["label"])
            if key and key[1] == "documents":
                groups.setdefault(key[0], []).append(r["bins"])
        for base, bins in groups.items():
            mean = []
            for i in range(len(bins[0])):
                v = [b[i] for b in bins if b[i] is not None]
                mean.append(sum(v) / len(v) if len(v) == len(bins) else None)
            summary["position"].setdefault(base, {})[p] = {"window": pl["window"], "bins": mean, "seeds": len(bins)}

    def cell(base, p, reading, i, digits=2):
        c = summary["cells"].get(base, {}).get(p, {}).get(reading)
        if c is None or c["mean"][i] is None:
            return "—"
        if c["seeds"] < 2:  # one seed: no interval
            return "%.*f" % (digits, c["mean"][i])
        return mean_pm(c["mean"][i], c["half_width"][i], digits)

    v, ex = first["validation"], first["experiment"]
    summary["training"] = {"steps": ex["steps"], "batch_size": ex["batch_size"], "seeds": ex["seeds"], "lr": ex["lr"]}
    docs = summary["documents"]
    lines = ["# Packing: the char LM's paragraphs in training windows", "",
             "Written by scripts/%s from the results it names (docs/tasks.md, \"Packing\"). The paragraphs of The "
             "Time Machine (a blank line ends one) are the documents; every model is the char LM's 2-block stack "
             "trained at %d under one policy (%d steps at batch %d, %d seed%s). Validation perplexity, the mean "
             "of the seeds ± the half-width of its 95%% interval; — where a learned table has no row for a "
             "position the reading meets." %
             (SCRIPT, train_length, ex["steps"], ex["batch_size"], len(ex["seeds"]),
              "" if len(ex["seeds"]) == 1 else "s"), "",
             "Readings: **running**: %d windows from %d every %d characters, as the char LM always reads "
             "(paragraphs run into each other, positions 0..n-1); **isolated-reset** / **isolated-global**: the "
             "same windows, each paragraph's piece seeing only itself, positions from 0 in each piece or the "
             "window's rows; **documents**: each validation paragraph alone from position 0 (%s paragraphs; the "
             "figure at n averages every token at a position below n in its paragraph; %s of them reach %s)." %
             (v["windows"], v["first_start"], v.get("stride", 1), docs["read"] if docs else "?",
              ", ".join(str(x) for x in docs["reaching"]) if docs else "?", ", ".join(str(n) for n in lengths)), ""]
    if missing:
        lines += ["Not yet run: %s." % ", ".join(missing), ""]
    for reading, title in [("running", "The running text (across paragraphs, positions 0..n-1)"),
                           ("documents", "Whole paragraphs, each alone"),
                           ("isolated-reset", "The running text, paragraphs isolated, positions reset"),
                           ("isolated-global", "The running text, paragraphs isolated, positions global")]:
        lines += ["## %s" % title, ""]
        lines += head(["model", "policy"] + [str(n) for n in lengths])
        for base in bases + sorted(b for b in summary["cells"] if b not in bases):
            for p in POLICIES:
                if reading not in summary["cells"].get(base, {}).get(p, {}):
                    continue
                lines.append(row([base, p] + [cell(base, p, reading, i) for i in range(len(lengths))]))
        lines.append("")
    lines += ["## Each policy read as it trained", "",
              "padded: documents; packed: running; isolated-*: their own isolation.", ""]
    lines += head(["model", "policy", "reading"] + [str(n) for n in lengths])
    for base in schemes:
        for p in POLICIES:
            if OWN[p] in summary["cells"].get(base, {}).get(p, {}):
                lines.append(row([base, p, OWN[p]] + [cell(base, p, OWN[p], i) for i in range(len(lengths))]))
    write_set(folder, summary, lines, stem="summary-charlm")


if __name__ == "__main__":
    main()
