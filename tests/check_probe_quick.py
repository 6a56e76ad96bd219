#!/usr/bin/env python3
"""Sanity checks of a fresh probe quick results.json (experiments/<probe>-quick.json) beyond equality with
the committed copy: every reader of the experiment is there with one value per length and cell, every accuracy
lies in [0, 1], the cells and slots are the probe's, and the per-length accuracy is the mean over cells.
For the probes whose quick runs learn (needles and order), some reader must also be above 0.5 at the training
length; distractors and declarations do not learn in 1,000 steps (docs/tasks.md, "Probes")."""
import json
import sys

path = sys.argv[1]
r = json.load(open(path))
learned = r["task"] in ("needles", "order")
exp = r["experiment"]
readers = {(row["scheme"], row["map"]) for row in r["rows"]}
want = {(s, "none") for s in exp["schemes"]} | {("rope", m) for m in exp["maps"]}
assert readers == want, (readers, want)
C, S = len(r["cells"]), r["slots"]
for row in r["rows"]:
    for seed in row["whole"]:
        assert len(seed) == len(r["lengths"])
        for cell in seed:
            assert len(cell) == C and all(0 <= v <= 1 for v in cell)
    for seed in row["slot"]:
        for length in seed:
            assert len(length) == S and all(v is None or 0 <= v <= 1 for v in length)
    for li, acc in enumerate(row["accuracy"]):
        mean = sum(sum(seed[li]) / C for seed in row["whole"]) / len(row["whole"])
        assert abs(acc - mean) < 1e-12, (acc, mean)
t = r["lengths"].index(r["train_length"])
best = max(row["accuracy"][t] for row in r["rows"])
if learned:
    assert best > 0.5, "no reader learned the probe at the training length (best %.3f)" % best
print("%s: %d readers at %d lengths x %d cells; best at the training length %.3f"
      % (r["task"], len(r["rows"]), len(r["lengths"]), C, best))
