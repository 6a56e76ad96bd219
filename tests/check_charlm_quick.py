# Sanity checks on a fresh charlm-quick results.json (beyond equality with the committed copy): every
# scheme trains, RoPE is read through each map, fine-tuned and banded, and every perplexity beats a
# uniform guess. Usage: python3 tests/check_charlm_quick.py results.json
import json, math, sys
r = json.load(open(sys.argv[1]))
labels = [(x["scheme"], x["map"], x["finetuned"], x["band"]) for x in r["rows"]]
expected = {("learned", "none", False, 0), ("sinusoidal", "none", False, 0), ("alibi", "none", False, 0),
            ("none", "none", False, 0), ("rope", "none", False, 0), ("rope", "none", False, 128),
            ("rope", "pi", False, 0), ("rope", "pi", True, 0), ("rope", "selective", False, 0),
            ("rope", "selective", True, 0)}
assert set(labels) == expected, labels
for row in r["rows"]:
    assert len(row["perplexity"]) == 3, row
    for p in row["perplexity"]:
        assert isinstance(p, float) and 1.0 < p < 28.0, (row["scheme"], p)  # better than a uniform guess
for t in r["training"]:
    assert t["final_loss"] < math.log(28), t
pl = r["position_loss"]
assert pl["length"] == 512 and pl["window"] == 16 and len(pl["rows"]) == 10
assert all(len(x["bins"]) == 32 for x in pl["rows"])
print("charlm_quick: %d readings, every perplexity in (1, 28)" % len(r["rows"]))
