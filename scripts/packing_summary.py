#!/usr/bin/python3
"""Issue 49's packing experiment in one file: results/packing/summary.json and summary.md.

Reads results/packing/passkey-<policy>/results.json for each policy (experiments/packing/, run by
scripts/packing.sh) and, as the unpacked reference, results/passkey/results.json (the same models
trained on whole 64-token windows: packing none). Every number is copied from those files (pe-bench's
means and 95% intervals); a policy not yet run is listed as missing. plot.py draws
results/figures/packing.png from summary.json.
Usage: scripts/packing_summary.py [DIR] [REFERENCE]   (defaults results/packing, results/passkey/results.json)"""
import os
import sys

sys.dont_write_bytecode = True  # the shared module leaves no __pycache__ in scripts/
from summaries import head, load_json, mean_interval, policy_results, row, write_set  # noqa: E402

SCRIPT = "packing_summary.py"
POLICIES = ["padded", "packed", "isolated-reset", "isolated-global"]
# The layout of the packed test windows that matches how each policy trained (padded: each document
# alone, as isolated-reset reads it).
OWN_LAYOUT = {"padded": "isolated-reset", "packed": "packed", "isolated-reset": "isolated-reset",
              "isolated-global": "isolated-global"}


def plain_rows(results):
    """{scheme: {"accuracy": [...], "lo": [...], "hi": [...]}} of the readers without a map."""
    return {r["scheme"]: r for r in results["rows"] if r["map"] in ("", "none", "identity")}


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "results/packing"
    reference = sys.argv[2] if len(sys.argv) > 2 else "results/passkey/results.json"
    policies, missing, sources = policy_results(SCRIPT, folder, "passkey-", POLICIES, "packing results")
    first = next(iter(policies.values()))
    lengths = first["lengths"]
    schemes = [r["scheme"] for r in first["rows"] if r["map"] in ("", "none", "identity")]
    ref = load_json(SCRIPT, reference) if os.path.exists(reference) else None
    ref_rows = plain_rows(ref) if ref else {}

    summary = {"lengths": lengths, "policies": POLICIES, "missing": missing, "schemes": schemes,
               "single": {}, "packed": {}, "sources": sources}
    if ref:
        summary["sources"]["none"] = reference
    for s in schemes:
        single = {}
        if s in ref_rows:
            r = ref_rows[s]
            single["none"] = {"accuracy": [r["accuracy"][ref["lengths"].index(n)] if n in ref["lengths"] else None
                                           for n in lengths],
                              "lo": [r["lo"][ref["lengths"].index(n)] if n in ref["lengths"] else None for n in lengths],
                              "hi": [r["hi"][ref["lengths"].index(n)] if n in ref["lengths"] else None for n in lengths]}
        packed = {}
        for p, res in policies.items():
            r = plain_rows(res).get(s)
            if r is None:
                continue
            single[p] = {"accuracy": r["accuracy"], "lo": r["lo"], "hi": r["hi"], "seeds": r["seeds"]}
            prow = next((x for x in res["packed"]["rows"] if x["scheme"] == s), None)
            if prow:
                packed[p] = {layout: {k: prow[layout][k] for k in ("accuracy", "lo", "hi", "later_accuracy", "later_lo",
                                                                  "later_hi", "distractor_rate")}
                             for layout in res["packed"]["layouts"]}
                packed[p]["own"] = OWN_LAYOUT[p]
        summary["single"][s] = single
        summary["packed"][s] = packed
    packed_meta = first.get("packed", {})
    summary["packed_windows"] = {k: packed_meta.get(k) for k in ("windows", "documents", "later", "exposed",
                                                                 "doc_min_length")}

    lines = ["# Packing: passkey problems in training windows", "",
             "Written by scripts/%s from the results it names (docs/tasks.md, \"Packing\"). Passkey problems of "
             "%s .. %d tokens in training windows of %d; each policy's models are the passkey task's 3-block stack "
             "per scheme, 3 seeds. Whole-passkey accuracy, mean [95%% interval] (pe-bench's)." %
             (SCRIPT, summary["packed_windows"]["doc_min_length"], first["train_length"], first["train_length"]), ""]
    if missing:
        lines += ["Not yet run: %s." % ", ".join(missing), ""]
    lines += ["## Single documents at each length", "",
              "Whole documents of the length read (6 depths x 50 test sequences per length for the packing "
              "policies; packing none is results/passkey, 11 depths x 100).", ""]
    lines += head(["scheme", "policy"] + [str(n) for n in lengths])
    for s in schemes:
        for p in ["none"] + POLICIES:
            c = summary["single"][s].get(p)
            if c is None:
                continue
            lines.append(row([s, p] + [mean_interval(c["accuracy"][i], c["lo"][i], c["hi"][i], 3)
                                       for i in range(len(lengths))]))
    pw = summary["packed_windows"]
    lines += ["", "## Packed windows at the training length", "",
              "%s windows of %d tokens (%s documents; %s of them after the first of their window, the documents "
              "scored here: the first sees no other document in any layout; %s follow a document whose passkey "
              "starts with another symbol). own: read as the policy trained (padded: each document alone); across: "
              "every document sees the ones before it, positions global. distractor: of the documents after one "
              "whose passkey starts with another symbol, the share whose first answer is an earlier document's "
              "first symbol (mean over seeds)." %
              (pw["windows"], first["train_length"], pw["documents"], pw["later"], pw["exposed"]), ""]
    lines += head(["scheme", "policy", "own layout", "own", "across", "distractor (across)"])
    for s in schemes:
        for p in POLICIES:
            c = summary["packed"][s].get(p)
            if c is None:
                continue
            own, across = c[c["own"]], c["packed"]
            lines.append(row([s, p, c["own"], mean_interval(own["later_accuracy"], own["later_lo"], own["later_hi"], 3),
                              mean_interval(across["later_accuracy"], across["later_lo"], across["later_hi"], 3),
                              "%.3f" % across["distractor_rate"]]))
    write_set(folder, summary, lines)


if __name__ == "__main__":
    main()
