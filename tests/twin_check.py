#!/usr/bin/python3
"""The PyTorch twin (python/pebench_torch) against pe-bench on a fixed batch, for every scheme, both
models and several maps: `pe-bench export --check` writes the model and a check batch (4 sequences of
random tokens, pe-bench's float32 logits and its hand-written gradient of the mean loss); the twin,
in float32, must give the same logits and autograd the same gradient, each within
  logits:    max |twin - pe-bench| <= LOGIT_TOL * max |twin logit|
  gradients: max |twin - pe-bench| <= GRAD_TOL * max |twin gradient|, per tensor,
where "twin" is the twin in float64 on the same float32 weights (the exact answer to rounding):
pe-bench's float32 results are compared with it, and a gradient tensor passes also when pe-bench is
within GRAD_FLOAT_RATIO of PyTorch's own float32 autograd's error (a saturated head's small position
gradients cancel: both lose the same digits). The measured figures are printed. A check batch read under a
map with a Transformers rope_type is also read with the twin's own frequencies from the dictionary
(python/pebench_torch/rope_scaling.py), which must give the same logits.

The schemes are pe-bench's registry (`pe-bench schemes --json`: each scheme and its settings), not a
list kept here: first every scheme must have a twin (python/pebench_torch/schemes/, `@register(name)`),
and every setting pe-bench declares for it must be one the twin reads or says why it ignores (`reads`,
`ignores`), else one FAIL line names the scheme or setting and the check fails (the twin restates no
default: a hybrid layer's come from the export's scheme_defaults); then every scheme is checked on a char-LM
checkpoint (charlm-quick's committed one, or one trained here for a few steps when none is committed)
and on the tournament's cue head where it has one. Beside them: RoPE under the maps, passkey-quick
and filings, and settings no committed run uses (TUPE-R, partial RoPE, three-head ALiBi, hybrids of
every relative scheme) trained here for a few steps. Every scheme's char LM is also read under each batch
mode a causal block stack takes (MODES: `pe-bench export --check --coordinates`; packed documents with
positions reset or running on, PAD tokens left or right with positions over content or over storage, and
sequences at an offset): the twin reads the positions and documents of check.safetensors and the visibility
of check.json, and the loss is the mean over the scored (non-PAD) tokens; a line per batch mode gives the
worst agreement over the schemes. Every cue head (the tournament's, causal, and those trained here, causal or
made bidirectional) and the direction task's bidirectional heads (both rules) are also read at a query row of
each sequence's own (HEAD_MODE, `--coordinates query-rows`: rows T/2, 1, 3T/4, T/3, the twin's query_rows,
keys up to the row or on both sides); one line gives their worst agreement. The loss pe-bench states must be the twin's too (1e-5). --quick: the first
three cases (char LMs) and their batch modes, and one case trained here. Writes the agreement table (with the
batch mode of each row) to --table (Markdown).
Exit 0 when all agree, 1 otherwise, 77 (one line) without python3-torch.
Usage: tests/twin_check.py path/to/pe-bench [--table FILE] [--quick] [--only TEXT] (--only: the cases whose
label holds TEXT) [--pretend-extra-scheme NAME] (as if the registry also had NAME: shows the coverage failure)"""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import torch
except ImportError:
    print("twin_check: skipped: python3-torch is not installed (scripts/install-deps.sh installs it)")
    sys.exit(77)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from pebench_torch import CueHead, load_model, mean_loss  # noqa: E402
from pebench_torch.io import read_safetensors  # noqa: E402
from pebench_torch.schemes import registered, scheme_class  # noqa: E402

LOGIT_TOL, GRAD_TOL, GRAD_FLOAT_RATIO = 1e-5, 1e-4, 10
# A RoPE export read in the other pair layout (issue 50's fault 13) must move the logits by more than this
WRONG_LAYOUT_REL = 1e-2
# Measured gaps the rule above does not cover, each with its own bound on pe-bench's error (rel to the largest
# float64 gradient) at about twice the value measured, so that it fails if the gap grows. (label, mode, tensor):
# bound. Each is printed as KNOWN and listed in docs/interop.md with what would close it.
KNOWN_GAPS = {
    # TXL's u gradient at the direction task's query rows: pe-bench 1.1e-4 against PyTorch float32's 1.1e-5 on
    # a head whose position gradient cancels (pe-bench's double reading is within 8.7e-7 of the twin's logits);
    # pe-bench sums the per-pair terms of d(u) in float32, PyTorch in blocked products.
    ("direction nearest txl", "query-rows", "pos.txl_u"): 2.5e-4,
}
# The batch modes a causal char LM is checked under beside the default batch (pe-bench export --coordinates;
# the table in src/models/check_batch.cpp): bidirectional and prefix need a model made for them.
MODES = ["packed-reset", "packed-global", "pad-left-content", "pad-left-storage", "pad-right-content",
         "pad-right-storage", "offset"]
# Their length: two query blocks of pe-bench's dense attention (32 rows), with documents and PAD runs that
# start inside a block; a quarter of the pairs at the training length 128, where the twin's TXL and DeBERTa
# make a [B, T, T, d] age code per sequence (measured: 6 s a check batch at 128, over 100 s for all modes).
MODE_LENGTH = 64
# A head's batch mode: each sequence read at its own query row (T/2, 1, 3T/4, T/3; the twin's query_rows)
HEAD_MODE = "query-rows"
binary = sys.argv[1]
table_path = sys.argv[sys.argv.index("--table") + 1] if "--table" in sys.argv else None
torch.set_num_threads(1)  # ctest -j runs another test on the other core (CMakeLists.txt)
work = tempfile.mkdtemp(prefix="twin_check.")
atexit.register(shutil.rmtree, work, True)


def run(*args):
    subprocess.run([binary, *args], check=True, stdout=subprocess.DEVNULL)


def coverage(registry, twins):
    """The FAIL lines of the twin's coverage of pe-bench's registry ([{name, settings}], as `pe-bench
    schemes --json` prints it): a scheme without a twin, and a setting of a scheme its twin neither
    reads nor names in `ignores` (a setting added in C++ would otherwise be silently dropped)."""
    lines = []
    for entry in registry:
        name = entry["name"]
        if name not in twins:
            lines.append("twin_check: FAIL: scheme %r (`pe-bench schemes`) has no twin: add "
                         "python/pebench_torch/schemes/%s.py with a class under @register(%r)" % (name, name, name))
            continue
        twin = scheme_class(name)
        for key in entry.get("settings", {}):
            if key not in twin.reads and key not in twin.ignores:
                lines.append("twin_check: FAIL: scheme %r's setting %r is neither read nor ignored by its twin "
                             "(python/pebench_torch/schemes/%s.py: add it to reads, or to ignores with the reason)"
                             % (name, key, name))
    return lines


def trained(task, scheme, sets, steps=3):
    """A checkpoint of a setting no committed run has, trained here for a few steps."""
    tag = "-".join([task, scheme] + [s.replace("=", "_").replace(":", "_").replace(",", "_") for s in sets])
    runs = os.path.join(work, tag)
    extra = []
    for s in sets:
        extra += ["--set", s]
    run("train", "--task", task, "--scheme", scheme, "--steps", str(steps), "--runs-dir", runs, "-q", *extra)
    return os.path.join(runs, task, scheme, "seed0", "checkpoint.json")


def rel(a, b):
    scale = b.abs().max().item()
    return (a - b).abs().max().item() / (scale if scale > 0 else 1.0), (a - b).abs().max().item()


def coordinates(batch, want):
    """The forward's keywords of a check batch read under a batch mode (`export --coordinates`): positions
    and documents [B, T] from check.safetensors (whole numbers in F32, the same as check.json's lists), or a
    head's query rows [B] (query-rows: positions 0..T-1), and the visibility as check.json states it; {} for
    the default batch (positions 0..T-1, causal; a head read at the last row)."""
    if "coordinates" not in batch:
        return {}
    B, T = batch["batch"], batch["length"]
    at = {}
    shapes = {"query_rows": (B,)} if "query_rows" in batch else {"positions": (B, T), "documents": (B, T)}
    for name, shape in shapes.items():
        t = want[name]
        assert t.shape == shape and bool((t == t.round()).all()), name
        at[name] = t.long()
        assert at[name].reshape(-1).tolist() == batch[name], "%s: check.safetensors and check.json differ" % name
    vis = batch["coordinates"]["visibility"]
    at["visibility"] = tuple(vis) if isinstance(vis, list) else vis
    return at


def check(label, checkpoint, map_="none", length=0, mode="causal", layout="interleaved", wrong_read=False):
    """wrong_read: also read the export in the other pair layout (fault 13), which must move the logits."""
    out = os.path.join(work, "export")
    args = ["export", "--checkpoint", checkpoint, "--out", out, "--check", "--rope-layout", layout]
    if map_ != "none":
        args += ["--map", map_]
    if length:
        args += ["--length", str(length)]
    if mode != "causal":
        args += ["--coordinates", mode]
    run(*args)
    batch = json.load(open(os.path.join(out, "check.json")))
    want = read_safetensors(os.path.join(out, "check.safetensors"))
    reading = batch["reading"]
    B, T = batch["batch"], batch["length"]
    x = torch.tensor(batch["tokens"]).reshape(B, T)
    y = torch.tensor(batch["targets"])
    every = len(batch["logits_shape"]) == 3
    at = coordinates(batch, want)
    out_logits, grads = {}, {}
    for dtype in (torch.float32, torch.float64):  # the twin as it is, and in double: the exact answer
        # the batch's visibility says how the model was made; without one, the checkpoint does
        made = (at["visibility"] != "causal") if "visibility" in at else None
        model = load_model(out, plan=reading.get("frequency_plan"), bidirectional=made).to(dtype)
        kw = {"every_position": True} if every and isinstance(model, CueHead) else {}
        if isinstance(model, CueHead):  # a head reads with the visibility it was made for (made): its query rows
            kw.update({k: v for k, v in at.items() if k != "visibility"})
        else:
            kw.update(at)
        logits = model(x, **kw)
        if "documents" in at:  # the mean over the scored tokens (PAD ones are not), as pe-bench takes it
            loss = mean_loss(logits, y.reshape(B, T), at["documents"])
        else:
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        loss.backward()
        if dtype == torch.float64:
            loss64 = loss.item()
        out_logits[dtype] = logits.detach().double().reshape(want["logits"].shape)
        grads[dtype] = {n: (p.grad if p.grad is not None else torch.zeros_like(p)).double()
                        for n, p in model.state_tensors().items()}
    exact = out_logits[torch.float64]
    lr, la = rel(want["logits"].double(), exact)
    # per tensor: pe-bench's float32 gradient against the double one, beside PyTorch's own float32 autograd's
    worst = (-1.0, "", 0.0, 0.0)
    grad_ok = True
    for name, g64 in grads[torch.float64].items():
        r_pe, a_pe = rel(want["grad." + name].double(), g64)
        r_t32, _ = rel(grads[torch.float32][name], g64)
        within = r_pe <= GRAD_TOL or r_pe <= GRAD_FLOAT_RATIO * r_t32
        gap = KNOWN_GAPS.get((label, mode, name))
        if not within and gap is not None and r_pe <= gap:
            known.append("%s %s %s: gradient rel %.1e (torch f32 %.1e), within its known bound %.1e"
                         % (label, mode, name, r_pe, r_t32, gap))
            within = True
        grad_ok = grad_ok and within
        if r_pe > worst[0]:
            worst = (r_pe, name, a_pe, r_t32)
    worst_g, worst_name, worst_abs, worst_t32 = worst
    dloss = abs(loss64 - batch["loss"]) / max(abs(loss64), 1.0)
    ok = lr <= LOGIT_TOL and grad_ok and dloss <= LOGIT_TOL
    via = ""
    if "rope_scaling" in reading:
        fp = reading["frequency_plan"]
        plan = {"rope_scaling": reading["rope_scaling"], "original": reading["train_length"], "length": T}
        if "rope_theta" in reading:
            plan["rope_theta"] = reading["rope_theta"]
        twin2 = load_model(out, plan=plan, bidirectional=made).double()
        with torch.no_grad():
            r2, _ = rel(want["logits"].double(), twin2(x, **kw).reshape(want["logits"].shape))
        theta2 = [s.theta for s in twin2.schemes if s.frequencies][0]
        dtheta = max(abs(a - b) / b if b else abs(a) for a, b in zip(theta2.tolist(), fp["theta"]))
        ok = ok and r2 <= LOGIT_TOL and dtheta <= 1e-12
        via = "%.1e (theta %.0e)" % (r2, dtheta)
    if layout != "interleaved":
        label = "%s (%s)" % (label, layout)
    if wrong_read:  # the same export read in the other layout is fault 13: the logits must move
        other = "interleaved" if layout == "split-half" else "split-half"
        wrong = load_model(out, plan=reading.get("frequency_plan"), bidirectional=made, rope_layout=other).double()
        with torch.no_grad():
            r3, _ = rel(want["logits"].double(), wrong(x, **kw).reshape(want["logits"].shape))
        ok = ok and r3 > WRONG_LAYOUT_REL
        via = "read as %s: rel %.1e" % (other, r3)
    rows.append((label, map_ if map_ != "none" else "", mode, T, la, lr, worst_name, worst_abs, worst_g, worst_t32,
                 via, ok))
    print("twin_check: %-34s %-12s %-17s T %4d  logits %.1e (rel %.1e)  worst grad %-30s %.1e (rel %.1e; torch f32 "
          "%.1e) %s %s" % (label, map_, mode, T, la, lr, worst_name, worst_abs, worst_g, worst_t32,
                           via and ("" if wrong_read else "dict ") + via, "" if ok else "FAIL" + (" (loss %.1e)" % dloss) * (dloss > LOGIT_TOL)),
          flush=True)
    return ok


rows = []
known = []  # the KNOWN_GAPS met


# pe-bench's schemes and their settings, in its registry's order
registry = json.loads(subprocess.run([binary, "schemes", "--json"], check=True, capture_output=True,
                                     text=True).stdout)
if "--pretend-extra-scheme" in sys.argv:
    registry.append({"name": sys.argv[sys.argv.index("--pretend-extra-scheme") + 1], "settings": {}})
uncovered = coverage(registry, registered())
for line in uncovered:
    print(line, flush=True)
schemes = [e["name"] for e in registry if e["name"] in registered()]
charlm = "results/charlm-quick/runs/charlm"
cue = "results/tournament/runs/cue"
small = ["n_heads=4", "d_model=32", "train_length=32", "batch_size=4", "eval_lengths=32"]
cases, extra = [], []
# every scheme on a char LM: the committed checkpoint, else one trained here
for s in schemes:
    if os.path.exists("%s/%s/seed0/checkpoint.json" % (charlm, s)):
        cases.append(("charlm " + s, "%s/%s/seed0/checkpoint.json" % (charlm, s), "none", 0))
    else:
        extra.append(("charlm %s (trained here)" % s, ("charlm", s, small)))
# and each of them under every batch mode a causal block stack takes (pe-bench export --coordinates)
scheme_cases, per_scheme = list(cases), [label for label, _, _, _ in cases] + [label for label, _ in extra]
for m in ["pi", "ntk", "yarn", "selective", "yarn-hf", "llama3:factor=2:low_freq_factor=1:high_freq_factor=4",
          "dynamic", "longrope", "base=40000"]:
    cases.append(("charlm rope", charlm + "/rope/seed0/checkpoint.json", m, 256))
cases.append(("charlm rope fine-tuned pi", charlm + "/rope/seed0-ft-pi/checkpoint.json", "none", 256))
cases.append(("charlm hybrid", charlm + "/hybrid/seed0/checkpoint.json", "yarn", 256))
cases.append(("charlm hybrid fine-tuned selective", charlm + "/hybrid/seed0-ft-selective/checkpoint.json", "none", 256))
for s in schemes:  # the tournament's heads: every scheme a one-layer model takes
    if os.path.exists("%s/%s/seed0/checkpoint.json" % (cue, s)):
        cases.append(("cue " + s, "%s/%s/seed0/checkpoint.json" % (cue, s), "none", 0))
for m in ["pi", "ntk", "yarn", "yarn-hf", "llama3:factor=4:low_freq_factor=1:high_freq_factor=4", "dynamic"]:
    cases.append(("cue rope", cue + "/rope/seed0/checkpoint.json", m, 128))
cases.append(("cue t5 past training", cue + "/t5/seed0/checkpoint.json", "none", 256))
for s in schemes:  # the direction task's bidirectional heads (both rules), at the last row and at their query rows
    for rule in ["before", "nearest"]:
        if os.path.exists("results/direction/%s/runs/direction/%s/seed0/checkpoint.json" % (rule, s)):
            cases.append(("direction %s %s" % (rule, s), "results/direction/%s/runs/direction/%s/seed0/checkpoint.json"
                          % (rule, s), "none", 0))
for s in ["rope", "alibi", "none"]:
    cases.append(("passkey " + s, "results/passkey-quick/runs/passkey/%s/seed0/checkpoint.json" % s, "none", 0))
for s in ["rope", "alibi"]:
    cases.append(("filings " + s, "results/filings/runs/filings/%s/seed0/checkpoint.json" % s, "none", 0))
cases.append(("filings rope", "results/filings/runs/filings/rope/seed0/checkpoint.json", "yarn", 256))
extra += [
    ("charlm tupe-R (trained here)", ("charlm", "tupe", small + ["tupe_relative=true", "learned_rows=64"])),
    ("charlm rope partial 0.5", ("charlm", "rope", small + ["rotary_fraction=0.5"])),
    ("charlm alibi 3 heads", ("charlm", "alibi", ["n_heads=3", "d_model=24", "train_length=32", "batch_size=4",
                                                  "eval_lengths=32"])),
    ("charlm hybrid t5:16,shaw", ("charlm", "hybrid", small + ["hybrid_layers=t5:16,shaw"])),
    ("charlm hybrid txl,deberta:8", ("charlm", "hybrid", small + ["hybrid_layers=txl,deberta:8"])),
    ("charlm hybrid alibi,tupe", ("charlm", "hybrid", small + ["hybrid_layers=alibi,tupe"])),
    ("charlm hybrid rope:8,rope", ("charlm", "hybrid", small + ["hybrid_layers=rope:8,rope"])),
    ("charlm hybrid 4 layers, own bases, partial global",
     ("charlm", "hybrid", small + ["n_layers=4",
                                   "hybrid_layers=rope:8:base=500,rope:8,none,rope:rotary_fraction=0.25:base=1000000"])),
    ("cue tupe-R (trained here)", ("cue", "tupe", ["tupe_relative=true"])),
    ("charlm kerple power (trained here)", ("charlm", "kerple", small + ["kerple_kernel=power"])),
    ("cue kerple power (trained here)", ("cue", "kerple", ["kerple_kernel=power"])),
    ("cue shaw key-only (trained here)", ("cue", "shaw", ["shaw_values=false"])),
    ("charlm shaw key-only (trained here)", ("charlm", "shaw", small + ["shaw_values=false"])),
    ("charlm shaw per head (trained here)", ("charlm", "shaw", small + ["shaw_per_head=true"])),
    ("charlm deberta log buckets (trained here)", ("charlm", "deberta", small + ["deberta_log_buckets=true",
                                                                                  "deberta_clip=8"])),
    ("cue deberta log buckets (trained here)", ("cue", "deberta", ["deberta_log_buckets=true"])),
    ("charlm shaw per head key-only (trained here)", ("charlm", "shaw", small + ["shaw_per_head=true",
                                                                                "shaw_values=false"])),
    ("cue rope partial 0.25", ("cue", "rope", ["rotary_fraction=0.25"])),
    ("charlm sinusoidal concatenated x0.25", ("charlm", "sinusoidal",
                                              small + ["sinusoidal_layout=concatenated", "sinusoidal_scale=0.25"])),
    ("cue sinusoidal concatenated x3", ("cue", "sinusoidal", ["sinusoidal_layout=concatenated", "sinusoidal_scale=3"])),
]
# every one-layer scheme's cue head made bidirectional (visibility: its encoder form), and TUPE-R's
extra += [("cue %s bidirectional (trained here)" % e["name"], ("cue", e["name"], ["visibility=bidirectional"]))
          for e in registry if e["name"] in schemes and e.get("min_layers", 1) == 1]
extra.append(("cue tupe-R bidirectional (trained here)", ("cue", "tupe", ["tupe_relative=true",
                                                                          "visibility=bidirectional"])))
# the export in Transformers' split-half pair layout (pe-bench export --rope-layout split-half): the twin reads
# it in that layout to the same logits and gradients, and in pe-bench's interleaved layout to others (fault 13)
layout_cases = [("charlm rope", charlm + "/rope/seed0/checkpoint.json", "none", 0),
                ("charlm hybrid", charlm + "/hybrid/seed0/checkpoint.json", "yarn", 256),
                ("charlm xpos", charlm + "/xpos/seed0/checkpoint.json", "none", 0),
                ("cue rope", cue + "/rope/seed0/checkpoint.json", "none", 0),
                ("passkey rope", "results/passkey-quick/runs/passkey/rope/seed0/checkpoint.json", "none", 0)]
if "--quick" in sys.argv:
    cases = cases[:3]
    extra = extra[:1]
    layout_cases = layout_cases[:1]
if "--only" in sys.argv:
    only = sys.argv[sys.argv.index("--only") + 1]
    cases = [c for c in cases if only in c[0]]
    extra = [c for c in extra if only in c[0]]
    layout_cases = [c for c in layout_cases if only in c[0]]
mode_cases = [(label, cp, m, MODE_LENGTH, mode) for label, cp, m, n in scheme_cases if (label, cp, m, n) in cases
              for mode in MODES]
# every head read at the last row is read again at a row of each sequence's own (HEAD_MODE): the committed
# tournament heads (causal: the keys up to the row) and the direction heads (keys on both sides)
mode_cases += [(label, cp, m, n, HEAD_MODE) for label, cp, m, n in cases
               if label.split()[0] in ("cue", "direction") and m == "none" and n == 0]
failures = 0
for label, cp, m, n in cases:
    failures += not check(label, cp, m, n)
for label, cp, m, n, mode in mode_cases:
    failures += not check(label, cp, m, n, mode)
for label, cp, m, n in layout_cases:
    for layout in ["split-half", "interleaved"]:
        failures += not check(label, cp, m, n, "causal", layout, wrong_read=True)
for label, (task, scheme, sets) in extra:
    cp = trained(task, scheme, sets)
    failures += not check(label, cp, "none", 0)
    if label in per_scheme:  # a char LM no committed run has: its modes here (its table: the training length)
        for mode in MODES:
            failures += not check(label, cp, "none", 24 if mode == "offset" else 0, mode)
    if task == "cue":  # a head trained here (causal or made bidirectional) at its query rows too
        failures += not check(label, cp, "none", 0, HEAD_MODE)
    if "partial" in label:
        failures += not check(label, cp, "yarn-hf", 64)
        failures += not check(label, cp, "yarn", 64)
    if "own bases" in label:  # RoPE layers with their own bases beside a layer with none, split half (3 steps
        failures += not check(label, cp, "none", 0, "causal", "split-half")  # of training: a wrong read moves little)

if table_path:
    with open(table_path, "w") as f:
        f.write("| model / scheme | map | batch mode | T | logits max abs | logits rel | worst gradient tensor | max abs "
                "| rel | PyTorch f32 rel | logits via rope_scaling |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write("| %s | %s | %s | %d | %.1e | %.1e | %s | %.1e | %.1e | %.1e | %s |\n" % r[:11])
failures += len(uncovered)
for mode in ["causal"] + MODES:  # per batch mode, the worst over the char LMs' schemes
    got = [r for r in rows if r[0] in per_scheme and r[2] == mode and not r[1]]
    if got:
        print("twin_check: batch mode %-17s %2d char LMs: logits rel <= %.1e, worst gradient rel %.1e (%s)"
              % (mode, len(got), max(r[5] for r in got), max(r[8] for r in got),
                 max(got, key=lambda r: r[8])[0]), flush=True)
got = [r for r in rows if r[2] == HEAD_MODE]  # the heads at their query rows, causal and bidirectional
if got:
    print("twin_check: batch mode %-17s %2d heads: logits rel <= %.1e, worst gradient rel %.1e (%s; torch f32 %.1e)"
          % (HEAD_MODE, len(got), max(r[5] for r in got), max(r[8] for r in got),
             max(got, key=lambda r: r[8])[0], max(got, key=lambda r: r[8])[9]), flush=True)
for k in known:
    print("twin_check: KNOWN " + k, flush=True)
print("twin_check: %d schemes, %d coverage failures; %d cases, %d disagree (tolerances: logits %.0e, gradients %.0e of "
      "the largest or %dx PyTorch float32's own error)" % (len(registry), len(uncovered), len(rows),
                                                           failures - len(uncovered), LOGIT_TOL, GRAD_TOL,
                                                           GRAD_FLOAT_RATIO))
sys.exit(1 if failures else 0)
