#!/usr/bin/python3
"""What attention does beyond RoPE (issue 52, part 2), from scripts/attention-diagnostics.sh's readings
(pe-bench analyze attention: charlm.json, hybrids.json): per reader and layer type, at each length read,
each row's entropy over ln(its visible keys), the mass on the first token (sink), on the 8 most recent keys
(distances 0-7) and on keys at distances the model never saw in training (>= its training length), each
the mean over the layers of that type and their heads, then over seeds (with the seeds' range). A layer's
type comes from the checkpoint's scheme: its name, or a hybrid's entry for that layer (rope:W is local RoPE
with a window of W, none is global NoPE). Then ALiBi's heads: the mass their bias alone would put past the
training length (every content score equal; pe-bench's theory, alibi_mean_tail_mass) beside the measured one;
and the position probe (probe.json, pe-bench analyze probe) by scheme, weights and state.
Writes summary.json and summary.md into the folder.
Usage: scripts/attention_diagnostics_summary.py [FOLDER]   (Python 3 standard library; run from the
repository's root)"""
import os
import sys

sys.dont_write_bytecode = True  # the shared module leaves no __pycache__ in scripts/
from summaries import fail, head, load_json, row, write_set  # noqa: E402

SCRIPT = "attention_diagnostics_summary.py"
NAMES = {"none": "NoPE", "alibi": "ALiBi", "rope": "RoPE"}


def layer_types(checkpoint, n_layers):
    """Each layer's type, from the checkpoint's scheme section."""
    cp = load_json(SCRIPT, checkpoint)
    scheme = cp.get("scheme", {})
    layers = scheme.get("hybrid_layers")
    if not layers:
        return [NAMES.get(scheme.get("name"), scheme.get("name", "?"))] * n_layers
    out = []
    for spec in layers:
        name, _, window = spec.partition(":")
        kind = NAMES.get(name, name)
        out.append("local %s (window %s)" % (kind, window) if window else "global %s" % kind)
    return out


def stack_of(reading):
    """The reader's group: the scheme, or a hybrid's folder (charlm-d4-3to1 -> hybrid 3:1)."""
    path = reading["checkpoint"]
    for part in path.split("/"):
        if part.startswith("charlm-d4-"):
            config = part[len("charlm-d4-"):]
            return "4 layers, " + ("all " + NAMES.get(config, config) if config in NAMES
                                   else config.replace("to", ":") + " local/global")
    return reading["scheme"]


def recent(stats_layer):
    return sum(b["mass"] for b in stats_layer["distance_bins"] if b["hi"] <= 7)


def cells(readings):
    """{(group, layer type, length): {seed: [per-layer values]}} for each measure."""
    out, types = {}, {}
    for rd in readings:
        st = rd["stats"]
        if not isinstance(st, dict) or st.get("readable") is False:
            continue
        layers = st["layers"]
        if rd["checkpoint"] not in types:
            types[rd["checkpoint"]] = layer_types(rd["checkpoint"], len(layers))
        kinds = types[rd["checkpoint"]]
        for li, lay in enumerate(layers):
            key = (stack_of(rd), kinds[li], rd["length"])
            per_seed = out.setdefault(key, {}).setdefault(rd["seed"], [])
            per_seed.append({"entropy_ratio": lay["entropy_ratio"], "sink": lay["sink_mass"], "recent": recent(lay),
                             "beyond": lay["beyond_training_mass"]})
    return out


MEASURES = (("entropy_ratio", "H / ln n"), ("sink", "sink"), ("recent", "distances 0-7"),
            ("beyond", "past the training length"))


def summarise(c):
    recs = []
    for (group, kind, length), by_seed in c.items():
        rec = {"reader": group, "layer_type": kind, "length": length, "seeds": sorted(by_seed)}
        for m, _ in MEASURES:
            seeds = [sum(x[m] for x in v) / len(v) for _, v in sorted(by_seed.items())]
            rec[m] = {"mean": sum(seeds) / len(seeds), "min": min(seeds), "max": max(seeds)}
        recs.append(rec)
    return recs


def alibi_heads(readings):
    """Per ALiBi head and length: the bias alone's mass past the training length, the measured one per seed
    (mean over the layers)."""
    out = {}
    for rd in readings:
        st = rd["stats"]
        if not isinstance(st, dict):
            continue
        for h in st["heads"]:
            if "bias_only_beyond_training_mass" not in h:  # (only a linear bias's heads carry it)
                continue
            e = out.setdefault((h["head"], rd["length"]), {"bias_only": h["bias_only_beyond_training_mass"],
                                                             "slope": h["slope"], "measured": {}})
            e["measured"].setdefault(rd["seed"], []).append(h["beyond_training_mass"])
    recs = []
    for (head_, length), e in sorted(out.items()):
        seeds = [sum(v) / len(v) for _, v in sorted(e["measured"].items())]
        recs.append({"head": head_, "slope": e["slope"], "length": length, "bias_only": e["bias_only"],
                     "measured": {"mean": sum(seeds) / len(seeds), "min": min(seeds), "max": max(seeds)},
                     "seeds": sorted(e["measured"])})
    return recs


def probe_section(p, md):
    """The position probe (probe.json): per scheme, weights and state, R^2 and the RMSE of each position range
    over seeds (mean, and the seeds' range); appends its table to md."""
    groups = {}
    for r in p["readings"]:
        for st in r["states"]:
            key = (r["scheme"], r["weights"], st["state"])
            groups.setdefault(key, []).append(st)
    recs = []
    ranges = None
    for (scheme, weights, state), sts in groups.items():
        def over(values):
            return {"mean": sum(values) / len(values), "min": min(values), "max": max(values)}
        ranges = [(x["lo"], x["hi"]) for x in sts[0]["ranges"]]
        recs.append({"scheme": scheme, "weights": weights, "state": state, "seeds": len(sts),
                     "r2": over([s["r2"] for s in sts]), "rmse": over([s["rmse"] for s in sts]),
                     "ranges": [{"lo": lo, "hi": hi, "rmse": over([s["ranges"][i]["rmse"] for s in sts]),
                                 "r2": over([s["ranges"][i]["r2"] for s in sts])}
                                for i, (lo, hi) in enumerate(ranges)]})
    length = p["readings"][0]["length"]
    md += ["", "## Does the model know where it is? The position probe", "",
           "A ridge regression of each token's position from each residual state (state 0: the embedding; state "
           "l: block l's output), fitted on %d windows of %d tokens of the training text and scored on %d of the "
           "validation text (R^2 over every held-out token, and the RMSE in positions within each range); mean "
           "over seeds, their range in parentheses. Initial: the same model at the weights its training started "
           "from." % (p["windows"], length, p["windows"]), ""]
    md += head(["scheme", "weights", "state", "R^2"] + ["RMSE %d-%d" % r for r in ranges])
    for rec in recs:
        md.append(row([rec["scheme"], rec["weights"], str(rec["state"]), spread(rec["r2"])] +
                      ["%.1f" % x["rmse"]["mean"] for x in rec["ranges"]]))
    return {"length": length, "windows": p["windows"], "rows": recs}


def spread(x, digits=3):
    return "%.*f (%.*f–%.*f)" % (digits, x["mean"], digits, x["min"], digits, x["max"])


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "results/attention-diagnostics"
    files = [f for f in ("charlm.json", "hybrids.json") if os.path.exists(os.path.join(folder, f))]
    if not files:
        fail(SCRIPT, "%s has neither charlm.json nor hybrids.json: run scripts/attention-diagnostics.sh" % folder)
    readings, train_lengths, sequences = [], set(), set()
    for f in files:
        r = load_json(SCRIPT, os.path.join(folder, f))
        if r.get("task") != "charlm":
            fail(SCRIPT, "%s/%s holds task %s readings, not the char LM's" % (folder, f, r.get("task")))
        readings += r["readings"]
        sequences.add(r["sequences"])
    for rd in readings:
        if isinstance(rd["stats"], dict) and "train_length" in rd["stats"]:
            train_lengths.add(rd["stats"]["train_length"])
    L = ", ".join(str(x) for x in sorted(train_lengths))
    by_type = summarise(cells(readings))
    heads = alibi_heads(readings)
    md = ["# What attention does beyond RoPE", "",
          "Written by scripts/attention_diagnostics_summary.py from %s in this folder (pe-bench analyze attention, "
          "%s validation windows per reading, every query row). Per reader and layer type: each row's entropy over ln(its "
          "visible keys), the mass on the first token (sink), on distances 0-7 and on keys past the training "
          "length (%s), each the mean over that type's layers and heads, then over seeds (the seeds' range in "
          "parentheses)." % (" and ".join(files), "/".join(str(x) for x in sorted(sequences)), L), ""]
    md += head(["reader", "layer type", "length"] + [label for _, label in MEASURES])
    for rec in by_type:
        md.append(row([rec["reader"], rec["layer_type"], str(rec["length"])] +
                      [spread(rec[m]) for m, _ in MEASURES]))
    summary = {"sources": files, "train_length": sorted(train_lengths),
               "by_layer_type": by_type}
    if heads:
        md += ["", "## ALiBi past the training length: the bias alone against the trained heads", "",
               "Each head's mass on keys %s or more back, averaged over every query row of the windows: with every "
               "content score equal (the bias alone, pe-bench's theory: alibi_mean_tail_mass) and as the trained "
               "char LM reads (mean over its layers, then over seeds; their range in parentheses)." % L, ""]
        md += head(["head", "slope", "length", "bias alone", "measured"])
        for h in heads:
            md.append(row([str(h["head"]), "1/%g" % (1 / h["slope"]), str(h["length"]), "%.4f" % h["bias_only"],
                           spread(h["measured"], 4)]))
        summary["alibi_heads"] = heads
    if os.path.exists(os.path.join(folder, "probe.json")):
        summary["probe"] = probe_section(load_json(SCRIPT, os.path.join(folder, "probe.json")), md)
        summary["sources"].append("probe.json")
    write_set(folder, summary, md)


if __name__ == "__main__":
    main()
