#!/usr/bin/python3
"""scripts/plot.py on small results files: a 2-seed tournament and a 2-seed filings study trained
here in a few seconds (with the tournament's geometry and the filings document), the committed theory
and charlm-quick and passkey-quick results. Every figure must exist as PNG and SVG, be 1000 x 500
pixels (the passkey heatmaps and training curves: a panel per reader, at least 800 x 300) and not be
blank (its pixels vary).
Then plot.py on 150 malformed copies of those files (seeded mutations: wrong types, missing keys,
truncated JSON, NaN, empty lists, wrong nesting, lists of other lengths, ...): every run must end
with exit 0 (nothing on stderr) or exit 4 with exactly one stderr line naming the file, never a
traceback, and leave no temporary file. Most run in this process (plots.cli.main, every figure laid out
and drawn but not encoded to files, which takes most of the time); every 25th as a real process
that writes its files. Last, a full disk: a save that fails with ENOSPC (in this process, and for
real on a 32 KiB tmpfs where one can be mounted) must exit 5 with one line, leave no temporary file
and keep the old figures.
Usage: tests/plots.py path/to/pe-bench   (from the repository root; needs python3-matplotlib)"""
import contextlib
import copy
import errno
import importlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

import matplotlib.image

sys.dont_write_bytecode = True  # importing scripts/plots/ leaves no __pycache__ in the source tree
# figures whose size follows what they draw (a panel per reader or scheme), not the 1000 x 500 standard
FREE_SIZE = {"passkey_heatmaps", "passkey_training", "context_extension_perplexity", "context_extension_passkey",
             "context_extension_tournament", "context_extension_attention", "context_extension_tournament_attention",
             "rope_base", "hybrids", "hybrids_passkey_depth", "packing", "packing_charlm", "direction_accuracy",
             "direction_score_by_offset", "failures", "logn", "random_positions", "attention_diagnostics", "probes",
             "exercises"}
PLOT = "scripts/plot.py"  # the entry point of the package scripts/plots/
MUTATIONS, SEED, SUBPROCESS_EVERY = 150, 20261202, 25  # 150 files; every 25th (6) as a real process
EXIT_NO_MATPLOTLIB, EXIT_DATA, EXIT_OUTPUT = 3, 4, 5  # plot.py --help
LAST_RESORT = ("cannot be drawn from it", "cannot be read for figure")  # plot.py's catch-all wording


def load_plot():
    """The package's command line (plots.cli: main, save, FIGURES, plt), imported as plot.py imports it."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(PLOT)))
    return importlib.import_module("plots.cli")


# ---- malformed inputs -----------------------------------------------------------------------------

# each kind of file: its name in the case folder, how plot.py is pointed at it (f: the file), and the
# top-level keys its figures read (most mutations land below one of them; the rest anywhere)
KINDS = {
    "cue results": ("results.json", lambda f: ["--tournament", f, "--only", "tournament,rescaling"],
                    ["rows", "lengths", "reference", "experiment", "test_sequences"]),
    "geometry": ("geometry.json", lambda f: ["--geometry", f, "--only", "rope_score_by_age"], ["rope"]),
    "theory": ("theory.json", lambda f: ["--theory", f, "--only", "wavelength_census,log_ruler"],
               ["wavelength_census", "log_ruler"]),
    "charlm results": ("results.json", lambda f: ["--charlm", f, "--only", "charlm_perplexity,charlm_position"],
                       ["rows", "summary", "lengths", "train_length", "position_loss"]),
    "filings results": ("results.json", lambda f: ["--filings", f, "--only", "filings_accuracy"],
                        ["rows", "reference", "queries", "far", "far_queries", "first_company", "most_named_so_far"]),
    "document": ("document.json", lambda f: ["--filings", os.path.join(os.path.dirname(f), "results.json"),
                                             "--only", "filings_document"], ["document", "readers"]),
    "passkey results": ("results.json", lambda f: ["--passkey", f, "--only", "passkey_accuracy,passkey_heatmaps"],
                        ["rows", "lengths", "depths", "train_length", "passkey"]),
    "rope base": ("summary.json", lambda f: ["--rope-base", f, "--only", "rope_base"],
                  ["bases", "abf", "lengths", "train_length"]),
    "hybrids": ("summary.json", lambda f: ["--hybrids", f, "--only", "hybrids,hybrids_passkey_depth"],
                ["charlm", "passkey"]),
    "packing": ("summary.json", lambda f: ["--packing", f, "--only", "packing"],
                ["single", "packed", "lengths", "schemes", "policies", "missing"]),
    "packing charlm": ("summary-charlm.json", lambda f: ["--packing-charlm", f, "--only", "packing_charlm"],
                       ["cells", "position", "lengths", "schemes", "policies", "train_length"]),
    # the direction figures read a folder (before/ and nearest/): the malformed file is before/results.json
    # beside the committed nearest/, and plot.py names the folder
    "direction": ("before/results.json", lambda f: direction_case(f),
                  ["rows", "lengths", "geometry", "bag_reader_on_test_set", "distance_reader_on_test_set"],
                  lambda f: os.path.dirname(os.path.dirname(f))),
    "txl memory": ("summary.json", lambda f: ["--txl-memory", f, "--only", "txl_memory"],
                   ["readers", "lengths", "train_length"]),
    "failures": ("results.json", lambda f: ["--failures", f, "--only", "failures"],
                 ["faults", "lengths", "invariants", "seeds", "items"]),
    "schemes summary": ("summary.json", lambda f: ["--schemes-summary", f, "--only", "random_positions"],
                        ["random_positions", "random_positions_charlm"]),
    "attention diagnostics": ("summary.json", lambda f: ["--attention-diagnostics", f, "--only",
                                                         "attention_diagnostics"],
                              ["by_layer_type", "alibi_heads", "train_length"]),
    "exercises": ("13.1.json", lambda f: ["--exercises", os.path.dirname(f), "--only", "exercises"], ["answer"],
                  lambda f: os.path.dirname(f)),
    "attention": ("attention.json", lambda f: ["--context-extension", os.path.dirname(f), "--only",
                                               "context_extension_attention"], ["readings"]),
}
# values JSON cannot hold, written in as text after json.dumps
RAW = {"@NaN@": "NaN", "@Inf@": "Infinity", "@-Inf@": "-Infinity", "@1e999@": "1e999", "@digits@": "9" * 5000}
OTHER = ["x", "", 0, -1, 1.5, 1e308, -1e308, 2 ** 64, True, False, None, [], {}, [1, 2], ["a"], {"a": 1}, [[]]]


def pick(rng, doc, focus):
    """A random place in doc: (parent, key), walking down from the top (mostly into a key of focus)
    and stopping at random."""
    parent, key, node, depth = None, None, doc, 0
    while isinstance(node, (dict, list)) and node and (depth == 0 or rng.random() < 0.75):
        keys = list(node.keys()) if isinstance(node, dict) else list(range(len(node)))
        if depth == 0 and rng.random() < 0.75 and any(k in focus for k in keys):
            keys = [k for k in keys if k in focus]
        parent, key = node, rng.choice(keys)
        node, depth = node[key], depth + 1
    return parent, key


def mutate_tree(rng, doc, focus):
    """One structural change at a random place; returns what it did."""
    parent, key = pick(rng, doc, focus)
    if parent is None:
        return "nothing (top level empty)"
    v = parent[key]
    op = rng.choice(["type", "type", "delete", "delete", "nan", "huge", "empty", "nest", "unnest", "resize",
                     "negate", "stringify"])
    if op == "delete":
        del parent[key]
    elif op == "type":
        parent[key] = copy.deepcopy(rng.choice([o for o in OTHER if type(o) is not type(v)]))
    elif op == "nan":
        parent[key] = rng.choice(["@NaN@", "@Inf@", "@-Inf@"])
    elif op == "huge":
        parent[key] = rng.choice(["@1e999@", "@digits@", 1e308, -1e308, 2 ** 63, 1e-320])
    elif op == "empty":
        parent[key] = {} if isinstance(v, dict) else []
    elif op == "nest":
        parent[key] = [v] if rng.random() < 0.5 else {"value": v}
    elif op == "unnest":  # a container replaced by its first element (a scalar nested twice instead)
        if isinstance(v, dict):
            parent[key] = next(iter(v.values()), None)
        elif isinstance(v, list):
            parent[key] = v[0] if v else None
        else:
            parent[key] = [[v]]
    elif op == "resize":  # a list one shorter or one longer
        if isinstance(v, list) and v and rng.random() < 0.5:
            v.pop()
        elif isinstance(v, list) and v:
            v.append(copy.deepcopy(v[-1]))
        else:
            parent[key] = [v, v]
    elif op == "negate":
        parent[key] = -v if isinstance(v, (int, float)) and not isinstance(v, bool) else 0
    else:
        parent[key] = json.dumps(v)
    return "%s at %s" % (op, key)


def mutated(rng, doc, focus):
    """The bytes of a malformed copy of doc, and what was done to it."""
    r = rng.random()
    if r < 0.12:  # cut short
        text = json.dumps(doc)
        cut = rng.randrange(len(text))
        return text[:cut].encode(), "truncated at byte %d" % cut
    if r < 0.18:
        return rng.choice([b"", b"null", b"[]", b"{}", b"42", b'"x"', b"[" * 100000, b"\xff\xfe{}",
                           json.dumps(doc).encode()[:50] + b"\xc3\x28" + json.dumps(doc).encode()[50:],
                           b"\xef\xbb\xbf" + json.dumps(doc).encode()]), "whole file replaced"
    doc = copy.deepcopy(doc)
    what = [mutate_tree(rng, doc, focus) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
    text = json.dumps(doc)
    for k, v in RAW.items():
        text = text.replace(json.dumps(k), v)
    return text.encode(), ", ".join(what)


def run_inprocess(plot, argv):
    """plot.main(argv) here: (exit code, stdout, stderr); an escaping exception is a traceback."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("always")  # every warning printed, as a fresh process would print it
        try:
            code = plot.main(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except BaseException:
            err.write(traceback.format_exc())
            code = "an exception"
    return code, out.getvalue(), err.getvalue()


def run_process(argv):
    p = subprocess.run(["/usr/bin/python3", PLOT] + argv, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def direction_case(before):
    """plot.py's arguments for a direction folder whose before/results.json is `before`: the committed
    nearest/results.json copied beside it."""
    case = os.path.dirname(os.path.dirname(before))
    os.makedirs(os.path.join(case, "nearest"), exist_ok=True)
    shutil.copy("results/direction/nearest/results.json", os.path.join(case, "nearest", "results.json"))
    return ["--direction", case, "--only", "direction_accuracy,direction_score_by_offset"]


def judge(code, stdout, stderr, path, out):
    """What is wrong with one run on a malformed file, or None."""
    lines = [l for l in stderr.splitlines() if l.strip()]
    if "Traceback" in stderr or "Traceback" in stdout:
        return "a traceback: %s" % stderr.strip().splitlines()[-1:]
    if code not in (0, EXIT_DATA):
        return "exit %s (%s)" % (code, lines[:2])
    if code == 0 and lines:
        return "exit 0 but stderr says %s" % lines[:2]
    if code != 0 and (len(lines) != 1 or not lines[0].startswith("plot.py: %s: " % path) or "; " not in lines[0]):
        return "exit %d with %d stderr lines, expected one naming the file: %s" % (code, len(lines), lines[:3])
    left = [f for f in os.listdir(out) if ".tmp." in f] if os.path.isdir(out) else []
    if left:
        return "temporary files left: %s" % left
    return None


def draw_only(fig, out, name):
    """plots.cli.save without the files, for the runs in this process: the layout and every artist drawn
    (where values could still break), not the PNG and SVG encoding (the real processes write them)."""
    if not getattr(fig, "pe_laid_out", False):  # as plot.save: a figure that placed its own axes keeps them
        fig.tight_layout()
    fig.canvas.draw()


def malformed_inputs(sources, tmp, plot, count=MUTATIONS, seed=SEED, every=SUBPROCESS_EVERY):
    """plot.py on count malformed copies of sources ({kind: path}); the problems found."""
    rng = random.Random(seed)
    docs = {kind: json.load(open(path)) for kind, path in sources.items()}
    kinds = sorted(docs)
    bad, codes, last_resort, processes, t0 = [], {}, [], 0, time.time()
    save, plot.save = plot.save, draw_only
    try:
        for i in range(count):
            kind = kinds[i % len(kinds)]
            name, args, focus = KINDS[kind][:3]
            named = KINDS[kind][3] if len(KINDS[kind]) > 3 else (lambda f: f)  # what plot.py names
            data, what = mutated(rng, docs[kind], focus)
            case = os.path.join(tmp, "malformed")
            shutil.rmtree(case, ignore_errors=True)
            os.makedirs(case)
            path = os.path.join(case, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
            out = os.path.join(case, "figures")
            argv = args(path) + ["--out", out]
            if i % every == 0:
                code, stdout, stderr = run_process(argv)
                processes += 1
            else:
                code, stdout, stderr = run_inprocess(plot, argv)
            codes[code] = codes.get(code, 0) + 1
            problem = judge(code, stdout, stderr, named(path), out)
            if problem:
                bad.append("malformed %s #%d (%s): %s" % (kind, i, what, problem))
            elif code != 0 and any(s in stderr for s in LAST_RESORT):
                last_resort.append("malformed %s #%d (%s): %s" % (kind, i, what, stderr.strip()))
    finally:
        plot.save = save
    # the common shapes are checked, not caught: the last resort must not be what answers them
    bad += ["caught, not checked: " + s for s in last_resort]
    tally = ", ".join("exit %s: %d" % (c, n) for c, n in sorted(codes.items(), key=str))
    print("plots: %d malformed files (seed %d, %d as processes) in %.0f s: %s; %d problems"
          % (count, seed, processes, time.time() - t0, tally, len(bad)))
    return bad


def last_resort(plot, results, tmp):
    """What no check foresaw -- a check or a drawing that raises -- still ends in one line naming the
    file and exit 4, and closes the figure it had opened."""
    bad = []
    for stage in (1, 2):  # the check, the drawing
        entry = plot.FIGURES["tournament"]

        def broken(data):
            if stage == 2:
                plot.plt.subplots()
            raise ValueError("an unforeseen shape\nover two lines")

        plot.FIGURES["tournament"] = entry.replaced(check=broken) if stage == 1 else entry.replaced(draw=broken)
        figures = len(plot.plt.get_fignums())
        try:
            code, stdout, stderr = run_inprocess(plot, ["--tournament", results, "--only", "tournament",
                                                        "--out", os.path.join(tmp, "last-resort")])
        finally:
            plot.FIGURES["tournament"] = entry
        lines = stderr.splitlines()
        if code != EXIT_DATA or len(lines) != 1 or not lines[0].startswith("plot.py: %s: " % results) \
                or "ValueError: an unforeseen shape over two lines" not in lines[0]:
            bad.append("last resort (stage %d): exit %s, stderr %s" % (stage, code, lines[:3]))
        if len(plot.plt.get_fignums()) != figures:
            bad.append("last resort (stage %d): a figure left open" % stage)
    if not bad:
        print("plots: an unforeseen failure in a check or a drawing: exit 4, one line naming the file")
    return bad


# ---- a full disk ----------------------------------------------------------------------------------

def full_disk(plot, results, tmp):
    """A save that fails with ENOSPC halfway through the SVG: exit 5, one line naming the file, no
    temporary left, and the old PNG and SVG untouched (both are renamed only when both are whole)."""
    import matplotlib.figure
    out = os.path.join(tmp, "full")
    os.makedirs(out)
    for ext in ("png", "svg"):
        with open(os.path.join(out, "tournament." + ext), "wb") as f:
            f.write(b"old " + ext.encode())
    real = matplotlib.figure.Figure.savefig

    def savefig(self, fname, *args, **kwargs):
        if kwargs.get("format") == "svg":  # the disk fills halfway through the SVG
            if isinstance(fname, (str, os.PathLike)):
                with open(fname, "wb") as f:
                    f.write(b"<svg partial")
            else:
                fname.write(b"<svg partial")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(self, fname, *args, **kwargs)

    matplotlib.figure.Figure.savefig = savefig
    try:
        code, stdout, stderr = run_inprocess(plot, ["--tournament", results, "--only", "tournament", "--out", out])
    finally:
        matplotlib.figure.Figure.savefig = real
    bad, lines = [], stderr.splitlines()
    if code != EXIT_OUTPUT or len(lines) != 1 or "Traceback" in stderr:
        bad.append("full disk: exit %s, stderr %s (expected exit 5 and one line)" % (code, lines[:3]))
    elif not lines[0].startswith("plot.py: %s: " % os.path.join(out, "tournament.svg")) \
            or os.strerror(errno.ENOSPC) not in lines[0]:
        bad.append("full disk: the line does not name the file and the reason: %s" % lines[0])
    left = sorted(set(os.listdir(out)) - {"tournament.png", "tournament.svg"})
    if left:
        bad.append("full disk: files left: %s" % left)
    for ext in ("png", "svg"):
        with open(os.path.join(out, "tournament." + ext), "rb") as f:
            kept = f.read() == b"old " + ext.encode()
        if not kept:
            bad.append("full disk: the old tournament.%s was replaced" % ext)
    if not bad:
        print("plots: a full disk exits 5 with one line, no temporary left, the old figures kept")
    return bad + real_full_disk(results, tmp)


def real_full_disk(results, tmp):
    """The same through a real process on a real full disk: a 32 KiB tmpfs, mounted in a mount
    namespace of its own (gone with the process); skipped where none can be mounted (not root)."""
    mnt = os.path.join(tmp, "tmpfs")
    os.makedirs(mnt)
    script = ('mount -t tmpfs -o size=32k pe-bench-plots "$1" 2>/dev/null || exit 77\n'
              '/usr/bin/python3 "$3" --tournament "$2" --only tournament --out "$1/figures" >/dev/null\n'
              'echo "exit $?" >&2\nls -A "$1/figures" >&2\n')
    try:
        p = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", mnt, results,
                            PLOT], capture_output=True, text=True, timeout=120)
    except OSError:
        p = None
    if p is None or p.returncode != 0:
        print("plots: no tmpfs can be mounted here; the real full disk is left out")
        return []
    lines = p.stderr.splitlines()
    if lines[1:2] != ["exit %d" % EXIT_OUTPUT] or len(lines) != 2 or "Traceback" in p.stderr \
            or not lines[0].startswith("plot.py: %s/figures/tournament." % mnt) or "No space left" not in lines[0]:
        return ["real full disk: expected one line naming the figure, exit 5 and no file left; got %s" % lines[:6]]
    print("plots: a real full disk (32 KiB tmpfs) too: exit 5, one line, no file left")
    return []


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([binary, "run", "experiments/tournament.json", "--set", "steps=150", "--set", "seeds=0,1",
                        "--set", "test_sequences=300", "--set", "runs_dir=%s/runs" % tmp, "--set", "out_dir=%s" % tmp,
                        "--quiet"], check=True, stdout=subprocess.DEVNULL)
        filings = os.path.join(tmp, "filings")
        subprocess.run([binary, "run", "experiments/filings.json", "--set", "steps=100", "--set", "seeds=0,1",
                        "--set", "schemes=rope,alibi", "--set", "horizon_cue_runs=", "--set",
                        "runs_dir=%s/runs" % filings, "--set", "out_dir=%s" % filings, "--quiet"], check=True,
                       stdout=subprocess.DEVNULL)
        out = os.path.join(tmp, "figures")
        subprocess.run(["/usr/bin/python3", PLOT, "--tournament", tmp + "/results.json",
                        "--theory", "results/theory.json", "--charlm", "results/charlm-quick/results.json",
                        "--filings", filings + "/results.json", "--passkey", "results/passkey-quick/results.json",
                        "--context-extension", "results/context-extension", "--out", out], check=True,
                       stdout=subprocess.DEVNULL)
        plot = load_plot()
        names = plot.NAMES  # the package's one table of figures
        bad = ["FREE_SIZE names an unknown figure: %s" % n for n in sorted(FREE_SIZE - set(names))]
        for n in names:
            png, svg = os.path.join(out, n + ".png"), os.path.join(out, n + ".svg")
            if not os.path.exists(png) or not os.path.exists(svg):
                bad.append("%s: missing" % n)
                continue
            img = matplotlib.image.imread(png)
            h, w = img.shape[:2]
            if (w, h) != (1000, 500) and not (n in FREE_SIZE and w >= 800 and h >= 300):
                bad.append("%s: %d x %d pixels, expected 1000 x 500" % (n, w, h))
            if float(img[..., :3].std()) < 0.01:
                bad.append("%s: blank (pixel std %.4f)" % (n, float(img[..., :3].std())))
            if os.path.getsize(svg) < 2000:
                bad.append("%s: the SVG is only %d bytes" % (n, os.path.getsize(svg)))
        leftovers = [f for f in os.listdir(out) if ".tmp." in f]
        if leftovers:
            bad.append("temporary files left: %s" % leftovers)
        if not bad:
            print("plots: %d figures, PNG and SVG, sized, none blank" % len(names))
        help_text = subprocess.run(["/usr/bin/python3", PLOT, "--help"], capture_output=True, text=True).stdout
        for code in (EXIT_NO_MATPLOTLIB, EXIT_DATA, EXIT_OUTPUT):
            if "\n  %d " % code not in help_text:
                bad.append("--help does not document exit code %d" % code)
        # a python3 without matplotlib (here: Debian's without its site packages) is told so in one line
        p = subprocess.run(["/usr/bin/python3", "-S", PLOT, "--out", out], capture_output=True, text=True)
        if p.returncode != EXIT_NO_MATPLOTLIB or len(p.stderr.splitlines()) != 1 \
                or "python3-matplotlib" not in p.stderr:
            bad.append("without matplotlib: exit %d, stderr %s" % (p.returncode, p.stderr.strip()[:300]))
        bad += malformed_inputs({"cue results": tmp + "/results.json", "geometry": tmp + "/geometry.json",
                                 "theory": "results/theory.json", "charlm results": "results/charlm-quick/results.json",
                                 "filings results": filings + "/results.json", "document": filings + "/document.json",
                                 "passkey results": "results/passkey-quick/results.json",
                                 "attention": "results/context-extension/attention.json",
                                 "rope base": "results/rope-base/summary.json",
                                 "hybrids": "results/hybrids/summary.json",
                                 "packing": "results/packing/summary.json",
                                 "packing charlm": "results/packing/summary-charlm.json",
                                 "direction": "results/direction/before/results.json",
                                 "txl memory": "results/txl-memory/summary.json",
                                 "failures": "results/failures-quick/results.json",
                                 "exercises": "results/exercises/13.1.json"},
                                tmp, plot)
        # files no results file can be: a key twice, a directory, a device without end (read to a bound)
        with open(os.path.join(tmp, "dup.json"), "w") as f:
            f.write('{"task": "cue", "task": "cue"}')
        for path, text in ((os.path.join(tmp, "dup.json"), "with the key 'task' twice"), (tmp, "a directory, not a file"),
                           ("/dev/zero", "holds more than 1024 MiB")):
            code, stdout, stderr = run_process(["--tournament", path, "--only", "tournament", "--out", out])
            problem = judge(code, stdout, stderr, path, out)
            if problem or code != EXIT_DATA or text not in stderr:
                bad.append("--tournament %s: exit %s, %s" % (path, code, problem or stderr.strip()[:200]))
        bad += last_resort(plot, tmp + "/results.json", tmp)
        bad += full_disk(plot, tmp + "/results.json", tmp)
        for b in bad:
            print("FAIL:", b[:600])
        if bad:
            sys.exit(1)


if __name__ == "__main__":
    main()
