#!/usr/bin/env python3
"""Sanity checks of a fresh passkey-quick results.json beyond equality with the committed copy: every
reader of the experiment is there with one value per length and depth, every accuracy lies in [0, 1],
and the models learned the task where they were trained (some reader above 0.5 at the training length,
where chance is 1 / (10 * 9 * 8 * 7))."""
import json
import sys

r = json.load(open(sys.argv[1]))
exp = r["experiment"]
readers = {(row["scheme"], row["map"]) for row in r["rows"]}
want = {(s, "none") for s in exp["schemes"]} | {("rope", m) for m in exp["maps"]}
assert readers == want, (readers, want)
for row in r["rows"]:
    for seed in row["whole"] + row["symbol"]:
        assert len(seed) == len(r["lengths"])
        for cell in seed:
            assert cell is None or (len(cell) == len(r["depths"]) and all(0 <= v <= 1 for v in cell))
t = r["lengths"].index(r["train_length"])
best = max(row["accuracy"][t] for row in r["rows"] if row["accuracy"][t] is not None)
assert best > 0.5, "no reader learned the passkey at the training length (best %.3f)" % best
print("passkey_quick: %d readers at %d lengths x %d depths; best at the training length %.3f"
      % (len(r["rows"]), len(r["lengths"]), len(r["depths"]), best))
