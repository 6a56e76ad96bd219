#!/usr/bin/python3
"""Figures from pe-bench's results files, as PNG and SVG (headless matplotlib).

Usage: scripts/plot.py [--tournament results/tournament-10seeds/results.json]
                       [--geometry results/tournament-10seeds/geometry.json]
                       [--theory results/theory.json] [--charlm results/charlm/results.json]
                       [--filings results/filings/results.json] [--passkey results/passkey/results.json]
                       [--out results/figures] [--only NAME,NAME]
`make plots` runs it on the committed results. Figures (NAME.png and NAME.svg under --out):
  tournament        accuracy against length, every scheme: mean, each seed, 95% interval, published
  rescaling         RoPE read plainly and with each context-extension map, same style
  rope_score_by_age each RoPE head's score for a marked key against its age; the dive and rebound
  wavelength_census RoPE's wavelength per plane, and each map's per-plane factor
  log_ruler         the RoPE kernel at d = 64, 512, 8192 beside its limit and the straight line
  charlm_perplexity character-LM perplexity against context, every scheme and RoPE reading
  charlm_position   character-LM loss by position at the longest context, training length marked
  filings_accuracy  filings readers on all queries and on the far ones: mean, each seed, interval, published
  filings_document  one held-out filing (document.json beside --filings): every reader's answer at every
                    position, coloured by company, the true answer on top
  filings_lab       the laboratory's filing (lab_filing.json beside --filings; 209 tokens, Fenwick Logistics
                    named last at token 64), drawn the same way
  passkey_accuracy  passkey retrieval: whole-passkey accuracy against length, every reader: mean, each seed,
                    95% interval, the training length marked
  passkey_heatmaps  passkey retrieval: one heatmap per reader, length x depth, the training length marked
  passkey_training  passkey retrieval: every run's answer loss against step (metrics.jsonl of the runs
                    beside --passkey, in runs/passkey/), one panel per scheme
  context_extension_perplexity  the char LM's RoPE models read at 128-2048 by every context-extension reader
                    (--context-extension DIR/results.json): plain, each map, cached decoding; fine-tuned
  context_extension_passkey     passkey heatmaps (length x depth) per reader (DIR/passkey.json)
  context_extension_tournament  the tournament's RoPE heads read with every map (DIR/tournament.json)
  context_extension_attention   entropy / ln n, sink mass, mass beyond the training length against context,
                    one line per reader (DIR/attention.json, pe-bench analyze attention)
  context_extension_tournament_attention  the same for the tournament's heads (DIR/tournament-attention.json)
  rope_base         RoPE retrained with bases 100 to 10^6: perplexity against context, turns per plane over
                    the training offsets, and a base change at fine-tuning against PI and the code YaRN
                    (--rope-base FILE, the summary.json of scripts/rope_base_summary.py)
  hybrids           local-RoPE / global-NoPE stacks at 1:1, 3:1, 5:1 against all-RoPE and all-NoPE of the
                    same depth: char-LM perplexity and passkey accuracy against length, one panel per task and
                    depth (--hybrids FILE, the summary.json of scripts/hybrids_summary.py)
  hybrids_passkey_depth  the same stacks' passkey accuracy by length and depth, one heatmap per stack and reader
  txl_memory        Transformer-XL trained with its segment memory, read plainly and in segments with it, against
                    the memory-less txl, ALiBi and RoPE: perplexity against context (--txl-memory FILE, the
                    summary.json of scripts/txl_memory_summary.py)
A figure whose input file is absent, or holds nothing it draws, is skipped with a note. Every input
file is read and checked before anything is drawn: a file that is not strict JSON (truncated, NaN) or
lacks what a figure reads (a missing key, a wrong type, a value out of range, lists of different
lengths) ends the run with one line on stderr, `plot.py: FILE: what is wrong; how to fix it`, naming
the place in the file, and nothing is written. Each figure's PNG and SVG are rendered into temporary
files beside them and renamed into place only when both are whole, so a failed write (a full disk)
leaves the old figures and no temporary file. Needs Debian's python3-matplotlib.

Exit codes:
  0    every figure asked for was drawn, or skipped with a note
  2    usage: an unknown option or figure name
  4    an input file that cannot be read or is not what its figures need (the line names it)
  5    an output that cannot be written (disk full, no permission); no partial or temporary file is left
  130  interrupted (SIGINT or SIGTERM); temporary files are removed
"""
import argparse
import errno
import json
import math
import os
import signal
import sys
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.patches  # noqa: E402
import matplotlib.ticker  # noqa: E402

SIZE = (10.0, 5.0)  # inches; at DPI 100: 1000 x 500 pixels
DPI = 100
NAMES = ["tournament", "rescaling", "rope_score_by_age", "wavelength_census", "log_ruler",
         "charlm_perplexity", "charlm_position", "filings_accuracy", "filings_document", "filings_lab", "passkey_accuracy",
         "passkey_heatmaps", "passkey_training", "context_extension_perplexity", "context_extension_passkey",
         "context_extension_tournament", "context_extension_attention", "context_extension_tournament_attention",
         "rope_base", "hybrids", "hybrids_passkey_depth", "txl_memory"]
EXIT_USAGE, EXIT_DATA, EXIT_OUTPUT, EXIT_INTERRUPTED = 2, 4, 5, 130


# ---- reading and checking the input files --------------------------------------------------------

class DataError(Exception):
    """An input file that is not what a figure reads; the text says what is wrong and where."""


class OutputError(Exception):
    """A figure file that cannot be written: path and the system's reason."""

    def __init__(self, path, err):
        super().__init__(path)
        self.path, self.reason = path, err.strerror or str(err)
        self.full = err.errno in (errno.ENOSPC, errno.EDQUOT)


def describe(v):
    """A JSON value in a few words, for messages."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "the boolean %s" % ("true" if v else "false")
    if isinstance(v, (int, float)):
        s = repr(v)
        return "the number " + (s if len(s) <= 24 else s[:20] + "...")
    if isinstance(v, str):
        s = json.dumps(v)
        return "the string " + (s if len(s) <= 32 else s[:28] + '..."')
    if isinstance(v, list):
        return "a list of %d" % len(v) if v else "an empty list"
    return "an object" if v else "an empty object"


def at(path):
    return path or "the top level"


def bound(x):
    return "%d" % x if float(x).is_integer() and abs(x) < 1e15 else "%g" % x


class Num:
    """A number (never a boolean); integer: a JSON integer; lo/hi: inclusive bounds; above: exclusive."""

    def __init__(self, lo=None, hi=None, above=None, integer=False, null=False):
        self.lo, self.hi, self.above, self.integer, self.null = lo, hi, above, integer, null

    def expected(self):
        s = "an integer" if self.integer else "a number"
        if self.above is not None:
            s += " above %s" % bound(self.above)
        if self.lo is not None and self.hi is not None:
            s += " from %s to %s" % (bound(self.lo), bound(self.hi))
        elif self.lo is not None:
            s += " of at least %s" % bound(self.lo)
        elif self.hi is not None:
            s += " of at most %s" % bound(self.hi)
        return s + (" or null" if self.null else "")

    def check(self, v, path):
        if v is None and self.null:
            return
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and (isinstance(v, int) or not self.integer)
        if ok:
            try:
                x = float(v)
            except OverflowError:
                ok = False
            else:
                ok = (math.isfinite(x) and (self.lo is None or x >= self.lo) and (self.hi is None or x <= self.hi)
                      and (self.above is None or x > self.above))
        if not ok:
            raise DataError("%s is %s, expected %s" % (at(path), describe(v), self.expected()))


class Str:
    def check(self, v, path):
        if not isinstance(v, str):
            raise DataError("%s is %s, expected a string" % (at(path), describe(v)))


class Bool:
    def check(self, v, path):
        if not isinstance(v, bool):
            raise DataError("%s is %s, expected true or false" % (at(path), describe(v)))


class Any:
    def check(self, v, path):
        pass


class List:
    """A list of items; n: its exact length (why: what the length must match); most: at most that many."""

    def __init__(self, item, n=None, why="", nonempty=False, most=None, null=False):
        self.item, self.n, self.why, self.nonempty, self.most, self.null = item, n, why, nonempty, most, null

    def check(self, v, path):
        if v is None and self.null:
            return
        if not isinstance(v, list):
            raise DataError("%s is %s, expected a list" % (at(path), describe(v)))
        if self.n is not None and len(v) != self.n:
            raise DataError("%s has %d entries, expected %d%s" % (at(path), len(v), self.n, self.why))
        if self.nonempty and not v:
            raise DataError("%s is an empty list, expected at least one entry" % at(path))
        if self.most is not None and len(v) > self.most:
            raise DataError("%s has %d entries, at most %d can be drawn" % (at(path), len(v), self.most))
        for i, x in enumerate(v):
            self.item.check(x, "%s[%d]" % (path, i))


class Obj:
    """An object with these keys (a key ending in '?' may be absent); other keys are ignored."""

    def __init__(self, fields, null=False):
        self.fields, self.null = fields, null

    def check(self, v, path):
        if v is None and self.null:
            return
        if not isinstance(v, dict):
            raise DataError("%s is %s, expected an object" % (at(path), describe(v)))
        for key, schema in self.fields.items():
            optional = key.endswith("?")
            key = key.rstrip("?")
            if key not in v:
                if optional:
                    continue
                raise DataError('%s has no key "%s"' % (at(path), key))
            schema.check(v[key], "%s.%s" % (path, key) if path else key)


class Map:
    """An object whose every value follows one schema (keys are names: schemes, maps, kappas)."""

    def __init__(self, value):
        self.value = value

    def check(self, v, path):
        if not isinstance(v, dict):
            raise DataError("%s is %s, expected an object" % (at(path), describe(v)))
        for key, x in v.items():
            self.value.check(x, "%s.%s" % (path, key) if path else key)


class Unreadable:
    """A value strict JSON does not hold (NaN, Infinity, a number beyond a double), kept in place while
    parsing so that the error can name where it is."""

    def __init__(self, what):
        self.what = what


def find_unreadable(v, path=""):
    if isinstance(v, Unreadable):
        return path, v
    items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
    for k, x in items:
        found = find_unreadable(x, ("%s.%s" % (path, k) if path else k) if isinstance(k, str) else "%s[%d]" % (path, k))
        if found:
            return found
    return None


ABSENT = object()  # load's answer for a file that does not exist
MAX_READ_BYTES = 1 << 30  # the bound on one file, as pe-bench's (core/files.h, kMaxReadBytes)


def load(path):
    """The JSON value in path, or ABSENT when there is no such file. Strict JSON only: NaN, Infinity,
    numbers beyond a double and text that is not UTF-8 JSON are refused (DataError, naming the place)."""
    if not path or not os.path.exists(path):
        return ABSENT
    if os.path.isdir(path):
        raise DataError("a directory, not a file") from None
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_READ_BYTES + 1)  # bounded, as pe-bench's readers are: /dev/zero has no end
    except OSError as e:
        raise DataError("cannot be read: %s" % (e.strerror or e)) from None
    if len(raw) > MAX_READ_BYTES:
        raise DataError("holds more than %d MiB, more than a results file can" % (MAX_READ_BYTES >> 20)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DataError("not UTF-8 text (byte %d of %d)" % (e.start, len(raw))) from None
    if not text.strip():
        raise DataError("an empty file") from None
    odd = []

    def unreadable(what):
        odd.append(what)
        return Unreadable(what)

    def constant(name):
        return unreadable("%s, which is not a JSON number (pe-bench writes null for a missing value)" % name)

    def number(text):
        x = float(text)
        return x if math.isfinite(x) else unreadable("the number %s, beyond the range of a double" % text[:24])

    def unique_keys(pairs):  # a key twice in one object: the last would silently win
        seen = {}
        for k, v in pairs:
            if k in seen:
                unreadable("an object with the key %r twice" % k)
            seen[k] = v
        return seen

    def integer(text):
        return int(text) if len(text) <= 4000 else unreadable("an integer of %d digits" % len(text.lstrip("-")))

    try:
        v = json.loads(text, parse_constant=constant, parse_float=number, parse_int=integer, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as e:
        cut = e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string")
        raise DataError("not valid JSON: %s at line %d column %d%s" % (e.msg.removesuffix(" at"), e.lineno, e.colno,
                                                                      ", perhaps cut short" if cut else "")) from None
    except RecursionError:
        raise DataError("JSON nested too deep to read") from None
    if odd:
        found = find_unreadable(v)
        where, what = found if found else ("", Unreadable(odd[0]))
        raise DataError("%s is %s" % (at(where), what.what))
    return v


LENGTH = Num(lo=1, hi=2 ** 31, integer=True)
LENGTHS = List(LENGTH, nonempty=True)
ACCURACY = Num(lo=0, hi=1, null=True)
HALF_WIDTH = Num(lo=0, hi=1e6, null=True)  # a 95% interval's half-width: never negative


def interval_ends(row, mean_key="mean"):
    """A proportion's 95% intervals as error-bar lengths below and above each mean, from the row's lo and hi
    (docs/results-format.md, "Intervals": logit scale, always inside [0, 1]); None for a row without them
    (results from before those intervals: their symmetric half-width can pass 0 and 1, so it is not drawn)."""
    if "lo" not in row or "hi" not in row:
        return None
    return [(None, None) if m is None or lo is None or hi is None else (max(0.0, m - lo), max(0.0, hi - m))
            for m, lo, hi in zip(row[mean_key], row["lo"], row["hi"])]


def check_cue_results(r):
    """What tournament and rescaling read of a cue results.json."""
    Obj({"lengths": LENGTHS}).check(r, "")
    n, why = len(r["lengths"]), " (one per entry of lengths)"
    Obj({"rows": List(Obj({"scheme": Str(), "map": Str(),
                           "mean": List(ACCURACY, n, why),
                           "half_width?": List(HALF_WIDTH, n, why),
                           "lo?": List(ACCURACY, n, why), "hi?": List(ACCURACY, n, why),
                           "seeds": List(Obj({"accuracy": List(ACCURACY, n, why)}))}), nonempty=True),
         "test_sequences": Num(lo=0, integer=True),
         "experiment?": Obj({"train_length?": Num(lo=1, hi=2 ** 31)}),
         "reference?": Obj({"rows?": Map(List(Any())), "lengths?": List(Any())}, null=True)}).check(r, "")


def check_geometry(g):
    """What rope_score_by_age reads of geometry.json."""
    point = Obj({"age": Num(), "score": Num()})
    Obj({"rope?": List(Obj({"train_length": LENGTH, "seed": Num(integer=True),
                            "score_by_age": List(Num(), nonempty=True),
                            "deepest_past_window": point, "highest_after_deepest": point}), null=True)}).check(g, "")


def census_kappa(k):
    """The key of kappa k in the census's factor tables ("4" for 4.0)."""
    return str(k).rstrip("0").rstrip(".") if isinstance(k, float) else str(k)


def census_factor(plane, m, kappa, k):
    f = plane["factors"][m]
    return f.get(kappa, f.get(str(k)))


def check_theory(t):
    """What wavelength_census and log_ruler read of theory.json (each section may be absent)."""
    Obj({"wavelength_census?": Obj({
        "planes": List(Obj({"plane": Num(), "wavelength": Num(above=0), "factors": Map(Map(Num(above=0)))}),
                       nonempty=True),
        "train_len": Num(above=0), "d": Num(integer=True), "base": Num(),
        "kappas": List(Num(above=0), nonempty=True), "maps": List(Str())}),
        "log_ruler?": Obj({"rows": List(Obj({"delta": Num(above=0), "limit": Num(), "line": Num(),
                                             "by_d": List(Obj({"d": Num(integer=True), "ratio": Num()}))}),
                                        nonempty=True),
                           "quantity": Str(), "base": Num()})}).check(t, "")
    if "wavelength_census" in t:
        w = t["wavelength_census"]
        k = w["kappas"][-1]
        for j, p in enumerate(w["planes"]):
            for m in w["maps"]:
                where = "wavelength_census.planes[%d].factors" % j
                if m not in p["factors"]:
                    raise DataError('%s has no "%s" (a map listed in wavelength_census.maps)' % (where, m))
                if census_factor(p, m, census_kappa(k), k) is None:
                    raise DataError('%s.%s has no factor for kappa %s (the last of wavelength_census.kappas)'
                                    % (where, m, census_kappa(k)))
    if "log_ruler" in t:
        rows = t["log_ruler"]["rows"]
        for i, row in enumerate(rows[1:], 1):
            if len(row["by_d"]) != len(rows[0]["by_d"]):
                raise DataError("log_ruler.rows[%d].by_d has %d entries, expected %d (as rows[0].by_d)"
                                % (i, len(row["by_d"]), len(rows[0]["by_d"])))


def check_charlm_perplexity(r):
    """What charlm_perplexity reads of a char-LM results.json."""
    Obj({"lengths": LENGTHS}).check(r, "")
    n, why = len(r["lengths"]), " (one per entry of lengths)"
    ppl = Num(above=0, hi=1e300, null=True)
    summary = r.get("summary")
    row = {"scheme": Str(), "map": Str(), "seed": Num(integer=True), "perplexity": List(ppl, n, why)}
    # without a summary every row is drawn as its own reading (its map, band and fine-tuning)
    row.update({"finetuned" if not summary else "finetuned?": Bool(),
                "band" if not summary else "band?": Num(lo=0, integer=True)})
    Obj({"rows": List(Obj(row), nonempty=True), "train_length": Num(above=0, hi=2 ** 31),
         "summary?": List(Obj({"label": Str(), "map": Str(), "band": Num(lo=0, integer=True), "finetuned": Bool(),
                               "seeds": List(Any()), "mean": List(ppl, n, why),
                               "half_width": List(HALF_WIDTH, n, why)}), null=True)}).check(r, "")
    if all(p is None for row in r["rows"] for p in row["perplexity"]):
        raise DataError("rows hold no perplexity: every value is null")


def check_charlm_position(r):
    """What charlm_position reads of a char-LM results.json."""
    Obj({"train_length": Num(above=0, hi=2 ** 31),
         "position_loss": Obj({"window": LENGTH, "length": LENGTH,
                               "rows": List(Obj({"bins": List(Num()), "label": Str(),
                                                 "seed": Num(integer=True)}))})}).check(r, "")


def check_filings_results(r):
    """What filings_accuracy reads of the filings results.json: two columns (all queries, far ones)."""
    why = " (all queries, far queries)"
    two = List(ACCURACY, 2, why)
    Obj({"rows": List(Obj({"scheme": Str(), "map": Str(), "mean": two, "half_width?": List(HALF_WIDTH, 2, why),
                           "lo?": List(ACCURACY, 2, why), "hi?": List(ACCURACY, 2, why),
                           "seeds": List(Obj({"accuracy": two}))}), nonempty=True),
         "queries": Num(lo=0, integer=True), "far": Num(lo=0, integer=True), "far_queries": Num(lo=0, integer=True),
         "first_company": List(Num(lo=0, hi=1), 2, why), "most_named_so_far?": List(Num(lo=0, hi=1), 2, why),
         "reference?": Obj({"rows?": Map(two)}, null=True)}).check(r, "")


def check_passkey_results(r):
    """What passkey_accuracy and passkey_heatmaps read of a passkey results.json."""
    n_len = len(r["lengths"]) if isinstance(r, dict) and isinstance(r.get("lengths"), list) else None
    n_dep = len(r["depths"]) if isinstance(r, dict) and isinstance(r.get("depths"), list) else None
    why_l, why_d = " (one per length)", " (one per depth)"
    Obj({"lengths": List(Num(lo=2, integer=True), nonempty=True), "depths": List(Num(lo=0, hi=1), nonempty=True),
         "train_length": Num(lo=2, integer=True), "passkey?": Obj({"symbols?": Num(lo=1, integer=True)}),
         "rows": List(Obj({"scheme": Str(), "map": Str(), "accuracy": List(ACCURACY, n_len, why_l),
                           "half_width?": List(HALF_WIDTH, n_len, why_l),
                           "lo?": List(ACCURACY, n_len, why_l), "hi?": List(ACCURACY, n_len, why_l),
                           "depth_grid": List(List(ACCURACY, n_dep, why_d, null=True), n_len, why_l),
                           "whole": List(List(List(ACCURACY, n_dep, why_d, null=True), n_len, why_l))}),
                      nonempty=True)}).check(r, "")


def check_passkey_runs(runs):
    """What passkey_training reads: {scheme: {seed: [[step, loss], ...]}} gathered from the runs."""
    Map(Map(List(List(Num(), 2), nonempty=True))).check(runs, "")


def load_passkey_runs(root):
    """The answer loss of every passkey run under root (<scheme>/seed<N>/metrics.jsonl), or ABSENT when there
    are none."""
    if not os.path.isdir(root):
        return ABSENT
    runs = {}
    for scheme in sorted(os.listdir(root)):
        for seed in sorted(os.listdir(os.path.join(root, scheme))):
            path = os.path.join(root, scheme, seed, "metrics.jsonl")
            if not seed.startswith("seed") or not os.path.isfile(path):
                continue
            points = []
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    try:
                        m = json.loads(line)
                        points.append([m["step"], m["loss_avg"]])
                    except (ValueError, KeyError, TypeError):
                        raise DataError("%s line %d is not a metrics line (step, loss_avg)" % (path, n))
            if points:
                runs.setdefault(scheme, {})[seed[4:]] = points
    return runs or ABSENT


def check_document(d):
    """What filings_document reads of document.json: every list aligned with the document's words."""
    Obj({"document": Obj({"words": List(Str(), nonempty=True), "companies": List(Str(), most=8)})}).check(d, "")
    doc = d["document"]
    n, k, why = len(doc["words"]), len(doc["companies"]), " (one per word of document.words)"
    Obj({"document": Obj({"id": Str(), "kind": Str(), "marks": List(Num(integer=True), n, why),
                          "targets": List(Num(lo=-1, hi=k - 1, integer=True), n, why)}),
         "readers": List(Obj({"reader": Str(), "seed": Num(integer=True),
                              "answers": List(Num(lo=-1, hi=7, integer=True), n, why)}))}).check(d, "")


# ---- the figures ----------------------------------------------------------------------------------

def label(row):
    return row["scheme"] + ("" if row["map"] == "none" else "+" + row["map"])


def published(results, key):
    ref = results.get("reference") or {}
    rows, lens = ref.get("rows", {}), ref.get("lengths", [])
    if key not in rows:
        return [], []
    xs, ys = [], []
    for n, v in zip(lens, rows[key]):
        if isinstance(v, (int, float)) and not isinstance(v, bool) and n in results["lengths"]:
            xs.append(n), ys.append(v)
    return xs, ys


def accuracy_axes(ax, results, rows, title):
    lengths = results["lengths"]
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, row in enumerate(rows):
        c = colours[i % len(colours)]
        ends = interval_ends(row) or [(None, None)] * len(lengths)
        pts = [(n, m, e) for n, m, e in zip(lengths, row["mean"], ends) if m is not None]
        if not pts:
            continue
        xs, ms, es = zip(*pts)
        ax.plot(xs, ms, "-", color=c, lw=2, label="%s (%d seeds)" % (label(row), len(row["seeds"])))
        band = [(x, m - e[0], m + e[1]) for x, m, e in zip(xs, ms, es) if e[0] is not None]
        if band:
            ax.fill_between([b[0] for b in band], [b[1] for b in band], [b[2] for b in band], color=c, alpha=0.15, lw=0)
        for sd in row["seeds"]:
            sx = [n for n, a in zip(lengths, sd["accuracy"]) if a is not None]
            sy = [a for a in sd["accuracy"] if a is not None]
            ax.plot(sx, sy, ".", color=c, ms=4, alpha=0.6)
        px, py = published(results, label(row))
        if px:
            ax.plot(px, py, "o", mfc="none", mec=c, ms=9, mew=1.5)
    ax.set_xscale("log", base=2)
    ax.set_xticks(lengths)
    ax.set_xticklabels([str(n) for n in lengths])
    train = results.get("experiment", {}).get("train_length", 32)
    ax.axvline(train, color="grey", ls=":", lw=1)
    ax.text(train, 0.02, " trained at %d" % train, color="grey", fontsize=8)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("test length n (tokens, log scale)")
    ax.set_ylabel("accuracy (fraction of test sequences)")
    ax.set_title(title)
    handles, labels = ax.get_legend_handles_labels()
    extra = [plt.Line2D([], [], color="k", marker=".", ls="none", label="one seed"),
             plt.Line2D([], [], color="k", marker="o", mfc="none", ls="none", ms=8, label="published mean"),
             plt.Rectangle((0, 0), 1, 1, color="k", alpha=0.15, label="95% interval (logit scale)")]
    ax.legend(handles=handles + extra, fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.grid(alpha=0.3)


def fig_tournament(r):
    rows = [row for row in r["rows"] if row["map"] == "none"]
    if not rows:
        return "no row is read without a map"
    fig, ax = plt.subplots(figsize=SIZE)
    accuracy_axes(ax, r, rows, "Cue task: which marked token came last? accuracy against test length\n"
                  "(%d test sequences per length; bands: 95%% interval over seeds and test set)" % r["test_sequences"])
    return fig


def fig_rescaling(r):
    rows = [row for row in r["rows"] if row["scheme"] == "rope"]
    if not rows:
        return "no RoPE row"
    fig, ax = plt.subplots(figsize=SIZE)
    accuracy_axes(ax, r, rows, "RoPE heads re-read with context-extension maps (kappa = n / 32, no retraining)")
    return fig


def fig_rope_score(g):
    if not g.get("rope"):
        return "no RoPE head"
    fig, ax = plt.subplots(figsize=SIZE)
    train = g["rope"][0]["train_length"]
    ax.axvspan(0, train - 1, color="grey", alpha=0.15, label="training window (ages 0..%d)" % (train - 1))
    for head in g["rope"]:
        s = head["score_by_age"]
        ax.plot(range(len(s)), s, lw=1, alpha=0.8, label="seed %d" % head["seed"])
    # the dive and the rebound of the first head, labelled
    h = g["rope"][0]
    d, up = h["deepest_past_window"], h["highest_after_deepest"]
    ax.annotate("dive: age %d (seed %d)" % (d["age"], h["seed"]), (d["age"], d["score"]), (d["age"] + 15, d["score"] - 4),
                arrowprops={"arrowstyle": "->"}, fontsize=8)
    ax.annotate("rebound: age %d (seed %d)" % (up["age"], h["seed"]), (up["age"], up["score"]), (up["age"] + 10, up["score"] + 4),
                arrowprops={"arrowstyle": "->"}, fontsize=8)
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("age of the marked key r = query position - key position (tokens)")
    ax.set_ylabel("query-key content score q.k / sqrt(d)")
    ax.set_title("RoPE heads: score of a marked key against its age (mean over marked symbols)")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.grid(alpha=0.3)
    return fig


def fig_census(t):
    if "wavelength_census" not in t:
        return "no wavelength_census"
    w = t["wavelength_census"]
    planes = w["planes"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=SIZE)
    j = [p["plane"] for p in planes]
    ax1.semilogy(j, [p["wavelength"] for p in planes], "o-", label="wavelength 2 pi / theta_j")
    ax1.axhline(w["train_len"], color="grey", ls=":", label="training length L = %d" % w["train_len"])
    ax1.set_xlabel("plane j")
    ax1.set_ylabel("wavelength (tokens, log scale)")
    ax1.set_title("RoPE planes, d = %d, base %g" % (w["d"], w["base"]), fontsize=10)
    ax1.legend(fontsize=7)
    ax1.grid(alpha=0.3)
    kappa = str(w["kappas"][-1]).rstrip("0").rstrip(".") if isinstance(w["kappas"][-1], float) else str(w["kappas"][-1])
    for m in w["maps"]:
        ys = []
        for p in planes:
            ys.append(census_factor(p, m, kappa, w["kappas"][-1]))
        ax2.plot(j, ys, "o-", label=m)
    ax2.set_yscale("log", base=2)
    ax2.set_xlabel("plane j")
    ax2.set_ylabel("factor theta'_j / theta_j (log2 scale)")
    ax2.set_title("each map's factor per plane at kappa = %s" % kappa, fontsize=10)
    ax2.legend(fontsize=7)
    ax2.grid(alpha=0.3)
    fig.suptitle("The wavelength census: which planes turn within training, and what each map does to them")
    fig.tight_layout()
    return fig


def fig_log_ruler(t):
    if "log_ruler" not in t:
        return "no log_ruler"
    lr = t["log_ruler"]
    rows = lr["rows"]
    deltas = [r["delta"] for r in rows]
    fig, ax = plt.subplots(figsize=SIZE)
    for k, d in enumerate([b["d"] for b in rows[0]["by_d"]]):
        ax.plot(deltas, [r["by_d"][k]["ratio"] for r in rows], "o-", ms=4, label="d = %d" % d)
    ax.plot(deltas, [r["limit"] for r in rows], "k--", lw=1.5, label="limit d -> infinity")
    ax.plot(deltas, [r["line"] for r in rows], ":", color="grey", lw=2, label="straight line in log offset")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("offset delta (tokens, log2 scale)")
    ax.set_ylabel(lr["quantity"])
    ax.set_title("The logarithmic ruler: RoPE's mean kernel against offset (base %g)" % lr["base"])
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def charlm_label(row):
    s = label(row)
    if row.get("finetuned"):
        s += " (fine-tuned)"
    if row.get("band"):
        s += " (band %d)" % row["band"]
    return s


def fig_charlm_perplexity(r):
    fig, ax = plt.subplots(figsize=SIZE)
    lengths = r["lengths"]
    # one line per reading: over its seeds when the file has a summary (error bars: 95% interval)
    groups = r.get("summary") or [
        {"label": charlm_label(row), "map": row["map"], "band": row["band"], "finetuned": row["finetuned"],
         "seeds": [row["seed"]], "mean": row["perplexity"], "half_width": [0] * len(lengths)} for row in r["rows"]]
    colours = plt.get_cmap("tab20").colors
    for i, g in enumerate(groups):
        pts = [(n, m, h or 0) for n, m, h in zip(lengths, g["mean"], g["half_width"]) if m is not None]
        if not pts:
            continue
        xs, ms, hs = zip(*pts)
        style = ":" if g["finetuned"] else ("--" if g["map"] != "none" or g["band"] else "-")
        seeds = len(g["seeds"])
        c = colours[i % len(colours)]
        ax.errorbar(xs, ms, yerr=hs if seeds > 1 else None, ls=style, marker="o", ms=4, capsize=3, color=c,
                    label=g["label"] + ("" if seeds == 1 else " (%d seeds)" % seeds))
        if seeds > 1:  # each seed as a dot
            for row in r["rows"]:
                if charlm_label(row) == g["label"]:
                    pts = [(n, p) for n, p in zip(lengths, row["perplexity"]) if p is not None]
                    ax.plot([x for x, _ in pts], [p for _, p in pts], ".", color=c, ms=5, alpha=0.7)
    ax.set_yscale("log")
    # an interval over 3 seeds can reach below zero; the axis stops just under the lowest reading
    lowest = min(p for row in r["rows"] for p in row["perplexity"] if p is not None)
    ax.set_ylim(bottom=0.85 * lowest)
    ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.yaxis.set_minor_formatter(matplotlib.ticker.ScalarFormatter())
    ax.tick_params(axis="y", which="minor", labelsize=7)
    ax.set_xscale("log", base=2)
    ax.set_xticks(lengths)
    ax.set_xticklabels([str(n) for n in lengths])
    ax.axvline(r["train_length"], color="grey", ls=":", lw=1)
    ax.set_xlabel("context (characters, log2 scale)")
    ax.set_ylabel("validation perplexity (log scale)")
    ax.set_title("Character LM on The Time Machine: perplexity against context (trained at %d)\n"
                 "solid: read plainly; dashed: RoPE read with a map or a band; dotted: fine-tuned with the map%s"
                 % (r["train_length"], "\nbars: 95% interval over seeds; dots: each seed"
                    if any(len(g["seeds"]) > 1 for g in groups) else ""), fontsize=10)
    ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.grid(alpha=0.3, which="both")
    return fig


def fig_charlm_position(r):
    pl = r["position_loss"]
    w = pl["window"]
    fig, ax = plt.subplots(figsize=SIZE)
    colours = plt.get_cmap("tab20").colors
    for i, row in enumerate(pl["rows"]):
        xs = [b * w + w / 2 for b in range(len(row["bins"]))]
        style = ":" if "fine-tuned" in row["label"] else ("--" if "+" in row["label"] or "band" in row["label"] else "-")
        ax.plot(xs, row["bins"], lw=1.2, ls=style, color=colours[i % len(colours)],
                label="%s s%d" % (row["label"], row["seed"]))
    ax.axvline(r["train_length"], color="k", ls=":", lw=1.5)
    ax.text(r["train_length"], 0.98, " training length %d" % r["train_length"], va="top", fontsize=8,
            transform=ax.get_xaxis_transform())
    ax.set_xlabel("position in the %d-character window (bins of %d)" % (pl["length"], w))
    ax.set_ylabel("mean cross-entropy (nats per character)")
    ax.set_title("Character LM: loss by position at context %d" % pl["length"])
    ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.grid(alpha=0.3)
    return fig


def fig_filings_accuracy(r):
    ref = (r.get("reference") or {}).get("rows", {})
    rows = r["rows"]
    fig, ax = plt.subplots(figsize=SIZE)
    width = 0.38
    names = ["all queries (%d)" % r["queries"], "answer more than %d back (%d)" % (r["far"], r["far_queries"])]
    for col in range(2):
        xs = [i + (col - 0.5) * width for i in range(len(rows))]
        means = [row["mean"][col] if row["mean"][col] is not None else 0 for row in rows]
        ends = [(interval_ends(row) or [(None, None)] * 2)[col] for row in rows]
        errs = [[e[0] or 0 for e in ends], [e[1] or 0 for e in ends]]  # asymmetric: below, above
        ax.bar(xs, means, width * 0.95, yerr=errs, capsize=3, color=("#4878a8", "#e08040")[col], label=names[col])
        for x, row in zip(xs, rows):
            ys = [sd["accuracy"][col] for sd in row["seeds"] if sd["accuracy"][col] is not None]
            ax.plot([x] * len(ys), ys, "k.", ms=3)
            pub = ref.get(label(row))
            if pub is not None and pub[col] is not None:
                ax.plot([x - width / 2, x + width / 2], [pub[col]] * 2, color="k", lw=2)
    # the two rules without positions: in the legend (their lines can lie within a hair of each other)
    for col in range(2):
        ax.axhline(r["first_company"][col], color=("#4878a8", "#e08040")[col], ls=":", lw=1,
                   label=None if col else "always the first company (dotted)")
    if "most_named_so_far" in r:
        for col in range(2):
            ax.axhline(r["most_named_so_far"][col], color=("#4878a8", "#e08040")[col], ls="--", lw=1,
                       label=None if col else "the company named most so far (dashed)")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([label(row) for row in rows])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy on the held-out filings")
    ax.set_title("Filings: which company was named last? Trained on 32-token windows, read on whole documents\n"
                 "bars: mean of %d seeds, 95%% interval (logit scale); dots: seeds; black lines: published; "
                 "dotted, dashed: rules without positions"
                 % max(len(row["seeds"]) for row in rows), fontsize=10)
    ax.legend(fontsize=8, loc="lower left")
    ax.grid(alpha=0.3, axis="y")
    return fig


def fig_filings_document(d):
    import numpy as np
    from matplotlib.colors import ListedColormap
    doc = d["document"]
    n = len(doc["words"])
    targets = doc["targets"]
    rows = [("true answer", targets)]
    for rd in d["readers"]:
        rows.append(("%s s%d" % (rd["reader"], rd["seed"]), [x if t >= 0 else -1 for x, t in zip(rd["answers"], targets)]))
    grid = np.array([[v + 1 for v in answers] for _, answers in rows], dtype=float)  # 0: not a query
    colours = ["#ffffff"] + list(plt.get_cmap("tab10").colors[:8])
    fig, ax = plt.subplots(figsize=SIZE)
    ax.imshow(grid, aspect="auto", interpolation="nearest", cmap=ListedColormap(colours), vmin=0, vmax=8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([name for name, _ in rows], fontsize=5)
    ax.axhline(0.5, color="k", lw=1)
    mentions = [i for i, m in enumerate(doc["marks"]) if m]
    ax.plot(mentions, [-0.75] * len(mentions), "kv", ms=3, clip_on=False)
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_xlabel("position in the document (triangles: company mentions; white: before the first mention)")
    companies = ", ".join("%d %s" % (i, c) for i, c in enumerate(doc["companies"]))
    what = "The laboratory's filing" if doc["id"] == "lab" else "Held-out filing " + doc["id"]
    ax.set_title("%s (%s, %d tokens): each reader's answer at every position, colour = company\n%s"
                 % (what, doc["kind"], n, companies), fontsize=8)
    handles = [matplotlib.patches.Patch(color=colours[i + 1], label="%d %s" % (i, c)) for i, c in enumerate(doc["companies"])]
    answered = sorted({v for _, answers in rows for v in answers if v >= len(doc["companies"])})
    handles += [matplotlib.patches.Patch(color=colours[v + 1], label="%d (no such company here)" % v) for v in answered]
    ax.legend(handles=handles, fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig



# name: (its input file from the options, the check of what it reads, the drawing: a figure, or why none)
def passkey_label(row):
    return row["scheme"] if row["map"] == "none" else row["scheme"] + " + " + row["map"]


def fig_passkey_accuracy(r):
    fig, ax = plt.subplots(figsize=SIZE)
    xs = r["lengths"]
    cmap = plt.get_cmap("tab20")
    for i, row in enumerate(r["rows"]):
        color = cmap(i % 20)
        ends = interval_ends(row, "accuracy") or [(None, None)] * len(xs)
        pts = [(x, m, e) for x, m, e in zip(xs, row["accuracy"], ends) if m is not None]
        if not pts:
            continue
        style = "-" if row["map"] == "none" else "--"
        ax.errorbar([p[0] for p in pts], [p[1] for p in pts],
                    yerr=[[p[2][0] or 0 for p in pts], [p[2][1] or 0 for p in pts]], fmt=style + "o", ms=3,
                    capsize=2, color=color, label=passkey_label(row), lw=1.2)
        for seed in row["whole"]:
            ys = [(x, sum(g) / len(g)) for x, g in zip(xs, seed) if g is not None]
            ax.plot([p[0] for p in ys], [p[1] for p in ys], ".", color=color, ms=2, alpha=0.6)
    ax.axvline(r["train_length"], color="k", ls=":", lw=1)
    ax.text(r["train_length"], 1.02, " trained at %d" % r["train_length"], fontsize=8, va="bottom")
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.set_ylim(-0.02, 1.08)
    ax.set_xlabel("sequence length (tokens)")
    ax.set_ylabel("whole-passkey accuracy (mean over depths)")
    ax.set_title("Passkey retrieval: a %d-symbol key at a depth of random filler, asked for at the end\n"
                 "mean of %d seeds with its 95%% interval (logit scale; dots: each seed); dashed: RoPE read through a map"
                 % (r.get("passkey", {}).get("symbols", 0), max(len(row["whole"]) for row in r["rows"])), fontsize=10)
    ax.legend(fontsize=7, ncol=2, loc="center left", bbox_to_anchor=(1.0, 0.5))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def fig_passkey_heatmaps(r):
    rows = r["rows"]
    cols = min(5, len(rows))
    nrows = (len(rows) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(2.4 * cols + 1.2, 2.2 * nrows + 0.9), squeeze=False)
    lengths, depths = r["lengths"], r["depths"]
    image = None
    for k, ax in enumerate(axes.flat):
        if k >= len(rows):
            ax.axis("off")
            continue
        row = rows[k]
        grid = [[(g[d] if g is not None else float("nan")) for g in row["depth_grid"]] for d in range(len(depths))]
        image = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto", origin="lower",
                          interpolation="nearest")
        for li, g in enumerate(row["depth_grid"]):
            if g is None:
                ax.add_patch(matplotlib.patches.Rectangle((li - 0.5, -0.5), 1, len(depths), color="#dddddd"))
        if r["train_length"] in lengths:
            t = lengths.index(r["train_length"])
            ax.add_patch(matplotlib.patches.Rectangle((t - 0.5, -0.5), 1, len(depths), fill=False, ec="red", lw=1.5))
        ax.set_title(row.get("title") or passkey_label(row), fontsize=9)
        ax.set_xticks(range(len(lengths)))
        ax.set_xticklabels([str(n) for n in lengths], fontsize=6, rotation=45)
        ticks = sorted({0, len(depths) // 2, len(depths) - 1})
        ax.set_yticks(ticks)
        ax.set_yticklabels(["%.1f" % depths[i] for i in ticks], fontsize=6)
        if k % cols == 0:
            ax.set_ylabel("depth", fontsize=8)
    fig.suptitle("Passkey retrieval by length (columns) and depth (rows, 0: the start of the filler): whole-passkey "
                 "accuracy, mean over seeds;\nred frame: the training length %d; grey: a length the reader cannot "
                 "read" % r["train_length"], fontsize=10)
    fig.subplots_adjust(left=0.05, right=0.9, bottom=0.08, top=0.86, wspace=0.3, hspace=0.55)
    cax = fig.add_axes((0.925, 0.15, 0.012, 0.65))
    fig.colorbar(image, cax=cax)
    fig.pe_laid_out = True
    return fig


def log_length_axes(ax, lengths, train_length, minor_labels=False):
    """Perplexity against context: both axes logarithmic (x base 2, ticked at the lengths), plain
    numbers on y (minor ticks labelled too when asked: all of them over at most two decades, else
    only 2 and 5 times a power of ten, which would otherwise run into each other), the training
    length marked."""
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(lengths)
    ax.set_xticklabels([str(n) for n in lengths])
    ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    lo, hi = ax.get_ylim()
    if minor_labels and hi <= 100 * lo:
        ax.yaxis.set_minor_formatter(matplotlib.ticker.ScalarFormatter())
        ax.tick_params(axis="y", which="minor", labelsize=7)
    elif minor_labels:
        def two_and_five(v, _):
            mantissa = v / 10 ** math.floor(math.log10(v) + 1e-9)
            return "%g" % v if round(mantissa) in (2, 5) and abs(mantissa - round(mantissa)) < 1e-6 else ""
        ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(two_and_five))
        ax.tick_params(axis="y", which="minor", labelsize=7)
    else:
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.axvline(train_length, color="grey", ls=":", lw=1)
    ax.set_xlabel("context (characters, log2 scale)")
    ax.grid(alpha=0.3, which="both")


def fig_context_extension_perplexity(r):
    """Two panels: the readers (plain, each map, cached decoding) and the fine-tuned ones, log axes."""
    lengths = r["lengths"]
    groups = r.get("summary") or []
    if not groups:
        return "no summary over seeds"
    fig, axes = plt.subplots(1, 2, figsize=(14.0, 6.0), sharey=True)
    colours = plt.get_cmap("tab20").colors
    maps = []
    for g in groups:
        if g["map"] not in maps:
            maps.append(g["map"])
    for ax, tuned in zip(axes, (False, True)):
        for g in groups:
            if bool(g["finetuned"]) != tuned or g.get("band"):
                continue
            pts = [(n, m, h or 0) for n, m, h in zip(lengths, g["mean"], g["half_width"]) if m is not None]
            if not pts:
                continue
            xs, ms, hs = zip(*pts)
            cached = "(cached)" in g["label"]
            style = ":" if cached else ("-" if g["map"] == "none" else "--")
            c = "k" if g["map"] == "none" and not tuned else colours[maps.index(g["map"]) % len(colours)]
            ax.errorbar(xs, ms, yerr=hs, ls=style, marker="o", ms=3, capsize=2, color=c, lw=1.2,
                        label="plain" + g["label"][4:] if g["label"].startswith("rope") and not g["label"].startswith("rope+")
                        else g["label"][5:] if g["label"].startswith("rope+") else g["label"])
        log_length_axes(ax, lengths, r["train_length"], minor_labels=True)
        ax.legend(fontsize=6.5, loc="upper left", ncol=2)
        ax.set_title(("after 300 fine-tuning steps at 512 with each map's 128 -> 512 plan" if tuned else
                      "read without retraining: each map planned for 128 -> 2048 (dynamic, longrope: each pass's length)"),
                     fontsize=9)
    axes[0].set_ylabel("validation perplexity (log scale; mean of %d seeds, bars: 95%% interval)"
                       % max(len(g["seeds"]) for g in groups))
    fig.suptitle("Context extension: the char LM's RoPE models (trained at %d) read at longer contexts, one line "
                 "per reader\ndashed: a map; dotted: cached decoding (token by token); black: plain RoPE"
                 % r["train_length"], fontsize=10)
    return fig


def check_rope_base(r):
    """What rope_base reads of results/rope-base/summary.json."""
    Obj({"lengths": LENGTHS}).check(r, "")
    n, why = len(r["lengths"]), " (one per entry of lengths)"
    ppl = Num(above=0, hi=1e300, null=True)
    Obj({"train_length": Num(above=0, hi=2 ** 31),
         "bases": List(Obj({"base": Num(above=0), "seeds": List(Any(), nonempty=True), "mean": List(ppl, n, why),
                            "half_width": List(HALF_WIDTH, n, why),
                            "turns": List(Num(lo=0), nonempty=True, null=True)}), nonempty=True),
         "abf": List(Obj({"label": Str(), "map": Str(), "finetuned": Bool(), "mean": List(ppl, n, why),
                          "half_width": List(HALF_WIDTH, n, why)}))}).check(r, "")


def fig_rope_base(r):
    """Three panels: perplexity against context per base; turns per plane per base; the ABF readers."""
    lengths, L = r["lengths"], r["train_length"]
    fig, axes = plt.subplots(1, 3, figsize=(17.0, 5.6))
    colours = plt.get_cmap("viridis")
    nb = len(r["bases"])

    ax = axes[0]
    for i, b in enumerate(r["bases"]):
        pts = [(x, m, h or 0) for x, m, h in zip(lengths, b["mean"], b["half_width"]) if m is not None]
        if pts:
            xs, ms, hs = zip(*pts)
            ax.errorbar(xs, ms, yerr=[[min(h, 0.9 * m) for m, h in zip(ms, hs)], hs], marker="o", ms=3, capsize=2, lw=1.4, color=colours(i / max(1, nb - 1)),
                        label="base %d (%d seeds)" % (b["base"], len(b["seeds"])))
    log_length_axes(ax, lengths, L)
    ax.set_ylabel("validation perplexity (log scale; mean of seeds, bars: 95% interval,\n"
                  "the lower bar cut at 10% of the mean)")
    ax.set_title("RoPE retrained with each base, read plainly", fontsize=9)
    ax.legend(fontsize=7)

    ax = axes[1]
    for i, b in enumerate(r["bases"]):
        if b.get("turns"):
            ax.plot(range(len(b["turns"])), b["turns"], marker="o", ms=3, color=colours(i / max(1, nb - 1)),
                    label="base %d" % b["base"])
    ax.axhline(1.0, color="k", lw=0.8, ls="--")
    ax.text(0.2, 1.08, "one full turn over the training offsets", fontsize=7)
    ax.set_yscale("log")
    ax.set_xlabel("plane j (head width 32: 16 planes)")
    ax.set_ylabel("turns of plane j over offsets 0..%d (log scale)" % (L - 1))
    ax.set_title("The census: which planes the training window turns fully", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)

    ax = axes[2]
    maps = []
    for g in r["abf"]:
        if g["map"] not in maps:
            maps.append(g["map"])
    tab = plt.get_cmap("tab10").colors
    for g in r["abf"]:
        pts = [(x, m, h or 0) for x, m, h in zip(lengths, g["mean"], g["half_width"]) if m is not None]
        if not pts:
            continue
        xs, ms, hs = zip(*pts)
        hs = [[min(h, 0.9 * m) for m, h in zip(ms, hs)], hs]  # a log axis: the lower bar stops above 0
        plain = g["map"] == "none"
        c = "k" if plain else tab[maps.index(g["map"]) % len(tab)]
        ax.errorbar(xs, ms, yerr=hs, marker="o", ms=3, capsize=2, lw=1.2 if g["finetuned"] or plain else 0.9,
                    ls="-" if g["finetuned"] or plain else "--", color=c, alpha=1.0 if g["finetuned"] or plain else 0.6,
                    label=g["label"])
    log_length_axes(ax, lengths, L)
    ax.set_title("Base 10^4 models: each map read plainly (dashed),\nand after 300 fine-tuning steps at 512 (solid)",
                 fontsize=9)
    if r["abf"]:
        ax.legend(fontsize=6.5, ncol=2)
    fig.suptitle("RoPE's base in the char LM (trained at %d): retraining with another base, and changing it at "
                 "fine-tuning time (ABF)" % L, fontsize=10)
    return fig


def check_hybrids(r):
    """What hybrids and hybrids_passkey_depth read of results/hybrids/summary.json."""
    def task(t, name):
        if not isinstance(t, dict) or "lengths" not in t:
            return  # a task none of whose stacks has run yet: nothing to check
        Obj({"lengths": LENGTHS}).check(t, name)
        n, why = len(t["lengths"]), " (one per entry of lengths)"
        value = Num(lo=0, hi=1e300, null=True)
        reader = {"map": Str(), "seeds": List(Any(), nonempty=True), "mean": List(value, n, why),
                  "half_width": List(HALF_WIDTH, n, why)}
        if name == "passkey":
            reader["lo?"] = List(ACCURACY, n, why)
            reader["hi?"] = List(ACCURACY, n, why)
            Obj({"depths": List(Num(lo=0, hi=1), nonempty=True)}).check(t, name)
            reader["depth_grid"] = List(List(ACCURACY, len(t["depths"]), " (one per depth)", null=True), n, why)
        Obj({"lengths": LENGTHS, "train_length": Num(above=0, hi=2 ** 31),
             "configs": List(Obj({"depth": Num(lo=1, integer=True), "config": Str(), "name": Str(),
                                  "layers": List(Str(), nonempty=True),
                                  "readers": List(Obj(reader), null=True)}), nonempty=True)}).check(t, name)
    Obj({"charlm?": Any(), "passkey?": Any()}).check(r, "")
    for name in ("charlm", "passkey"):
        task(r.get(name), name)


HYBRID_COLOURS = {"rope": "k", "none": "#888888", "1to1": "tab:blue", "3to1": "tab:orange", "5to1": "tab:red",
                  "3to1-partial": "tab:green", "5to1-partial": "tab:purple"}


def fig_hybrids(r):
    """Rows: the char LM (perplexity) and passkey (accuracy); columns: the depths."""
    tasks = [t for t in ("charlm", "passkey") if isinstance(r.get(t), dict) and r[t].get("lengths")]
    if not tasks:
        return "no stack that has run yet"
    depths = sorted({c["depth"] for t in tasks for c in r[t]["configs"]})
    fig, axes = plt.subplots(len(tasks), len(depths), figsize=(6.2 * len(depths), 4.6 * len(tasks)), squeeze=False)
    for i, name in enumerate(tasks):
        t = r[name]
        lengths, L = t["lengths"], t["train_length"]
        for j, depth in enumerate(depths):
            ax = axes[i][j]
            missing = []
            for c in t["configs"]:
                if c["depth"] != depth:
                    continue
                if c["readers"] is None:
                    missing.append(c["name"])
                    continue
                for rd in c["readers"]:
                    if name == "passkey":  # a proportion: its logit-scale interval, or none (older summaries)
                        ends = interval_ends(rd) or [(None, None)] * len(lengths)
                        pts = [(x, m, e) for x, m, e in zip(lengths, rd["mean"], ends) if m is not None]
                    else:
                        pts = [(x, m, h or 0) for x, m, h in zip(lengths, rd["mean"], rd["half_width"]) if m is not None]
                    if not pts:
                        continue
                    xs, ms, hs = zip(*pts)
                    if name == "charlm":  # a log axis: the lower bar stops above 0
                        hs = [[min(h, 0.9 * m) for m, h in zip(ms, hs)], hs]
                    else:
                        hs = [[e[0] or 0 for e in hs], [e[1] or 0 for e in hs]]
                    plain = rd["map"] == "none"
                    ax.errorbar(xs, ms, yerr=hs, marker="o", ms=3, capsize=2, lw=1.4 if plain else 1.0,
                                ls="-" if plain else "--", alpha=1.0 if plain else 0.7,
                                color=HYBRID_COLOURS.get(c["config"], None),
                                label=c["name"] + ("" if plain else " + " + rd["map"]))
            if not ax.get_legend_handles_labels()[0]:  # nothing of this depth has run yet
                ax.text(0.5, 0.5, "not run yet (make hybrids)", ha="center", va="center", transform=ax.transAxes)
                ax.set_xticks([]), ax.set_yticks([])
                ax.set_title("%s, %d layers" % ("char LM" if name == "charlm" else "passkey", depth), fontsize=9)
                continue
            if name == "charlm":
                log_length_axes(ax, lengths, L, minor_labels=True)
                ax.set_ylabel("validation perplexity (log scale)")
            else:
                ax.set_xscale("log", base=2)
                ax.set_xticks(lengths)
                ax.set_xticklabels([str(n) for n in lengths])
                ax.set_ylim(-0.02, 1.05)
                ax.axvline(L, color="k", ls=":", lw=1)
                ax.set_xlabel("sequence length (tokens)")
                ax.set_ylabel("whole-passkey accuracy (mean over depths)")
                ax.grid(alpha=0.3)
            ax.set_title("%s, %d layers%s" % ("char LM" if name == "charlm" else "passkey", depth,
                                              "; not run yet: " + ", ".join(missing) if missing else ""), fontsize=9)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=6.5, ncol=2)
    fig.suptitle("Hybrid stacks: local RoPE (window = half the training length) with global NoPE at 1:1, 3:1, 5:1,\n"
                 "or a global partial-RoPE layer, against all-RoPE and all-NoPE of the same depth; mean of seeds,\n"
                 "bars: 95% interval (passkey: logit scale); dashed: the RoPE layers read through a map", fontsize=10)
    return fig


def fig_hybrids_passkey_depth(r):
    t = r.get("passkey")
    if not isinstance(t, dict) or not t.get("lengths"):
        return "no passkey stack that has run yet"
    rows = [{"scheme": c["name"], "map": rd["map"], "depth_grid": rd["depth_grid"],
             "title": "%d layers, %s\n%s" % (c["depth"], c["name"], "plain" if rd["map"] == "none" else "+ " + rd["map"])}
            for c in t["configs"] if c["readers"] for rd in c["readers"]]
    fig = fig_passkey_heatmaps({"rows": rows, "lengths": t["lengths"], "depths": t["depths"],
                                "train_length": t["train_length"]})
    n_rows = (len(rows) + 4) // 5
    fig.subplots_adjust(top=1 - 1.0 / (2.2 * n_rows + 0.9), hspace=0.8)  # room for the two-line titles
    return fig


def check_txl_memory(r):
    """What txl_memory reads of results/txl-memory/summary.json."""
    Obj({"lengths": LENGTHS}).check(r, "")
    n, why = len(r["lengths"]), " (one per entry of lengths)"
    Obj({"train_length": Num(above=0, hi=2 ** 31),
         "readers": List(Obj({"label": Str(), "name": Str(), "source": Str(), "seeds": List(Any(), nonempty=True),
                              "mean": List(Num(above=0, hi=1e300, null=True), n, why),
                              "half_width": List(HALF_WIDTH, n, why)}), nonempty=True)}).check(r, "")


def fig_txl_memory(r):
    lengths, L = r["lengths"], r["train_length"]
    fig, ax = plt.subplots(figsize=SIZE)
    tab = plt.get_cmap("tab10").colors
    for i, rd in enumerate(r["readers"]):
        pts = [(x, m, h or 0) for x, m, h in zip(lengths, rd["mean"], rd["half_width"]) if m is not None]
        if not pts:
            continue
        xs, ms, hs = zip(*pts)
        memory, segments = rd["source"] == "memory", "(memory" in rd["label"]
        ax.errorbar(xs, ms, yerr=[[min(h, 0.9 * m) for m, h in zip(ms, hs)], hs], marker="s" if segments else "o",
                    ms=5 if segments else 3, capsize=2, lw=2.2 if segments else 1.1, ls="-" if memory else "--",
                    color=tab[i % len(tab)], label="%s (%d seeds)" % (rd["name"], len(rd["seeds"])), zorder=1 if segments else 2)
    log_length_axes(ax, lengths, L, minor_labels=True)
    ax.set_ylabel("validation perplexity (log scale; bars: 95% interval,\nthe lower bar cut at 10% of the mean)")
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title("Transformer-XL with its segment memory (solid) against the memory-less models (dashed): the char LM "
                 "trained at %d, read longer" % L, fontsize=10)
    return fig


def check_attention(a):
    """What context_extension_attention reads of an `analyze attention` JSON."""
    frac = Num(lo=0, hi=1.000001)
    layer = Obj({"layer": Num(lo=0, integer=True), "rows": Num(lo=0), "entropy_ratio": Num(lo=0, hi=1.000001),
                 "sink_mass": frac, "beyond_training_mass": frac})
    Obj({"readings": List(Obj({"label": Str(), "map": Str(), "length": LENGTH,
                               "stats": Obj({"layers": List(layer, nonempty=True),
                                             "train_length": LENGTH})}), nonempty=True)}).check(a, "")


def fig_context_extension_attention(a):
    """Entropy over ln n, sink mass and mass beyond the training length against context, one line per reader
    (a checkpoint read plainly or through a map; plain RoPE black)."""
    readers = []
    for rd in a["readings"]:
        if rd["label"] not in readers:
            readers.append(rd["label"])
    fig, axes = plt.subplots(1, 3, figsize=(15.0, 5.0))
    colours = plt.get_cmap("tab20").colors
    keys = [("entropy_ratio", "entropy / ln(visible keys)"), ("sink_mass", "mass on the first token"),
            ("beyond_training_mass", "mass beyond the training length")]
    layers = max(len(rd["stats"]["layers"]) for rd in a["readings"])
    for i, label in enumerate(readers):
        rows = sorted((rd for rd in a["readings"] if rd["label"] == label), key=lambda rd: rd["length"])
        plain_rope = rows[0]["map"] == "none" and rows[0].get("scheme") in ("rope", None)
        for ax, (key, title) in zip(axes, keys):
            for layer, style in ((0, "-"), (1, "--")):
                pts = [(rd["length"], rd["stats"]["layers"][layer][key]) for rd in rows
                       if layer < len(rd["stats"]["layers"])]
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", ms=3, lw=1.2,
                            color="k" if plain_rope else colours[i % len(colours)],
                            label=label if layer == 0 else None)
            ax.set_title(title, fontsize=10)
    train = a["readings"][0]["stats"]["train_length"]
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.axvline(train, color="grey", ls=":", lw=1)
        ax.set_xlabel("context (log2 scale)")
        ax.grid(alpha=0.3)
    axes[2].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.suptitle("What attention does past the window (%s task, %d sequences per reading, trained at %d)%s"
                 % (a.get("task", "?"), a.get("sequences", 0), train,
                    ": solid block 1, dashed block 2" if layers > 1 else ": the query row"), fontsize=10)
    return fig


def fig_context_extension_tournament(r):
    rows = [row for row in r["rows"] if row["scheme"] == "rope"]
    if not rows:
        return "no RoPE row"
    fig, ax = plt.subplots(figsize=(12.0, 6.0))
    accuracy_axes(ax, r, rows, "Tournament RoPE heads read with every map (kappa = n / 32; no retraining)")
    return fig


def fig_passkey_training(runs):
    schemes = sorted(runs)
    cols = min(4, len(schemes))
    nrows = (len(schemes) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(max(8.0, 2.6 * cols + 0.6), max(4.0, 2.0 * nrows + 0.8)),
                             squeeze=False, sharey=True)
    for k, ax in enumerate(axes.flat):
        if k >= len(schemes):
            ax.axis("off")
            continue
        for seed, pts in sorted(runs[schemes[k]].items()):
            ax.plot([p[0] for p in pts], [max(p[1], 1e-5) for p in pts], lw=1, label="seed " + seed)
        ax.set_yscale("log")
        ax.set_title(schemes[k], fontsize=9)
        ax.tick_params(labelsize=6)
        ax.grid(alpha=0.3)
        if k == 0:
            ax.legend(fontsize=6)
    fig.suptitle("Passkey training: mean answer loss (nats) between log lines against step, every run", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig


FIGURES = {
    "rope_base": (lambda a: a.rope_base, check_rope_base, fig_rope_base),
    "hybrids": (lambda a: a.hybrids, check_hybrids, fig_hybrids),
    "hybrids_passkey_depth": (lambda a: a.hybrids, check_hybrids, fig_hybrids_passkey_depth),
    "txl_memory": (lambda a: a.txl_memory, check_txl_memory, fig_txl_memory),
    "tournament": (lambda a: a.tournament, check_cue_results, fig_tournament),
    "rescaling": (lambda a: a.tournament, check_cue_results, fig_rescaling),
    "rope_score_by_age": (lambda a: a.geometry, check_geometry, fig_rope_score),
    "wavelength_census": (lambda a: a.theory, check_theory, fig_census),
    "log_ruler": (lambda a: a.theory, check_theory, fig_log_ruler),
    "charlm_perplexity": (lambda a: a.charlm, check_charlm_perplexity, fig_charlm_perplexity),
    "charlm_position": (lambda a: a.charlm, check_charlm_position, fig_charlm_position),
    "filings_accuracy": (lambda a: a.filings, check_filings_results, fig_filings_accuracy),
    "filings_document": (lambda a: os.path.join(os.path.dirname(a.filings), "document.json"), check_document,
                         fig_filings_document),
    "filings_lab": (lambda a: os.path.join(os.path.dirname(a.filings), "lab_filing.json"), check_document,
                    fig_filings_document),
    "passkey_accuracy": (lambda a: a.passkey, check_passkey_results, fig_passkey_accuracy),
    "passkey_heatmaps": (lambda a: a.passkey, check_passkey_results, fig_passkey_heatmaps),
    "passkey_training": (lambda a: os.path.join(os.path.dirname(a.passkey), "runs", "passkey"), check_passkey_runs,
                         fig_passkey_training),
    "context_extension_perplexity": (lambda a: os.path.join(a.context_extension, "results.json"),
                                     check_charlm_perplexity, fig_context_extension_perplexity),
    "context_extension_passkey": (lambda a: os.path.join(a.context_extension, "passkey.json"), check_passkey_results,
                                  fig_passkey_heatmaps),
    "context_extension_tournament": (lambda a: os.path.join(a.context_extension, "tournament.json"),
                                     check_cue_results, fig_context_extension_tournament),
    "context_extension_attention": (lambda a: os.path.join(a.context_extension, "attention.json"), check_attention,
                                    fig_context_extension_attention),
    "context_extension_tournament_attention": (lambda a: os.path.join(a.context_extension, "tournament-attention.json"),
                                               check_attention, fig_context_extension_attention),
}
# how each figure's input file is made again
MAKER = {"tournament": "pe-bench run", "rescaling": "pe-bench run", "rope_score_by_age": "pe-bench analyze",
         "wavelength_census": "pe-bench analyze theory", "log_ruler": "pe-bench analyze theory",
         "charlm_perplexity": "pe-bench run", "charlm_position": "pe-bench run",
         "filings_accuracy": "pe-bench run", "filings_document": "pe-bench run", "filings_lab": "pe-bench run", "passkey_accuracy": "pe-bench run",
         "passkey_heatmaps": "pe-bench run", "passkey_training": "pe-bench run",
         "context_extension_perplexity": "make context-extension", "context_extension_passkey": "make context-extension",
         "context_extension_tournament": "make context-extension",
         "context_extension_attention": "make context-extension",
         "context_extension_tournament_attention": "make context-extension", "rope_base": "make rope-base",
         "hybrids": "make hybrids", "hybrids_passkey_depth": "make hybrids", "txl_memory": "make txl-memory"}


# ---- writing ----------------------------------------------------------------------------------------

def save(fig, out, name):
    """out/NAME.png and out/NAME.svg: both are rendered into temporary files in out (same file system)
    and renamed over the old ones only when both are whole. On any failure, an interruption included,
    the temporary files are removed and the old figures stay; a failed write raises OutputError."""
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        raise OutputError(out, e) from None
    if not getattr(fig, "pe_laid_out", False):  # a figure that placed its own axes keeps them
        fig.tight_layout()
    done, target = [], out
    try:
        for ext in ("png", "svg"):
            target = os.path.join(out, name + "." + ext)
            tmp = os.path.join(out, ".%s.tmp.%d.%s" % (name, os.getpid(), ext))
            done.append((tmp, target))
            with open(tmp, "wb") as f:
                fig.savefig(f, dpi=DPI, format=ext, metadata={"Date": None} if ext == "svg" else {"Software": None})
                f.flush()
                os.fsync(f.fileno())
        for tmp, target in done:
            os.replace(tmp, target)  # whole or absent
    except BaseException as e:
        for tmp, _ in done:
            try:
                os.remove(tmp)
            except OSError:
                pass
        if isinstance(e, OSError):
            raise OutputError(target, e) from None
        raise
    print("wrote %s/%s.png and .svg" % (out, name))


def say(path, what, fix):
    """The one line of an error, on stderr."""
    line = "plot.py: %s: %s; %s" % (path, what, fix)
    print(" ".join(line.split()), file=sys.stderr)  # one line, whatever an exception's text holds


def data_fix(name):
    return ("regenerate it with %s (the format: docs/results-format.md), or leave %s out with --only"
            % (MAKER[name], name))


def unexpected(e):
    text = " ".join(str(e).split())
    return "%s%s" % (type(e).__name__, ": " + text[:200] if text else "")


def one_line_warning(message, category, filename, lineno, line=None):
    return "plot.py: warning: %s\n" % " ".join(str(message).split())


def main(argv=None):
    """Draws the figures; returns the exit code (documented in the module's text)."""
    warnings.formatwarning = one_line_warning  # matplotlib's warnings, if any, as one line each
    p = argparse.ArgumentParser(description=__doc__.split("Exit codes:")[0],
                                epilog="Exit codes:" + __doc__.split("Exit codes:")[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tournament", default="results/tournament-10seeds/results.json")
    p.add_argument("--geometry", default=None, help="default: geometry.json beside --tournament")
    p.add_argument("--theory", default="results/theory.json")
    p.add_argument("--charlm", default="results/charlm/results.json")
    p.add_argument("--filings", default="results/filings/results.json")
    p.add_argument("--passkey", default="results/passkey/results.json")
    p.add_argument("--context-extension", default="results/context-extension",
                   help="the folder of make context-extension (results.json, passkey.json, tournament.json, attention.json)")
    p.add_argument("--rope-base", default="results/rope-base/summary.json",
                   help="scripts/rope_base_summary.py's summary.json (scripts/rope-base.sh)")
    p.add_argument("--hybrids", default="results/hybrids/summary.json",
                   help="scripts/hybrids_summary.py's summary.json (scripts/hybrids.sh)")
    p.add_argument("--txl-memory", default="results/txl-memory/summary.json",
                   help="scripts/txl_memory_summary.py's summary.json (scripts/txl-memory.sh)")
    p.add_argument("--out", default="results/figures")
    p.add_argument("--only", default=None, help="comma-separated figure names (default: every figure): " + ", ".join(NAMES))
    a = p.parse_args(argv)
    # an empty value is not "not given": `--only ''` once redrew every figure, `--out ''` would write into
    # the working directory; refuse it by name, as pe-bench does
    for dest, value in sorted(vars(a).items()):
        if value is not None and not value.strip():
            print("plot.py: --%s: an empty value; give one, or leave the option out for its default"
                  % dest.replace("_", "-"), file=sys.stderr)
            return EXIT_USAGE
    if a.geometry is None:
        a.geometry = os.path.join(os.path.dirname(a.tournament), "geometry.json")
    names = a.only.split(",") if a.only is not None else NAMES
    for n in names:
        if not n:
            print("plot.py: --only: an empty figure name in '%s' (known: %s)" % (a.only, ", ".join(NAMES)),
                  file=sys.stderr)
            return EXIT_USAGE
        if n not in FIGURES:
            print("plot.py: unknown figure '%s' (known: %s)" % (n, ", ".join(NAMES)), file=sys.stderr)
            return EXIT_USAGE
    plt.rcParams["svg.hashsalt"] = "pe-bench"  # the same SVG bytes from the same results
    # every input read and checked first: a bad one ends the run before anything is written
    loaded, plan = {}, []
    for n in names:
        where, check, draw = FIGURES[n]
        path = where(a)
        try:
            if path not in loaded:
                loaded[path] = load_passkey_runs(path) if n == "passkey_training" else load(path)
            data = loaded[path]
            if data is not ABSENT:
                check(data)
        except DataError as e:
            say(path, e, data_fix(n))
            return EXIT_DATA
        except Exception as e:  # a shape no check foresaw: still one line naming the file
            say(path, "cannot be read for figure %s (%s)" % (n, unexpected(e)), data_fix(n))
            return EXIT_DATA
        plan.append((n, path, data))
    for n, path, data in plan:
        if data is ABSENT:
            print("skipped %s: its input file %s is absent" % (n, path))
            continue
        before = set(plt.get_fignums())
        try:
            fig = FIGURES[n][2](data)
            if isinstance(fig, str):
                print("skipped %s: %s has %s" % (n, path, fig))
                continue
            save(fig, a.out, n)
        except OutputError as e:
            say(e.path, "cannot be written (%s)" % e.reason,
                "free some space, or choose another --out" if e.full else "choose another --out")
            return EXIT_OUTPUT
        except DataError as e:
            say(path, e, data_fix(n))
            return EXIT_DATA
        except Exception as e:  # the last resort: drawing failed on values no check foresaw
            say(path, "figure %s cannot be drawn from it (%s)" % (n, unexpected(e)), data_fix(n))
            return EXIT_DATA
        finally:  # every figure this one opened, drawn or not
            for num in set(plt.get_fignums()) - before:
                plt.close(num)
    return 0


def interrupted(signum, frame):
    raise KeyboardInterrupt


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, interrupted)  # SIGTERM too removes the temporary files in flight
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("plot.py: interrupted; no temporary file is left", file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)
