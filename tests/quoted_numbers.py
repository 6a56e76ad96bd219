#!/usr/bin/env python3
"""Quoted numbers: every results number README.md (and the docs named below: docs/tasks.md,
docs/published-results.md, docs/exercises.md) quotes is tied here to the committed file it comes from,
and the test fails when a quote and its source disagree.

Two kinds of tie, each explicit:
- TABLES: a Markdown table, found by its header line, with its source file and, per row label, the
  function that computes the row's cells from that file; every cell is compared as printed.
- QUOTES: a number in prose, found by a pattern that holds its words around it (one group: the
  number), with its source file, the value's path in it and the rounding.
A pattern or header that no longer matches exactly once fails too (the text moved: update the tie),
and so does a table of intervals in README.md that no entry here covers.

Rounding is Python's "%.*f" of the committed double (round half to even on the binary value), the same
as the tables pe-bench writes. Proportions print "mean [lo, hi]" (docs/results-format.md, "Intervals");
perplexities "mean ± half-width".
Usage: tests/quoted_numbers.py [repository root] [--show]   (--show prints each table as its source has it)
"""
import json
import os
import re
import sys

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
ROOT = ARGS[0] if ARGS else os.getcwd()
SHOW = "--show" in sys.argv
_cache = {}


def load(path):
    if path not in _cache:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            _cache[path] = json.load(f)
    return _cache[path]


def doc(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


# ---- formatting: what a cell prints ----

def fixed(v, d):
    return "—" if v is None else "%.*f" % (d, v)


def prop(m, lo, hi, d):
    """A proportion with its interval: 0.335 [0.001, 0.995]; the mean alone where it has none."""
    if m is None:
        return "—"
    if lo is None:
        return fixed(m, d)
    return "%.*f [%.*f, %.*f]" % (d, m, d, lo, d, hi)


def pm(m, h, d):
    return "—" if m is None else "%.*f ± %.*f" % (d, m, d, h)


def sig3(m, h):
    """A perplexity to three significant figures, its half-width to the same decimals: 5.18 ± 0.71,
    29.9 ± 16.9, 117 ± 144."""
    d = 2 if m < 10 else 1 if m < 100 else 0
    return pm(m, h, d)


# ---- selectors ----

def row(results, scheme, map_="none"):
    found = [r for r in results["rows"] if r["scheme"] == scheme and r.get("map", "none") == map_]
    if len(found) != 1:
        raise KeyError("%d rows %s+%s" % (len(found), scheme, map_))
    return found[0]


def col(results, length):
    return results["lengths"].index(length)


def summary(results, label):
    found = [g for g in results["summary"] if g["label"] == label]
    if len(found) != 1:
        raise KeyError("%d summaries %s" % (len(found), label))
    return found[0]


def passkey_cells(path, scheme, map_, lengths, d):
    r = load(path)
    x = row(r, scheme, map_)
    return [prop(x["accuracy"][col(r, n)], x["lo"][col(r, n)], x["hi"][col(r, n)], d) for n in lengths]


def hybrid_reader(task, depth, config, map_="none"):
    t = load("results/hybrids/summary.json")[task]
    c = [c for c in t["configs"] if c["depth"] == depth and c["config"] == config]
    rd = [rd for rd in c[0]["readers"] if rd["map"] == map_]
    return t, rd[0]


def hybrid_passkey(depth, config, map_, length):
    t, rd = hybrid_reader("passkey", depth, config, map_)
    i = t["lengths"].index(length)
    return prop(rd["mean"][i], rd["lo"][i], rd["hi"][i], 3)


def hybrid_charlm(depth, config, map_, length):
    t, rd = hybrid_reader("charlm", depth, config, map_)
    i = t["lengths"].index(length)
    return sig3(rd["mean"][i], rd["half_width"][i])


def rope_base(base, lengths):
    s = load("results/rope-base/summary.json")
    b = [b for b in s["bases"] if b["base"] == base][0]
    return ["%d of %d" % (b["planes_full_turn"], b["planes"])] + [
        sig3(b["mean"][s["lengths"].index(n)], b["half_width"][s["lengths"].index(n)]) for n in lengths]


def txl(label, source, lengths):
    s = load("results/txl-memory/summary.json")
    rd = [x for x in s["readers"] if x["label"] == label and x["source"] == source][0]
    return [sig3(rd["mean"][s["lengths"].index(n)], rd["half_width"][s["lengths"].index(n)]) for n in lengths]


def charlm_ext(label):
    r = load("results/context-extension/results.json")
    g = summary(r, label)
    return [pm(m, h, 2) for m, h in zip(g["mean"], g["half_width"])]


PK = "results/passkey/results.json"
FI = "results/fire-interpolation/results.json"
CL3 = "results/charlm-3seeds/results.json"
FIC = "results/fire-interpolation-charlm/results.json"
RP = "results/random-positions/results.json"
RPC = "results/random-positions-charlm/results.json"

SIN = "results/sinusoidal/summary.json"
SIN_VARIANTS = ["tournament-scale-0.1", "tournament-scale-0.3", "tournament-scale-3", "tournament-concatenated"]


def sin_row(task, variant):
    """results/sinusoidal/summary.json's row of a variant (None: the committed default) of a task."""
    rows = [r for r in load(SIN)["tasks"][task]["readers"]
            if (variant is None and not r["source"].startswith("results/sinusoidal/"))
            or (variant is not None and r["source"] == "results/sinusoidal/%s/results.json" % variant)]
    if len(rows) != 1:
        raise KeyError("%s: %s has %d rows of variant %s" % (SIN, task, len(rows), variant))
    return rows[0]


def sin_tour(variant):
    return sin_row("tournament", variant)["mean"]


def sin_lm(variant, i, key="mean"):
    return sin_row("charlm", variant)[key][i]



def charlm_reading(path, label):
    """A char-LM summary's entry of a reading read plainly: its label (the scheme's name, or e.g. "rope (random
    2048)"), or the first of the scheme's plain entries when no label is that."""
    r = load(path)
    plain = [x for x in r["summary"] if x["map"] == "none" and not x["finetuned"]]
    found = [x for x in plain if x.get("label") == label] or [x for x in plain if x["scheme"] == label]
    return r, found[0]


def charlm_mean(path, scheme, length):
    """A char-LM summary's mean perplexity over seeds at a length (read plainly)."""
    r, x = charlm_reading(path, scheme)
    return x["mean"][r["lengths"].index(length)]


def charlm_hw(path, label, length):
    """The half-width of its 95% interval over seeds."""
    r, x = charlm_reading(path, label)
    return x["half_width"][r["lengths"].index(length)]
CE_PK = "results/context-extension/passkey.json"
L5 = [64, 128, 256, 512, 1024]
L4 = [128, 256, 512, 1024]


def passkey_table_rows():
    rows = {}
    for x in load(PK)["rows"]:
        label = x["scheme"] if x["map"] == "none" else x["scheme"] + "+" + x["map"]
        rows[label] = (lambda s=x["scheme"], m=x["map"]: passkey_cells(PK, s, m, L5, 3))
    return rows


CE_MAPS = {"plain": "none", "pi": "pi", "ntk": "ntk", "yarn (paper)": "yarn", "selective": "selective",
           "yarn-hf": "yarn-hf", "yarn-hf, truncate off": "yarn-hf:truncate=false", "llama3": "llama3",
           "dynamic": "dynamic", "longrope": "longrope", "compress": "compress"}

HYBRID_STACKS = {"all-RoPE": ("rope", "rope", "none"), "all-RoPE + yarn-hf": ("rope", "rope", "yarn-hf"),
                 "all-NoPE": ("none", "none", "none"), "1:1 local-RoPE / global-NoPE": ("1to1", "1to1", "none"),
                 "3:1 (4 layers), 5:1 (6 layers)": ("3to1", "5to1", "none"),
                 "the same, partial-RoPE global": ("3to1-partial", "5to1-partial", "none")}
HYBRID_CHARLM = {"all-RoPE": ("rope", "rope", "none"), "all-RoPE + dynamic": ("rope", "rope", "dynamic"),
                 "all-NoPE": ("none", "none", "none"), "1:1": ("1to1", "1to1", "none"),
                 "3:1 (4 layers), 5:1 (6 layers)": ("3to1", "5to1", "none"),
                 "the same, partial-RoPE global": ("3to1-partial", "5to1-partial", "none")}
CHARLM_EXT = {"plain": "rope", "plain (cached, 96 windows)": "rope (cached)",
              "dynamic (cached, 96 windows)": "rope+dynamic (cached)",
              "dynamic-recompute (cached, 96 windows)": "rope+dynamic-recompute (cached)"}
for m in ("pi", "ntk", "yarn", "selective", "yarn-hf", "yarn-hf:truncate=false", "llama3", "dynamic", "longrope",
          "compress"):
    CHARLM_EXT[m] = "rope+" + m
    CHARLM_EXT[m + ", fine-tuned"] = "rope+" + m + " (fine-tuned)"

FILINGS_READERS = {"none": ("none", "none"), "sinusoidal": ("sinusoidal", "none"), "rope": ("rope", "none"),
                   "rope + pi": ("rope", "pi"), "rope + ntk": ("rope", "ntk"), "rope + yarn": ("rope", "yarn"),
                   "alibi": ("alibi", "none")}


def filings_row(scheme, map_):
    """docs/published-results.md: published / 3 seeds / 10 seeds / corpus version 1, all / far."""
    f3, f10, v1 = (load("results/filings%s/results.json" % x) for x in ("", "-10seeds", "-v1"))
    label = scheme if map_ == "none" else scheme + "+" + map_
    pub = f3["reference"]["rows"][label]
    cells = ["%.3f / %.3f" % (pub[0], pub[1])]
    for r in (f3, f10):
        x = row(r, scheme, map_)
        cells.append(" / ".join(prop(x["mean"][c], x["lo"][c], x["hi"][c], 3) for c in (0, 1)))
    x = row(v1, scheme, map_)
    cells.append("%.3f / %.3f" % (x["mean"][0], x["mean"][1]))
    return cells


def filings_rule(key):
    f3, v1 = load("results/filings/results.json"), load("results/filings-v1/results.json")
    c = f3["reference"]["corpus"]
    pub = "%s / %s" % (c["first_company_accuracy"], c["first_company_far_accuracy"]) if key == "first_company" else "—"
    return [pub, "%.3f / %.3f" % tuple(f3[key]), "same corpus", "%.3f / %.3f" % tuple(v1[key])]


DIR = "results/direction/%s/results.json"


def direction_cells(scheme):
    cells = []
    for rule in ("before", "nearest"):
        r = load(DIR % rule)
        x = row(r, scheme)
        cells += [prop(x["mean"][col(r, n)], x["lo"][col(r, n)], x["hi"][col(r, n)], 3) for n in (32, 256)]
    return cells


def direction_exact(key):
    cells = []
    for rule in ("before", "nearest"):
        r = load(DIR % rule)
        cells += ["%.3f" % r[key][col(r, n)] for n in (32, 256)]
    return cells


PACKING = "results/packing/summary.json"
PACKING_POLICIES = ["none", "padded", "packed", "isolated-reset", "isolated-global"]


def packing_cells(scheme, length):
    sm = load(PACKING)
    i = sm["lengths"].index(length)
    return [prop(c["accuracy"][i], c["lo"][i], c["hi"][i], 3)
            for c in (sm["single"][scheme][p] for p in PACKING_POLICIES)]


def packing_windows(scheme):
    sm = load(PACKING)
    cells = []
    for p in PACKING_POLICIES[1:]:
        c = sm["packed"][scheme][p]["packed"]
        cells.append("%s / %.2f" % (prop(c["later_accuracy"], c["later_lo"], c["later_hi"], 3), c["distractor_rate"]))
    return cells


PACKING_CHARLM = "results/packing/summary-charlm.json"


def packing_charlm(scheme, reading, other, lengths):
    """Per training policy: the reading's cell at each length (sig3), joined by ' / ' (other: a second
    reading at the last length instead)."""
    sm = load(PACKING_CHARLM)
    cells = []
    for p in ("padded", "packed", "isolated-reset", "isolated-global"):
        parts = []
        for k, n in enumerate(lengths):
            c = sm["cells"][scheme][p][other if other and k == len(lengths) - 1 else reading]
            i = sm["lengths"].index(n)
            parts.append(sig3(c["mean"][i], c["half_width"][i]) if c["mean"][i] is not None else "—")
        cells.append(" / ".join(parts))
    return cells


LOGN = "results/logn/%s/results.json"
LOGN_ROWS = ["none", "sinusoidal", "rope", "alibi", "t5", "shaw", "deberta", "kerple", "alibi-learned", "fire", "xpos",
             "cope"]


def logn_cells(scheme):
    """Plain and with logn: the tournament at 256 (10 seeds), passkey at 1024 and the char LM at 512 (3 seeds)."""
    cells = []
    t = load(LOGN % "tournament")
    for m in ("none", "logn"):
        x = row(t, scheme, m)
        cells.append(prop(x["mean"][col(t, 256)], x["lo"][col(t, 256)], x["hi"][col(t, 256)], 3))
    for m in ("none", "logn"):
        cells += passkey_cells(LOGN % "passkey", scheme, m, [1024], 3)
    c = load(LOGN % "charlm")
    if not any(g["scheme"] == scheme for g in c["summary"]):
        return cells + ["—", "—"]  # not among the 3-seed char LM's schemes
    for m in ("none", "logn"):
        g = summary(c, scheme if m == "none" else scheme + "+" + m)
        cells.append(pm(g["mean"][c["lengths"].index(512)], g["half_width"][c["lengths"].index(512)], 2))
    return cells


DIRECTION_ROWS = {"none": "none", "alibi (symmetric)": "alibi", "shaw": "shaw", "deberta": "deberta", "txl": "txl",
                  "t5 (bidirectional)": "t5", "rope": "rope", "sinusoidal": "sinusoidal", "kerple": "kerple",
                  "alibi-learned": "alibi-learned", "fire": "fire", "xpos": "xpos", "cope": "cope"}

ATT = "results/attention-diagnostics/summary.json"
ATT_ROWS = {"NoPE": ("none", "NoPE"), "ALiBi": ("alibi", "ALiBi"), "RoPE": ("rope", "RoPE"),
            "4 layers, 3:1: local RoPE (window 64)": ("4 layers, 3:1 local/global", "local RoPE (window 64)"),
            "4 layers, 3:1: global NoPE": ("4 layers, 3:1 local/global", "global NoPE"),
            "4 layers, 1:1: local RoPE (window 64)": ("4 layers, 1:1 local/global", "local RoPE (window 64)"),
            "4 layers, 1:1: global NoPE": ("4 layers, 1:1 local/global", "global NoPE"),
            "4 layers, all NoPE": ("4 layers, all NoPE", "NoPE"), "4 layers, all RoPE": ("4 layers, all RoPE", "RoPE")}


def att(reader, kind, n, key):
    """The mean over seeds of a layer type's measure at length n."""
    for r in load(ATT)["by_layer_type"]:
        if (r["reader"], r["layer_type"], r["length"]) == (reader, kind, n):
            return r[key]["mean"]
    return None


def probe(scheme, weights, state):
    """The position probe's held-out R^2 (mean, min, max over seeds) of one state."""
    for x in load(ATT)["probe"]["rows"]:
        if (x["scheme"], x["weights"], x["state"]) == (scheme, weights, state):
            return x["r2"]
    return None


def attention_cells(reader, kind):
    """H / ln n at 128 and 512, the mass past the training length at 512 and 2048 (a dash: not read)."""
    recs = {r["length"]: r for r in load(ATT)["by_layer_type"] if r["reader"] == reader and r["layer_type"] == kind}
    cell = lambda n, k: fixed(recs[n][k]["mean"], 3) if n in recs else "—"
    return [cell(128, "entropy_ratio"), cell(512, "entropy_ratio"), cell(512, "beyond"), cell(2048, "beyond")]


def alibi_head_cells(head):
    hs = {h["length"]: h for h in load(ATT)["alibi_heads"] if h["head"] == head}
    return [fixed(hs[256]["bias_only"], 4), fixed(hs[256]["measured"]["mean"], 4), fixed(hs[512]["bias_only"], 4),
            fixed(hs[512]["measured"]["mean"], 4)]


# (document, the table's header line, source, {row label: cells})
def probe_at(path, scheme, length, map_="none"):
    r = load(path)
    return row(r, scheme, map_)["accuracy"][col(r, length)]


FL = "results/%s-first-look/results.json"
NEEDLES = "results/needles/results.json"
ORDER = "results/order/results.json"
PROBE_ROWS = ["none", "sinusoidal", "learned", "rope", "rope+pi", "rope+yarn", "rope+yarn-hf", "alibi", "t5", "shaw",
              "txl", "deberta", "tupe", "hybrid"]


def probe_rows(path):
    return {label: (lambda s=label.split("+")[0], m=(label.split("+") + ["none"])[1]: passkey_cells(path, s, m, L5, 3))
            for label in PROBE_ROWS}


def probe_cell(path, scheme, length, cell, map_="none"):
    r = load(path)
    return row(r, scheme, map_)["cell_grid"][col(r, length)][r["cells"].index(cell)]


def hybrid_maps(path, length, pick):
    r = load(path)
    return pick(x["accuracy"][col(r, length)] for x in r["rows"] if x["scheme"] == "hybrid" and x["map"] != "none")


def best_other_cell(path, length, cell):
    """The most any plain reader but NoPE gets in a cell, in percent."""
    r = load(path)
    return 100 * max(x["cell_grid"][col(r, length)][r["cells"].index(cell)] for x in r["rows"]
                     if x["map"] == "none" and x["scheme"] != "none" and x["cell_grid"][col(r, length)] is not None)


EX = "results/exercises/%s.json"
DD, D1 = "results/distractors-deeper/results.json", "results/declarations-one-hop/results.json"


def exercise(eid, *path):
    v = load(EX % eid)["answer"]
    for k in path:
        v = v[k] if not isinstance(k, tuple) else next(x for x in v if x[k[0]] == k[1])
    return v


def signed(fmt, v):
    return (fmt % v).replace("-", "−")


def rescaled_row(m):
    r = exercise("13.1", "rows", ("map", m))
    return ["%d" % r["best_age"], signed("%.4f", r["gap_over_c"]), "%.3f" % r["weight_at_one"]]


TABLES = [
    ("README.md", "| multi-needle reader | 64 | 128 | 256 | 512 | 1024 |", NEEDLES, probe_rows(NEEDLES)),
    ("README.md", "| relative-order reader | 64 | 128 | 256 | 512 | 1024 |", ORDER, probe_rows(ORDER)),
    ("README.md", "| at 512 | none (whole windows) | padded | packed | isolated-reset | isolated-global |", PACKING,
     {k: (lambda k=k: packing_cells(k, 512)) for k in ("none", "sinusoidal", "rope", "alibi", "t5", "hybrid")}),
    ("README.md", "| across documents | padded | packed | isolated-reset | isolated-global |", PACKING,
     {k: (lambda k=k: packing_windows(k)) for k in ("none", "sinusoidal", "learned", "rope", "alibi", "t5", "hybrid")}),
    ("README.md", "| each paragraph alone, at 128 / at 2048 | padded | packed | isolated-reset | isolated-global |",
     PACKING_CHARLM,
     {k: (lambda k=k: packing_charlm(k, "documents", None, (128, 2048)))
      for k in ("none", "sinusoidal", "learned", "rope", "alibi", "t5", "hybrid")}),
    ("README.md", "| running text at 2048, read across / isolated, positions reset | padded | packed | isolated-reset | "
     "isolated-global |", PACKING_CHARLM,
     {k: (lambda k=k: packing_charlm(k, "running", "isolated-reset", (2048, 2048)))
      for k in ("none", "sinusoidal", "rope", "alibi", "t5", "hybrid")}),
    ("README.md", "| reader | before 32 | before 256 | nearest 32 | nearest 256 |", DIR % "*",
     dict({k: (lambda s=v: direction_cells(s)) for k, v in DIRECTION_ROWS.items()},
          **{"*best without positions*": lambda: direction_exact("bag_reader_on_test_set"),
             "*best with distances only*": lambda: direction_exact("distance_reader_on_test_set")})),
    ("README.md", "| reader | 64 | 128 | 256 | 512 | 1024 |", PK, passkey_table_rows()),
    ("README.md", "| scheme | tournament at 256 | + logn | passkey at 1024 | + logn | char LM at 512 | + logn |",
     LOGN % "*", {k: (lambda k=k: logn_cells(k)) for k in LOGN_ROWS}),
    ("README.md", "| reader: layer type | H / ln n at 128 | at 512 | mass past 128, at 512 | at 2048 |", ATT,
     {k: (lambda a=a, b=b: attention_cells(a, b)) for k, (a, b) in ATT_ROWS.items()}),
    ("README.md", "| ALiBi head | bias alone at 256 | trained at 256 | bias alone at 512 | trained at 512 |", ATT,
     {"%d (slope 1/%d)" % (h, 4 ** (h + 1)): (lambda h=h: alibi_head_cells(h)) for h in range(4)}),
    ("README.md", "| RoPE reader | 128 | 256 | 512 | 1024 |", CE_PK,
     {k: (lambda m=m: passkey_cells(CE_PK, "rope", m, L4, 3)) for k, m in CE_MAPS.items()}),
    ("README.md", "| stack | 4 layers, at 256 | 4 layers, at 1024 | 6 layers, at 256 | 6 layers, at 1024 |",
     "results/hybrids/summary.json",
     {k: (lambda a=a, b=b, m=m: [hybrid_passkey(4, a, m, 256), hybrid_passkey(4, a, m, 1024),
                                 hybrid_passkey(6, b, m, 256), hybrid_passkey(6, b, m, 1024)])
      for k, (a, b, m) in HYBRID_STACKS.items()}),
    ("README.md", "| stack (4 layers / 6 layers) | 4: at 128 | 4: at 512 | 4: at 2048 | 6: at 128 | 6: at 512 | 6: at 2048 |",
     "results/hybrids/summary.json",
     {k: (lambda a=a, b=b, m=m: [hybrid_charlm(4, a, m, n) for n in (128, 512, 2048)] +
          [hybrid_charlm(6, b, m, n) for n in (128, 512, 2048)])
      for k, (a, b, m) in HYBRID_CHARLM.items()}),
    ("README.md", "| base | planes turning fully over 0..127 | 128 | 512 | 2048 |", "results/rope-base/summary.json",
     {"100": lambda: rope_base(100.0, (128, 512, 2048)), "10⁴": lambda: rope_base(1e4, (128, 512, 2048)),
      "5×10⁵": lambda: rope_base(5e5, (128, 512, 2048)), "10⁶": lambda: rope_base(1e6, (128, 512, 2048))}),
    ("README.md", "| model | 128 | 512 | 2048 |", "results/txl-memory/summary.json",
     {"txl trained with memory, read in segments with it": lambda: txl("txl (memory 128)", "memory", (128, 512, 2048)),
      "the same models read plainly (one forward over the window)": lambda: txl("txl", "memory", (128, 512, 2048)),
      "txl without memory (shuffled windows of 128)": lambda: txl("txl", "memoryless", (128, 512, 2048)),
      "ALiBi": lambda: txl("alibi", "memoryless", (128, 512, 2048)),
      "RoPE (results/rope-base)": lambda: rope_base(1e4, (128, 512, 2048))[1:]}),
    ("README.md", "| reader | 128 | 256 | 512 | 1024 | 2048 |", "results/context-extension/results.json",
     {k: (lambda v=v: charlm_ext(v)) for k, v in CHARLM_EXT.items()}),
    ("docs/exercises.md", "| map | best age | gap at −1 (× c) | weight at −1 |", EX % "13.1",
     {"none": lambda: rescaled_row("none"), "pi (uniform)": lambda: rescaled_row("pi"),
      "ntk": lambda: rescaled_row("ntk"), "yarn": lambda: rescaled_row("yarn"),
      "selective": lambda: rescaled_row("selective")}),
    ("docs/published-results.md", "| reader | published | 3 seeds | 10 seeds | corpus version 1, 3 seeds |",
     "results/filings*/results.json",
     dict({k: (lambda a=a, b=b: filings_row(a, b)) for k, (a, b) in FILINGS_READERS.items()},
          **{"first company named (always)": lambda: filings_rule("first_company"),
             "company named most so far": lambda: filings_rule("most_named_so_far")})),
]


def mean_of(path, scheme, map_, length, key="mean"):
    r = load(path)
    return row(r, scheme, map_)[key][col(r, length)]


def filings(scheme, map_, column, key="mean"):
    r = load("results/filings-10seeds/results.json")
    return row(r, scheme, map_)[key][column]


def published_filings(label, column):
    return load("results/filings-10seeds/results.json")["reference"]["rows"][label][column]


def lab_rope_seed0():
    """RoPE seed 0's score curve in the laboratory's payload, as the page reads its values (page.html,
    reboundOf): r = 1, the window's edge, the deepest point past the window and the top after it."""
    lab = load("results/lab/lab.json")
    curve = [x for x in lab["scores"]["readers"] if x["scheme"] == "rope" and x["map"] == "none" and x["seed"] == 0][0]
    s, T = curve["score_by_age"], lab["scores"]["train_length"]
    deep = min(range(T, len(s)), key=lambda r: (s[r], r))
    top = max(range(deep + 1, len(s)), key=lambda r: (s[r], -r))
    return {"r1": s[1], "edge": s[T - 1], "deep": deep, "deep_value": s[deep], "top": top, "top_value": s[top]}


def paired_t3(which):
    r = load("results/tournament/results.json")
    i = col(r, 256)
    a = [s["accuracy"][i] for s in row(r, "rope", "ntk")["seeds"]]
    b = [s["accuracy"][i] for s in row(r, "rope", "yarn")["seeds"]]
    d = [x - y for x, y in zip(a, b)]
    n = len(d)
    if n != 3:
        raise ValueError("the quote names 2 degrees of freedom; the file has %d seeds" % n)
    m = sum(d) / n
    hw = 4.302652729749464 * (sum((x - m) ** 2 for x in d) / (n - 1)) ** 0.5 / n ** 0.5
    return {"mean": m, "lo": m - hw, "hi": m + hw}[which]


T10 = "results/tournament-10seeds/results.json"
RPT = "results/random-positions-tournament/results.json"


def interval_quotes(d, before, path, scheme, n):
    """The three quotes of "<before> mean [lo, hi]" in d: the row's mean and interval at length n."""
    pattern = before + r"\s+%s \[%s,\s+%s\]"
    any_ = r"\S+"
    return [(d, pattern % ("(" + any_ + ")", any_, any_), lambda: mean_of(path, scheme, "none", n), 3),
            (d, pattern % (any_, "(" + any_ + ")", any_), lambda: mean_of(path, scheme, "none", n, "lo"), 3),
            (d, pattern % (any_, any_, r"([^\s\]]+)"), lambda: mean_of(path, scheme, "none", n, "hi"), 3)]
T3 = "results/tournament/results.json"
CE_T = "results/context-extension/tournament.json"

# (document, pattern with one group: the number, value, decimals)
QUOTES = [
    # docs/exercises.md
    ("docs/exercises.md", r"Two positionless layers are not \((\S+)\)",
     lambda: [r["max_abs_change"] for r in exercise("1.3", "rows") if r["scheme"] == "none" and r["layers"] == 2], 1),
    ("docs/exercises.md", r"one layer already \((\S+) for FIRE",
     lambda: [r["max_abs_change"] for r in exercise("1.3", "rows") if r["scheme"] == "fire" and r["layers"] == 1], 2),
    ("docs/exercises.md", r"to (\S+) for learned ALiBi slopes\)",
     lambda: [r["max_abs_change"] for r in exercise("1.3", "rows") if r["scheme"] == "alibi-learned" and r["layers"] == 1], 1),
    ("docs/exercises.md", r"a \*\*(\d+)-dimensional\*\* space", lambda: exercise("2", "invariant_biases", "fixed_dimension"), 0),
    ("docs/exercises.md", r"under a drawn\s+permutation \((\S+)\)", lambda: exercise("2", "rows", ("scheme", "alibi"), "drawn_permutation"), 2),
    ("docs/exercises.md", r"T5's two-sided buckets\s+\((\S+)\)", lambda: exercise("2", "rows", ("scheme", "t5"), "reversal"), 2),
    ("docs/exercises.md", r"RoPE \((\S+)\) and every absolute", lambda: exercise("2", "rows", ("scheme", "rope"), "reversal"), 2),
    ("docs/exercises.md", r"\(distance (\S+)\s+at d = 32", lambda: exercise("3", "rows", ("d", 32), "neighbour_distance"), 3),
    ("docs/exercises.md", r"\*\*(\S+) at d = 32\*\*", lambda: exercise("3", "rows", ("d", 32), "near_repeat_distance"), 3),
    ("docs/exercises.md", r"the near-repeat is (\d+) positions on", lambda: exercise("3", "rows", ("d", 512), "near_repeat_offset"), 0),
    ("docs/exercises.md", r"positions on \((\S+), the norm", lambda: exercise("3", "rows", ("d", 512), "near_repeat_distance"), 3),
    ("docs/exercises.md", r"\*\*(\d+) of \d+\*\* entries of rows 128", lambda: exercise("4", "without_weight_decay", "untrained_equal_initial"), 0),
    ("docs/exercises.md", r"\*\*\d+ of (\d+)\*\* entries of rows 128", lambda: exercise("4", "without_weight_decay", "untrained_entries"), 0),
    ("docs/exercises.md", r"initial value \((\d+) of \d+\)", lambda: exercise("4", "with_weight_decay", "untrained_equal_initial"), 0),
    ("docs/exercises.md", r"and all (\d+)\s+equal the recurrence", lambda: exercise("4", "with_weight_decay", "untrained_equal_recurrence"), 0),
    ("docs/exercises.md", r"= \*\*(\S+)\*\* \(measured", lambda: exercise("4", "with_weight_decay", "decay_factor_analytic"), 6),
    ("docs/exercises.md", r"\(measured\s+(\S+) to \S+, the float", lambda: exercise("4", "with_weight_decay", "decay_factor_measured_min"), 6),
    ("docs/exercises.md", r"\(measured\s+\S+ to (\S+), the float", lambda: exercise("4", "with_weight_decay", "decay_factor_measured_max"), 6),
    ("docs/exercises.md", r"rows one apart have cosine (\S+), and", lambda: exercise("4", "without_weight_decay", "diagonal_profile_trained_rows", 0), 3),
    ("docs/exercises.md", r"only\s+(\d+) positions apart", lambda: exercise("4", "without_weight_decay", "diagonal_spread_trained_rows"), 0),
    ("docs/exercises.md", r"\((\d+) with weight decay\)", lambda: exercise("4", "with_weight_decay", "diagonal_spread_trained_rows"), 0),
    ("docs/exercises.md", r"noise \((\S+) one apart\)", lambda: exercise("4", "without_weight_decay", "diagonal_profile_untrained_rows", 0), 3),
    ("docs/exercises.md", r"perplexity is (\S+)\s+at 128", lambda: load("results/learned-rows/results.json")["rows"][0]["perplexity"][0], 2),
    ("docs/exercises.md", r"at 128 and (\S+) at 512", lambda: load("results/learned-rows/results.json")["rows"][0]["perplexity"][2], 2),
    ("docs/exercises.md", r"\*\*c = (\S+)\*\* over the 32 keys", lambda: exercise("7", "rows", ("keys", 32), "half_weight_scale"), 3),
    ("docs/exercises.md", r"the training length \((\S+) over\s+256", lambda: exercise("7", "rows", ("keys", 256), "half_weight_scale"), 3),
    ("docs/exercises.md", r"over\s+256, (\S+) over 1,024\)", lambda: exercise("7", "rows", ("keys", 1024), "half_weight_scale"), 3),
    ("docs/exercises.md", r"next best score is only (\S+) c", lambda: exercise("7", "rows", ("keys", 32), "gap_over_c"), 4),
    ("docs/exercises.md", r"score (\S+) c each", lambda: exercise("7", "rows", ("keys", 32), "competitors", 0, "score_over_c"), 3),
    ("docs/exercises.md", r"take (\S+) of the weight each", lambda: exercise("7", "rows", ("keys", 32), "competitors", 0, "weight"), 3),
    ("docs/exercises.md", r"comes\s+next with (\S+)\.", lambda: exercise("7", "rows", ("keys", 32), "competitors", 2, "weight"), 3),
    ("docs/exercises.md", r"step, (\S+) turns over the training length", lambda: exercise("7", "planes", ("plane", 0), "turns_over_training"), 2),
    ("docs/exercises.md", r"plane 7 turns (\S+) of a turn", lambda: exercise("7", "planes", ("plane", 7), "turns_over_training"), 4),
    ("docs/exercises.md", r"logit scale, (\S+) at κ = 8", lambda: exercise("13.1", "rows", ("map", "yarn"), "logit_scale"), 3),
    ("docs/exercises.md", r"Answer \(`results/exercises/13.1.json`\), at c = (\S+),", lambda: exercise("13.1", "trained_half_weight_scale"), 3),
    ("docs/exercises.md", r"\(θ'/θ = (\S+)\) and behaves", lambda: exercise("13.1", "rows", ("map", "yarn"), "theta_ratio", 0), 3),
    # the probes (README "Probes")
    ("README.md", r"Every scheme but NoPE \((\S+)\) learns it", lambda: probe_at(NEEDLES, "none", 64), 3),
    ("README.md", r"maps move it little \((\S+)–\S+ at 256\)", lambda: hybrid_maps(NEEDLES, 256, min), 3),
    ("README.md", r"maps move it little \(\S+–(\S+) at 256\)", lambda: hybrid_maps(NEEDLES, 256, max), 3),
    ("README.md", r"maps do not help \((\S+)–\S+\);", lambda: hybrid_maps(ORDER, 1024, min), 3),
    ("README.md", r"maps do not help \(\S+–(\S+)\);", lambda: hybrid_maps(ORDER, 1024, max), 3),
    ("README.md", r"stay at (\S+)–\S+ to 1,024, and Shaw's", lambda: min(probe_at(ORDER, s, 1024) for s in ("none", "t5", "deberta")), 3),
    ("README.md", r"stay at \S+–(\S+) to 1,024, and Shaw's", lambda: max(probe_at(ORDER, s, 1024) for s in ("none", "t5", "deberta")), 3),
    ("README.md", r"clipped table nearly \((\S+)\)\.", lambda: probe_at(ORDER, "shaw", 1024), 3),
    ("README.md", r"one in two by 256 \((\S+), what", lambda: probe_at(ORDER, "rope", 256), 3),
    ("README.md", r"YaRN \((\S+) at 1,024\), PI", lambda: probe_at(ORDER, "rope", 1024, "yarn"), 3),
    ("README.md", r"longrope all\s+above (\S+) —",
     lambda: int(min(probe_at(ORDER, "rope", 1024, m) for m in ("pi", "yarn", "yarn-hf", "longrope")) * 100) / 100, 2),
    ("README.md", r"ALiBi slips \((\S+) at 1,024\)", lambda: probe_at(ORDER, "alibi", 1024), 3),
    ("README.md", r"the marks far apart \((\S+)\); a candidate", lambda: probe_cell(ORDER, "alibi", 1024, "first, far marks"), 3),
    ("README.md", r"The hybrid keeps (\S+), and its maps", lambda: probe_at(ORDER, "hybrid", 1024), 3),
    ("README.md", r"falls with RoPE here \((\S+) at 256\)", lambda: probe_at(NEEDLES, "hybrid", 256), 3),
    ("README.md", r"no plain reader but NoPE \((\S+)\) gets all of 4",
     lambda: probe_cell(NEEDLES, "none", 256, "4 needles, all"), 2),
    ("README.md", r"right more than (\d+)%\s+of the time", lambda: best_other_cell(NEEDLES, 256, "4 needles, all"), 0),
    ("README.md", r"all of 8 more than (\d+)% \(NoPE", lambda: best_other_cell(NEEDLES, 256, "8 needles, all"), 0),
    ("README.md", r"more than \d+% \(NoPE (\S+)\), while", lambda: probe_cell(NEEDLES, "none", 256, "8 needles, all"), 2),
    ("README.md", r"\(NoPE\s+(\S+) with 4 needles", lambda: probe_cell(NEEDLES, "none", 256, "4 needles, i-th"), 2),
    ("README.md", r"with 4 needles\s+and (\S+) with 8;", lambda: probe_cell(NEEDLES, "none", 256, "8 needles, i-th"), 2),
    ("README.md", r"with 8; ALiBi (\S+) and \S+\)", lambda: probe_cell(NEEDLES, "alibi", 256, "4 needles, i-th"), 2),
    ("README.md", r"with 8; ALiBi \S+ and (\S+)\)", lambda: probe_cell(NEEDLES, "alibi", 256, "8 needles, i-th"), 2),
    ("README.md", r"RoPE's best map \((\S+) at\s+256\)", lambda: probe_at(NEEDLES, "rope", 256, "yarn"), 3),
    ("README.md", r"only ALiBi learns the distractors, (\S+); NoPE", lambda: probe_at(FL % "distractors", "alibi", 64), 3),
    ("README.md", r"learns the distractors, \S+; NoPE (\S+) and", lambda: probe_at(FL % "distractors", "none", 64), 3),
    ("README.md", r"\S+; NoPE \S+ and\s+RoPE (\S+); no scheme", lambda: probe_at(FL % "distractors", "rope", 64), 3),
    # the probes' second looks (README "Probes", docs/tasks.md section 7)
    ("README.md", r"NoPE reaches (\S+) on the distractors at 64", lambda: probe_at(DD, "none", 64), 3),
    ("README.md", r"and keeps (\S+) at 256, RoPE", lambda: probe_at(DD, "none", 256), 3),
    ("README.md", r"256, RoPE (\S+) falls to \S+, ALiBi", lambda: probe_at(DD, "rope", 64), 3),
    ("README.md", r"falls to (\S+), ALiBi\s+holds", lambda: probe_at(DD, "rope", 256), 3),
    ("README.md", r"holds (\S+) and \S+\. The code", lambda: probe_at(DD, "alibi", 64), 3),
    ("README.md", r"holds \S+ and (\S+)\. The code", lambda: probe_at(DD, "alibi", 256), 3),
    ("README.md", r"learned by all three at 64 \((\S+)\)", lambda: [probe_at(D1, s, 64) for s in ("none", "rope", "alibi")], 3),
    ("README.md", r"at 256 ALiBi keeps (\S+),", lambda: probe_at(D1, "alibi", 256), 3),
    ("README.md", r"keeps \S+,\s+NoPE (\S+) and RoPE", lambda: probe_at(D1, "none", 256), 3),
    ("README.md", r"NoPE \S+ and RoPE (\S+)\. With chains", lambda: probe_at(D1, "rope", 256), 3),
    ("docs/tasks.md", r"at 64\s+NoPE (\S+), RoPE \S+, ALiBi \S+; at 256", lambda: probe_at(DD, "none", 64), 3),
    ("docs/tasks.md", r"at 64\s+NoPE \S+, RoPE (\S+), ALiBi \S+; at 256", lambda: probe_at(DD, "rope", 64), 3),
    ("docs/tasks.md", r"at 64\s+NoPE \S+, RoPE \S+, ALiBi (\S+); at 256", lambda: probe_at(DD, "alibi", 64), 3),
    ("docs/tasks.md", r"at 256 NoPE (\S+), RoPE \S+, ALiBi \S+\. The errors", lambda: probe_at(DD, "none", 256), 3),
    ("docs/tasks.md", r"at 256 NoPE \S+, RoPE (\S+), ALiBi \S+\. The errors", lambda: probe_at(DD, "rope", 256), 3),
    ("docs/tasks.md", r"at 256 NoPE \S+, RoPE \S+, ALiBi (\S+)\. The errors", lambda: probe_at(DD, "alibi", 256), 3),
    ("docs/tasks.md", r"all three learn it at 64 \((\S+)\)", lambda: [probe_at(D1, s, 64) for s in ("none", "rope", "alibi")], 3),
    ("docs/tasks.md", r"at 256 ALiBi (\S+),\s+NoPE", lambda: probe_at(D1, "alibi", 256), 3),
    ("docs/tasks.md", r",\s+NoPE (\S+), RoPE \S+\. RoPE's loss", lambda: probe_at(D1, "none", 256), 3),
    ("docs/tasks.md", r"NoPE \S+, RoPE (\S+)\. RoPE's loss", lambda: probe_at(D1, "rope", 256), 3),
    # the probes' first looks (docs/tasks.md, section 7)
    ("docs/tasks.md", r"at 64: distractors NoPE (\S+),", lambda: probe_at(FL % "distractors", "none", 64), 3),
    ("docs/tasks.md", r"distractors NoPE \S+, RoPE (\S+),", lambda: probe_at(FL % "distractors", "rope", 64), 3),
    ("docs/tasks.md", r"ALiBi (\S+); code", lambda: probe_at(FL % "distractors", "alibi", 64), 3),
    ("docs/tasks.md", r"; code\s+(\S+), \S+ and \S+ \(chance", lambda: probe_at(FL % "declarations", "none", 64), 3),
    ("docs/tasks.md", r"; code\s+\S+, (\S+) and \S+ \(chance", lambda: probe_at(FL % "declarations", "rope", 64), 3),
    ("docs/tasks.md", r"; code\s+\S+, \S+ and (\S+) \(chance", lambda: probe_at(FL % "declarations", "alibi", 64), 3),
    # attention beyond RoPE (results/attention-diagnostics)
    ("README.md", r"all-RoPE stack's layers do \((\S+)\), more", lambda: att("4 layers, all RoPE", "RoPE", 2048, "beyond"), 3),
    ("README.md", r"more than the all-NoPE stack \((\S+)\)", lambda: att("4 layers, all NoPE", "NoPE", 2048, "beyond"), 3),
    ("README.md", r"they put as much past 128 \((\S+)\) as",
     lambda: att("4 layers, 3:1 local/global", "global NoPE", 2048, "beyond"), 3),
    ("README.md", r"recovers about half of it \(held-out R² (\S+), its", lambda: probe("none", "trained", 2)["mean"], 3),
    ("README.md", r"its\s+seeds (\S+)–\S+\), after its first", lambda: probe("none", "trained", 2)["min"], 3),
    ("README.md", r"its\s+seeds \S+–(\S+)\), after its first", lambda: probe("none", "trained", 2)["max"], 3),
    ("README.md", r"after its first (\S+);", lambda: probe("none", "trained", 1)["mean"], 3),
    ("README.md", r"initial weights score (\S+),", lambda: probe("none", "initial", 2)["mean"], 3),
    ("README.md", r"keeps almost none \((\S+)\)", lambda: probe("rope", "trained", 2)["mean"], 3),
    ("README.md", r"\(R² (\S+) for every\s+model\)", lambda: max(abs(x["r2"]["mean"]) for x in load(ATT)["probe"]["rows"]
                                                                if x["state"] == 0), 3),
    ("README.md", r"read worst, (\S+) positions off", lambda: [x for x in load(ATT)["probe"]["rows"] if (
        x["scheme"], x["weights"], x["state"]) == ("none", "trained", 2)][0]["ranges"][0]["rmse"]["mean"], 0),
    ("README.md", r"at 512 it puts (\S+) of its mass past\s+128", lambda: att("none", "NoPE", 512, "beyond"), 3),
    ("README.md", r"RoPE stays sharp but sends (\S+) of its mass", lambda: att("rope", "RoPE", 512, "beyond"), 3),
    # direction, the newer schemes' prose (results/direction, 3 seeds)
    ("README.md", r"on `before` \((\S+) and \S+ at 32\)", lambda: mean_of(DIR % "before", "kerple", "none", 32), 3),
    ("README.md", r"on `before` \(\S+ and (\S+) at 32\)", lambda: mean_of(DIR % "before", "alibi-learned", "none", 32), 3),
    ("README.md", r"keeping `nearest` to 256\s+\((\S+) and", lambda: mean_of(DIR % "nearest", "kerple", "none", 256), 3),
    ("README.md", r"keeping `nearest` to 256\s+\(\S+ and (\S+)\)", lambda: mean_of(DIR % "nearest", "alibi-learned", "none", 256),
     3),
    ("README.md", r"\((\S+) on `nearest` at 256\)", lambda: mean_of(DIR % "nearest", "fire", "none", 256), 3),
    ("README.md", r"its (\S+) on `before` at 32", lambda: mean_of(DIR % "before", "fire", "none", 32), 3),
    ("README.md", r"tells the sides at 32 \((\S+)\)", lambda: mean_of(DIR % "before", "xpos", "none", 32), 3),
    ("README.md", r"no-position reader \((\S+) at 32\)", lambda: mean_of(DIR % "nearest", "cope", "none", 32), 3),
    ("README.md", r"it\s+reaches (\S+) at 32 only", lambda: mean_of(DIR % "before", "cope", "none", 32), 3),
    # passkey, prose under the table (results/passkey, 3 seeds)
    ("README.md", r"selective best: (\S+) at 256", lambda: mean_of(PK, "rope", "selective", 256, "accuracy"), 2),
    ("README.md", r"ALiBi (\S+) and T5 \S+ at\s+512", lambda: mean_of(PK, "alibi", "none", 512, "accuracy"), 2),
    ("README.md", r"ALiBi \S+ and T5 (\S+) at\s+512", lambda: mean_of(PK, "t5", "none", 512, "accuracy"), 2),
    ("README.md", r"Transformer-XL (\S+) and KERPLE's log kernel \S+ at 1,024",
     lambda: mean_of(PK, "txl", "none", 1024, "accuracy"), 3),
    ("README.md", r"KERPLE's log kernel (\S+) at 1,024", lambda: mean_of(PK, "kerple", "none", 1024, "accuracy"), 3),
    ("README.md", r"ALiBi with learned slopes (\S+) at 1,024", lambda: mean_of(PK, "alibi-learned", "none", 1024, "accuracy"),
     3),
    ("README.md", r"above the fixed slopes' (\S+) but", lambda: mean_of(PK, "alibi", "none", 1024, "accuracy"), 3),
    ("README.md", r"without\s+it FIRE reads the passkey at (\S+) at 1,024",
     lambda: mean_of(FI, "fire", "none", 1024, "accuracy"), 3),
    ("README.md", r"at 1,024 \(its worst seed (\S+)\)",
     lambda: min(s[col(load(FI), 1024)] for s in row(load(FI), "fire")["seed_accuracy"]), 3),
    ("README.md", r"its worst seed \S+\), against (\S+) with it",
     lambda: mean_of(PK, "fire", "none", 1024, "accuracy"), 3),
    ("README.md", r"FIRE's perplexity rises from (\S+) at 128", lambda: charlm_mean(CL3, "fire", 128), 2),
    ("README.md", r"FIRE's perplexity rises from \S+ at 128 to (\S+)\s+at 512", lambda: charlm_mean(CL3, "fire", 512), 2),
    ("README.md", r"it falls, from (\S+) to \S+, below", lambda: charlm_mean(FIC, "fire", 128), 2),
    ("README.md", r"it falls, from \S+ to (\S+), below", lambda: charlm_mean(FIC, "fire", 512), 2),
    ("README.md", r"below KERPLE's (\S+): as on passkey", lambda: charlm_mean(CL3, "kerple", 512), 2),
    ("README.md", r"counts by its gates, reads every length \((\S+) at 1,024", lambda: mean_of(PK, "cope", "none", 1024,
                                                                                          "accuracy"), 3),
    ("README.md", r"each seed at least (\S+)\)", lambda: min(s[-1] for s in row(load(PK), "cope")["seed_accuracy"]),
     3),
    ("README.md", r"loss under 1e-3 for all (\S+) runs",
     lambda: len([t for t in load(PK)["training"] if t["final_loss"] < 1e-3])
     if all(t["final_loss"] < 1e-3 for t in load(PK)["training"]) else -1, 0),
    ("README.md", r"FIRE, for all its progressive interpolation, only (\S+) at 512",
     lambda: mean_of(PK, "fire", "none", 512, "accuracy"), 3),
    ("README.md", r"progressive interpolation, only \S+ at 512 and (\S+) at\s+1,024",
     lambda: mean_of(PK, "fire", "none", 1024, "accuracy"), 3),
    ("README.md", r"its seeds spread from (\S+) to \S+ there",
     lambda: row(load(PK), "fire")["seed_accuracy"][1][col(load(PK), 1024)], 3),
    ("README.md", r"its seeds spread from \S+ to (\S+) there",
     lambda: row(load(PK), "fire")["seed_accuracy"][0][col(load(PK), 1024)], 3),
    ("README.md", r"plain RoPE at 128 retrieved (\S+), \S+ and \S+\s+of the passkeys",
     lambda: row(load(PK), "rope")["seed_accuracy"][0][col(load(PK), 128)], 3),
    ("README.md", r"plain RoPE at 128 retrieved \S+, (\S+) and \S+\s+of the passkeys",
     lambda: row(load(PK), "rope")["seed_accuracy"][1][col(load(PK), 128)], 3),
    ("README.md", r"plain RoPE at 128 retrieved \S+, \S+ and (\S+)\s+of the passkeys",
     lambda: row(load(PK), "rope")["seed_accuracy"][2][col(load(PK), 128)], 3),
    ("README.md", r"1,100 test sequences still leave \[(\S+), 1\.000\]", lambda: row(load(PK), "hybrid")["lo"][0], 3),
    ("README.md", r"xPos no better than plain RoPE \((\S+) at 128", lambda: mean_of(PK, "xpos", "none", 128, "accuracy"), 3),
    # randomised positions on the char LM (results/random-positions-charlm beside results/charlm-3seeds)
    ("README.md", r"Sinusoidal reads (\S+) ± \S+ at 512", lambda: charlm_mean(RPC, "sinusoidal (random 2048)", 512), 2),
    ("README.md", r"Sinusoidal reads \S+ ± (\S+) at 512", lambda: charlm_hw(RPC, "sinusoidal (random 2048)", 512), 2),
    ("README.md", r"at 512 \((\S+) ± \S+ with\s+positions", lambda: charlm_mean(CL3, "sinusoidal", 512), 2),
    ("README.md", r"at 512 \(\S+ ± (\S+) with\s+positions", lambda: charlm_hw(CL3, "sinusoidal", 512), 2),
    ("README.md", r"but (\S+) at 128 \(\S+\); the learned", lambda: charlm_mean(RPC, "sinusoidal (random 2048)", 128), 2),
    ("README.md", r"but \S+ at 128 \((\S+)\); the learned", lambda: charlm_mean(CL3, "sinusoidal", 128), 2),
    ("README.md", r"the learned table (\S+) ± \S+ at 512", lambda: charlm_mean(RPC, "learned (random 2048)", 512), 2),
    ("README.md", r"the learned table \S+ ± (\S+) at 512", lambda: charlm_hw(RPC, "learned (random 2048)", 512), 2),
    ("README.md", r"the learned table \S+ ± \S+ at 512 \((\S+)\)", lambda: charlm_mean(CL3, "learned", 512), 2),
    ("README.md", r"and (\S+) at\s+128 \(\S+\); RoPE", lambda: charlm_mean(RPC, "learned (random 2048)", 128), 2),
    ("README.md", r"and \S+ at\s+128 \((\S+)\); RoPE", lambda: charlm_mean(CL3, "learned", 128), 2),
    ("README.md", r"RoPE (\S+) ± \S+ at 512 \(", lambda: charlm_mean(RPC, "rope (random 2048)", 512), 2),
    ("README.md", r"RoPE \S+ ± (\S+) at 512 \(", lambda: charlm_hw(RPC, "rope (random 2048)", 512), 2),
    ("README.md", r"RoPE \S+ ± \S+ at 512 \((\S+)\) and", lambda: charlm_mean(CL3, "rope", 512), 2),
    ("README.md", r"at 512 \(\S+\) and (\S+) at 128 \(\S+\)\. ALiBi", lambda: charlm_mean(RPC, "rope (random 2048)", 128), 2),
    ("README.md", r"and \S+ at 128 \((\S+)\)\. ALiBi", lambda: charlm_mean(CL3, "rope", 128), 2),
    ("README.md", r"as well as 128 \((\S+)\), gains", lambda: charlm_mean(CL3, "alibi", 512), 2),
    ("README.md", r"gains at 128 \((\S+)\) and loses", lambda: charlm_mean(RPC, "alibi (random 2048)", 128), 2),
    ("README.md", r"loses at 512 \((\S+) ± \S+\)\.", lambda: charlm_mean(RPC, "alibi (random 2048)", 512), 2),
    ("README.md", r"loses at 512 \(\S+ ± (\S+)\)\.", lambda: charlm_hw(RPC, "alibi (random 2048)", 512), 2),
    # randomised positions on the tournament (results/random-positions-tournament beside results/tournament-10seeds)
    *interval_quotes("README.md", r"read 256 with them: sinusoidal", RPT, "sinusoidal", 256),
    ("README.md", r"\] \((\S+) without\), the learned", lambda: mean_of(T10, "sinusoidal", "none", 256), 3),
    *interval_quotes("README.md", r"the learned\s+table with 256 rows", RPT, "learned", 256),
    *interval_quotes("README.md", r"TUPE", RPT, "tupe", 256),
    *interval_quotes("README.md", r"\(no answer\),\s+RoPE", RPT, "rope", 256),
    ("README.md", r"RoPE \S+ \[\S+, \S+\] \((\S+)\), T5", lambda: mean_of(T10, "rope", "none", 256), 3),
    *interval_quotes("README.md", r"\), T5", RPT, "t5", 256),
    ("README.md", r"T5 \S+ \[\S+, \S+\] \((\S+)\)\. The schemes", lambda: mean_of(T10, "t5", "none", 256), 3),
    *interval_quotes("README.md", r"some lose: ALiBi", RPT, "alibi", 256),
    ("README.md", r"some lose: ALiBi \S+ \[\S+, \S+\] \((\S+)\)", lambda: mean_of(T10, "alibi", "none", 256), 3),
    ("README.md", r"\), KERPLE (\S+) \(", lambda: mean_of(RPT, "kerple", "none", 256), 3),
    ("README.md", r"\), KERPLE \S+ \((\S+)\), FIRE", lambda: mean_of(T10, "kerple", "none", 256), 3),
    ("README.md", r"\), FIRE\s+(\S+) \(\S+\)\. Every head", lambda: mean_of(RPT, "fire", "none", 256), 3),
    ("README.md", r"\), FIRE\s+\S+ \((\S+)\)\. Every head", lambda: mean_of(T10, "fire", "none", 256), 3),
    ("README.md", r"pays a little at 32: RoPE (\S+) \(", lambda: mean_of(RPT, "rope", "none", 32), 3),
    ("README.md", r"pays a little at 32: RoPE \S+ \((\S+)\)", lambda: mean_of(T10, "rope", "none", 32), 3),
    ("README.md", r"the learned\s+table (\S+) \(\S+\)\. Shaw", lambda: mean_of(RPT, "learned", "none", 32), 3),
    ("README.md", r"the learned\s+table \S+ \((\S+)\)\. Shaw", lambda: mean_of(T10, "learned", "none", 32), 3),
    *interval_quotes("README.md", r"collapse at 32 \(Shaw", RPT, "shaw", 32),
    ("README.md", r"against (\S+)\): a draw of 32", lambda: mean_of(T10, "shaw", "none", 32), 3),
    ("README.md", r"are the controls \((\S+) and \S+ at 256", lambda: mean_of(RPT, "none", "none", 256), 3),
    ("README.md", r"are the controls \(\S+ and (\S+) at 256", lambda: mean_of(RPT, "cope", "none", 256), 3),
    # randomised positions (results/random-positions beside results/passkey)
    ("README.md", r"absolute codes read past 64 at all: sinusoidal (\S+) at 256",
     lambda: mean_of(RP, "sinusoidal", "none", 256, "accuracy"), 3),
    ("README.md", r"sinusoidal \S+ at 256 and (\S+) at 1,024 \(0\.000 with",
     lambda: mean_of(RP, "sinusoidal", "none", 1024, "accuracy"), 3),
    ("README.md", r"\((\S+) with\s+positions `0\.\.n-1`\)", lambda: mean_of(PK, "sinusoidal", "none", 1024, "accuracy"), 3),
    ("README.md", r"the learned table \(2,048 rows\) (\S+) and \S+ \(no", lambda: mean_of(RP, "learned", "none", 256, "accuracy"), 3),
    ("README.md", r"the learned table \(2,048 rows\) \S+ and (\S+) \(no", lambda: mean_of(RP, "learned", "none", 1024, "accuracy"), 3),
    ("README.md", r"RoPE gains at 128 and 256 \((\S+) and", lambda: mean_of(RP, "rope", "none", 128, "accuracy"), 3),
    ("README.md", r"RoPE gains at 128 and 256 \(\S+ and (\S+), against", lambda: mean_of(RP, "rope", "none", 256, "accuracy"), 3),
    ("README.md", r"and \S+, against (\S+) and \S+\) but still", lambda: mean_of(PK, "rope", "none", 128, "accuracy"), 3),
    ("README.md", r"and \S+, against \S+ and (\S+)\) but still", lambda: mean_of(PK, "rope", "none", 256, "accuracy"), 3),
    ("README.md", r"but still reads (\S+) at\s+1,024", lambda: mean_of(RP, "rope", "none", 1024, "accuracy"), 3),
    ("README.md", r"ALiBi moves from (\S+) to \S+ at 1,024", lambda: mean_of(PK, "alibi", "none", 1024, "accuracy"), 3),
    ("README.md", r"ALiBi moves from \S+ to (\S+) at 1,024", lambda: mean_of(RP, "alibi", "none", 1024, "accuracy"), 3),
    # xPos on the char LM (results/charlm-3seeds)
    ("README.md", r"rises here like FIRE: (\S+) at 128", lambda: charlm_mean(CL3, "cope", 128), 2),
    ("README.md", r"rises here like FIRE: \S+ at 128, (\S+) at 256", lambda: charlm_mean(CL3, "cope", 256), 2),
    ("README.md", r"rises here like FIRE: \S+ at 128, \S+ at 256, (\S+) at 512", lambda: charlm_mean(CL3, "cope", 512), 2),
    ("README.md", r"xPos reads the longest of them: (\S+) at 128", lambda: charlm_mean(CL3, "xpos", 128), 2),
    ("README.md", r"xPos reads the longest of them: \S+ at 128 and (\S+) at 512", lambda: charlm_mean(CL3, "xpos", 512), 2),
    ("README.md", r"without the decay, goes from (\S+) to", lambda: charlm_mean(CL3, "rope", 128), 2),
    ("README.md", r"without the decay, goes from \S+ to (\S+): its", lambda: charlm_mean(CL3, "rope", 512), 2),
    # the sinusoidal code's amplitude and layout (results/sinusoidal/summary.json)
    ("README.md", r"nothing moves past the training length: (\S+) to\s+\S+ at 256",
     lambda: min(sin_tour(v)[3] for v in SIN_VARIANTS), 3),
    ("README.md", r"nothing moves past the training length: \S+ to\s+(\S+) at 256",
     lambda: max(sin_tour(v)[3] for v in SIN_VARIANTS), 3),
    ("README.md", r"and the halves, against (\S+)\.", lambda: sin_tour(None)[3], 3),
    ("README.md", r"reads longer contexts better: (\S+) ± \S+ at 256", lambda: sin_lm("charlm-scale-0.1", 1, "mean"), 2),
    ("README.md", r"reads longer contexts better: \S+ ± (\S+) at 256",
     lambda: sin_lm("charlm-scale-0.1", 1, "half_width"), 2),
    ("README.md", r"at 256 against\s+(\S+) ± \S+ \(", lambda: sin_lm(None, 1, "mean"), 2),
    ("README.md", r"at 256 against\s+\S+ ± (\S+) \(", lambda: sin_lm(None, 1, "half_width"), 2),
    ("README.md", r"\((\S+) and \S+ at 512, intervals overlapping\)", lambda: sin_lm("charlm-scale-0.1", 2), 2),
    ("README.md", r"\(\S+ and (\S+) at 512, intervals overlapping\)", lambda: sin_lm(None, 2), 2),
    ("README.md", r"the same (\S+) and \S+ at 128", lambda: sin_lm("charlm-scale-0.1", 0), 2),
    ("README.md", r"the same \S+ and (\S+) at 128", lambda: sin_lm(None, 0), 2),
    ("README.md", r"the halves\s+change nothing \((\S+) at 256\)", lambda: sin_lm("charlm-concatenated", 1), 2),
    # the hybrids' prose (results/hybrids/summary.json)
    ("README.md", r"close but not level\n?\s*\((\S+) and \S+ at 1,024\)",
     lambda: hybrid_reader("passkey", 4, "rope", "yarn-hf")[1]["mean"][-1], 2),
    ("README.md", r"close but not level\n?\s*\(\S+ and (\S+) at 1,024\)",
     lambda: hybrid_reader("passkey", 6, "rope", "yarn-hf")[1]["mean"][-1], 2),
    # the 10-seed tournament figure's paragraph
    ("README.md", r"ALiBi holds past the training length \((\S+) at 64-256\)",
     lambda: [mean_of(T10, "alibi", "none", n) for n in (64, 128, 256)], 2),
    ("README.md", r"spreads across seeds \((\S+), \S+ and \S+ at 64, 128", lambda: mean_of(T10, "rope", "none", 64), 2),
    ("README.md", r"spreads across seeds \(\S+, (\S+) and \S+ at 64, 128", lambda: mean_of(T10, "rope", "none", 128), 2),
    ("README.md", r"spreads across seeds \(\S+, \S+ and (\S+) at 64, 128", lambda: mean_of(T10, "rope", "none", 256), 2),
    ("README.md", r"over 3 seeds (\S+), \S+ and \S+\)", lambda: mean_of(T3, "rope", "none", 64), 2),
    ("README.md", r"over 3 seeds \S+, (\S+) and \S+\)", lambda: mean_of(T3, "rope", "none", 128), 2),
    ("README.md", r"over 3 seeds \S+, \S+ and (\S+)\)", lambda: mean_of(T3, "rope", "none", 256), 2),
    ("README.md", r"holds where RoPE\s+falls \((\S+) at 64, 128 and 256\)",
     lambda: [mean_of(T10, "xpos", "none", n) for n in (64, 128, 256)], 2),
    ("README.md", r"KERPLE (\S+) and\s+FIRE \S+ at 256", lambda: mean_of(T10, "kerple", "none", 256), 2),
    ("README.md", r"KERPLE \S+ and\s+FIRE (\S+) at 256", lambda: mean_of(T10, "fire", "none", 256), 3),
    ("README.md", r"CoPE holds best, at every length \((\S+) at 256;", lambda: mean_of(T10, "cope", "none", 256), 3),
    ("README.md", r"at 256; (\S+) at 32, 64 and 128\)", lambda: [mean_of(T10, "cope", "none", n) for n in (32, 64, 128)],
     3),
    ("README.md", r"T5 falls from (\S+) at 32", lambda: mean_of(T10, "t5", "none", 32), 3),
    ("README.md", r"T5 falls from \S+ at 32 to (\S+) at 64", lambda: mean_of(T10, "t5", "none", 64), 2),
    ("README.md", r"T5 falls from \S+ at 32 to \S+ at 64 and (\S+) at 256", lambda: mean_of(T10, "t5", "none", 256), 2),
    ("README.md", r"DeBERTa from (\S+) to \S+ at 64", lambda: mean_of(T10, "shaw", "none", 32), 2),
    ("README.md", r"DeBERTa from \S+ to (\S+) at 64", lambda: mean_of(T10, "shaw", "none", 64), 2),
    ("README.md", r"DeBERTa from \S+ to \S+ at 64 and (\S+) at 256", lambda: mean_of(T10, "shaw", "none", 256), 2),
    ("README.md", r"Transformer-XL from (\S+) to \S+ and \S+;", lambda: mean_of(T10, "txl", "none", 32), 2),
    ("README.md", r"Transformer-XL from \S+ to (\S+) and \S+;", lambda: mean_of(T10, "txl", "none", 64), 2),
    ("README.md", r"Transformer-XL from \S+ to \S+ and (\S+);", lambda: mean_of(T10, "txl", "none", 256), 2),
    # pe-bench compare on the 3-seed tournament: the paired t over seeds (t(0.975, 2) = 4.302652729749464, as
    # tests/test_statistics.cpp checks against Boost) and each reader's interval (its row's lo, hi)
    ("README.md", r"across seeds \(paired t, 2 df\):\s+(\S+) \[\S+, \S+\]` and", lambda: paired_t3("mean"), 3),
    ("README.md", r"across seeds \(paired t, 2 df\):\s+\S+ \[(\S+), \S+\]` and", lambda: paired_t3("lo"), 3),
    ("README.md", r"across seeds \(paired t, 2 df\):\s+\S+ \[\S+, (\S+)\]` and", lambda: paired_t3("hi"), 3),
    ("README.md", r"`rope\+ntk: (\S+) \[\S+, \S+\], rope\+yarn", lambda: mean_of(T3, "rope", "ntk", 256), 3),
    ("README.md", r"`rope\+ntk: \S+ \[(\S+), \S+\], rope\+yarn", lambda: mean_of(T3, "rope", "ntk", 256, "lo"), 3),
    ("README.md", r"`rope\+ntk: \S+ \[\S+, (\S+)\], rope\+yarn", lambda: mean_of(T3, "rope", "ntk", 256, "hi"), 3),
    ("README.md", r"rope\+yarn: (\S+) \[\S+, \S+\]`", lambda: mean_of(T3, "rope", "yarn", 256), 3),
    ("README.md", r"rope\+yarn: \S+ \[(\S+), \S+\]`", lambda: mean_of(T3, "rope", "yarn", 256, "lo"), 3),
    ("README.md", r"rope\+yarn: \S+ \[\S+, (\S+)\]`", lambda: mean_of(T3, "rope", "yarn", 256, "hi"), 3),
    # the filings study (10 seeds)
    ("README.md", r"PI and YaRN keep the far answers \((\S+); published",
     lambda: [filings("rope", "pi", 1), filings("rope", "yarn", 1)], 3),
    ("README.md", r"keep the far answers \(\S+; published\s+(\S+) /", lambda: published_filings("rope+pi", 1), 3),
    ("README.md", r"keep the far answers \(\S+; published\s+\S+ / (\S+)\)", lambda: published_filings("rope+yarn", 1), 3),
    ("README.md", r"NTK sits between plain RoPE and them \((\S+) against", lambda: filings("rope", "ntk", 1), 3),
    ("README.md", r"them \(\S+ against (\S+); published", lambda: filings("rope", "none", 1), 3),
    ("README.md", r"them \(\S+ against \S+; published (\S+) against", lambda: published_filings("rope+ntk", 1), 3),
    ("README.md", r"published \S+ against\s+(\S+)\), ALiBi", lambda: published_filings("rope", 1), 3),
    ("README.md", r"ALiBi loses most of its far answers \((\S+) →", lambda: filings("alibi", "none", 0), 3),
    ("README.md", r"far answers \(\S+ → (\S+); published", lambda: filings("alibi", "none", 1), 3),
    ("README.md", r"far answers \(\S+ → \S+; published (\S+) →", lambda: published_filings("alibi", 0), 3),
    ("README.md", r"published \S+ → (\S+)\)\. The", lambda: published_filings("alibi", 1), 3),
    ("README.md", r"weakest as published \((\S+) /", lambda: filings("none", "none", 0), 3),
    ("README.md", r"weakest as published \(\S+ / (\S+) against", lambda: filings("none", "none", 1), 3),
    ("README.md", r"weakest as published \(\S+ / \S+ against (\S+) /", lambda: published_filings("none", 0), 3),
    ("README.md", r"against \S+ / (\S+)\): it finds", lambda: published_filings("none", 1), 3),
    ("README.md", r"the answer as often \((\S+) /",
     lambda: load("results/filings-10seeds/results.json")["most_named_so_far"][0], 3),
    ("README.md", r"the answer as often \(\S+ / (\S+)\)",
     lambda: load("results/filings-10seeds/results.json")["most_named_so_far"][1], 3),
    # docs/published-results.md, the filings study's patterns (10 seeds)
    ("docs/published-results.md", r"best on the far queries\*\*, (\S+) \[",
     lambda: [filings("rope", "pi", 1), filings("rope", "yarn", 1)], 3),
    ("docs/published-results.md", r"best on the far queries\*\*, \S+ \[(\S+), \S+\] and",
     lambda: filings("rope", "pi", 1, "lo"), 3),
    ("docs/published-results.md", r"best on the far queries\*\*, \S+ \[\S+, (\S+)\] and",
     lambda: filings("rope", "pi", 1, "hi"), 3),
    ("docs/published-results.md", r"best on the far queries\*\*, \S+ \[\S+, \S+\] and \[(\S+), \S+\]",
     lambda: filings("rope", "yarn", 1, "lo"), 3),
    ("docs/published-results.md", r"best on the far queries\*\*, \S+ \[\S+, \S+\] and \[\S+, (\S+)\]",
     lambda: filings("rope", "yarn", 1, "hi"), 3),
    # context extension on the tournament's heads (3 seeds)
    ("README.md", r"dynamic NTK\s+holds best \((\S+) at 1,024\)", lambda: mean_of(CE_T, "rope", "dynamic", 1024), 3),
    ("README.md", r"then compress \((\S+)\)", lambda: mean_of(CE_T, "rope", "compress", 1024), 3),
    ("README.md", r"llama3 \((\S+)\) and the code YaRN", lambda: mean_of(CE_T, "rope", "llama3", 1024), 3),
    ("README.md", r"YaRN without\s+truncation \((\S+)\)",
     lambda: mean_of(CE_T, "rope", "yarn-hf:truncate=false", 1024), 3),
    ("README.md", r"NTK is the best paper map up to 256 \((\S+),", lambda: mean_of(CE_T, "rope", "ntk", 256), 3),
    # context extension on the passkey (3 seeds)
    ("README.md", r"The code YaRN reads the passkey to 1,024 \((\S+)\)",
     lambda: mean_of(CE_PK, "rope", "yarn-hf", 1024, "accuracy"), 2),
    ("README.md", r"where the paper YaRN does not \((\S+)\)", lambda: mean_of(CE_PK, "rope", "yarn", 1024, "accuracy"), 2),
    # the laboratory's RoPE values (docs/lab.md: seed 0 of the committed payload)
    ("docs/lab.md", r"\(seed 0:\s+(\S+),", lambda: lab_rope_seed0()["r1"], 2),
    ("docs/lab.md", r"\(seed 0:\s+\S+, (\S+),", lambda: lab_rope_seed0()["edge"], 2),
    ("docs/lab.md", r"\(seed 0:\s+\S+, \S+, (\S+) at r =", lambda: lab_rope_seed0()["deep_value"], 2),
    ("docs/lab.md", r"\(seed 0:\s+\S+, \S+, \S+ at r = (\d+),", lambda: lab_rope_seed0()["deep"], 0),
    ("docs/lab.md", r"at r = \d+, (\S+) at r = \d+; the article", lambda: lab_rope_seed0()["top_value"], 2),
    ("docs/lab.md", r"at r = \d+, \S+ at r = (\d+); the article", lambda: lab_rope_seed0()["top"], 0),
]


def signless_zero(text):
    """"-0.000" (a small negative value) and "0.000" are the same printed number."""
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def split_row(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def tables_of(text):
    """Every Markdown table: (line number, header line, [body rows])."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|(\s*:?-+:?\s*\|)+\s*$", lines[i + 1]):
            j = i + 2
            body = []
            while j < len(lines) and lines[j].startswith("|"):
                body.append(split_row(lines[j]))
                j += 1
            out.append((i + 1, lines[i].strip(), body))
            i = j
        else:
            i += 1
    return out


def main():
    failures, checked = [], 0
    texts = {}
    for d, header, source, rows in TABLES:
        text = texts.setdefault(d, doc(d))
        found = [t for t in tables_of(text) if t[1] == header]
        if len(found) != 1:
            failures.append("%s: %d tables start with %r (expected 1): update tests/quoted_numbers.py" % (d, len(found), header))
            continue
        line, _, body = found[0]
        if SHOW:
            print("%s (%s)" % (header, source))
        labels = [r[0] for r in body]
        for label in rows:
            if label not in labels:
                failures.append("%s:%d: the table from %s has no row %r" % (d, line, source, label))
        for r in body:
            label = r[0]
            if label not in rows:
                failures.append("%s:%d: row %r is tied to nothing in %s" % (d, line, label, source))
                continue
            try:
                want = rows[label]()
            except (KeyError, IndexError, ValueError) as e:
                failures.append("%s:%d: row %r: its source %s has no such value (%s)" % (d, line, label, source, e))
                continue
            if SHOW:
                print("| %s | %s |" % (label, " | ".join(want)))
            have = r[-len(want):]
            for k, (h, w) in enumerate(zip(have, want)):
                checked += 1
                if h != w:
                    failures.append("%s:%d: row %r, column %d: the text says %s, %s says %s" %
                                    (d, line, label, len(r) - len(want) + k + 1, h, source, w))
    for d, pattern, value, decimals in QUOTES:
        text = texts.setdefault(d, doc(d))
        matches = list(re.finditer(pattern, text))
        if len(matches) != 1:
            failures.append("%s: %d matches of %r (expected 1): update tests/quoted_numbers.py" % (d, len(matches), pattern))
            continue
        m = matches[0]
        line = text.count("\n", 0, m.start(1)) + 1
        values = value()
        wants = {signless_zero("%.*f" % (decimals, v)) if decimals else "%d" % v
                 for v in (values if isinstance(values, list) else [values])}
        want = " and ".join(sorted(wants))
        have = signless_zero(m.group(1).replace("−", "-").lstrip("+"))
        checked += 1
        if wants != {have}:
            failures.append("%s:%d: the text says %s, its source says %s (pattern %r)" % (d, line, m.group(1), want, pattern))
    # every README table of intervals is tied to a source
    tied = {h for d, h, _, _ in TABLES if d == "README.md"}
    for line, header, body in tables_of(texts.setdefault("README.md", doc("README.md"))):
        if header in tied:
            continue
        if any(re.search(r"\d ± \d|\d \[\d", c) for r in body for c in r):
            failures.append("README.md:%d: a table of intervals (%s) tied to no source in tests/quoted_numbers.py" %
                            (line, header))
    for f in failures:
        print("quoted_numbers: " + f)
    if failures:
        print("quoted_numbers: %d of the quoted numbers and tables disagree with their sources" % len(failures))
        return 1
    print("quoted_numbers: %d quoted numbers agree with their committed sources" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())
