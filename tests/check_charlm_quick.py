# Sanity checks on a fresh charlm-quick results.json (beyond equality with the committed copy): every
# scheme of the experiment trains and is read plainly; a scheme read through a map (RoPE, and any
# scheme with a RoPE layer) is read through every map, fine-tuned with each and banded; every
# perplexity beats a uniform guess. Usage: python3 tests/check_charlm_quick.py results.json
import json, math, sys
r = json.load(open(sys.argv[1]))
exp = r["experiment"]
labels = {(x["scheme"], x["map"], x["finetuned"], x["band"]) for x in r["rows"]}
planned = {s for (s, m, f, b) in labels if m != "none"}
assert "rope" in planned, labels
expected = set()
for s in exp["schemes"]:
    expected.add((s, "none", False, 0))
    if s in planned:
        expected.add((s, "none", False, exp["band"]))
        for m in exp["maps"]:
            expected |= {(s, m, False, 0), (s, m, True, 0)}
assert labels == expected, sorted(labels ^ expected)
for row in r["rows"]:
    assert len(row["perplexity"]) == 3, row
    for p in row["perplexity"]:
        assert isinstance(p, float) and 1.0 < p < 28.0, (row["scheme"], p)  # better than a uniform guess
for t in r["training"]:
    assert t["final_loss"] < math.log(28), t
pl = r["position_loss"]
assert pl["length"] == 512 and pl["window"] == 16 and len(pl["rows"]) == len(r["rows"])
assert all(len(x["bins"]) == 32 for x in pl["rows"])
print("charlm_quick: %d readings of %d schemes, every perplexity in (1, 28)" % (len(r["rows"]), len(exp["schemes"])))
