#!/usr/bin/env python3
"""Seeded fuzzer: mutates experiment files, --set values, CLI options and checkpoints (type changes,
extreme and non-finite numbers, missing and extra fields, huge sizes) and runs pe-bench on each.
Every run must end with exit 0 or a documented code (2, 3, 4, 5, 7) and, when it fails, exactly one
line on stderr -- never a signal, an internal error (70), a hang past the bound, or a file left behind.
Usage: tests/fuzz_inputs.py path/to/pe-bench [cases] [seed]"""
import json, os, random, subprocess, sys, tempfile, time

BIN, CASES, SEED = os.path.abspath(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 150, int(sys.argv[3]) if len(sys.argv) > 3 else 1
rng = random.Random(SEED)
tmp = tempfile.mkdtemp(prefix="pe-fuzz-")
EXTREME = [0, -1, 1, 2, 3, 7, 2**31, 2**31 - 1, -2**31, 2**32 + 1, 2**63 - 1, 10**18, 1e308, -1e308, 1e-320, 0.5, -0.0,
           1e39, "x", "", True, None, [], {}, [1, 2], "1e999", 1.5]
KEYS = ["steps", "batch_size", "lr", "train_length", "eval_lengths", "test_sequences", "d_model", "mark_prob", "alphabet",
        "seeds", "schemes", "base", "rotary_fraction", "learned_rows", "alibi_slopes", "log_every", "embed_init_std",
        "adam_beta1", "adam_eps", "out_dir", "runs_dir", "rescale", "t5_buckets", "shaw_clip", "name", "task"]
SMALL = {"steps": 2, "test_sequences": 16, "eval_lengths": [32, 64], "seeds": [0], "schemes": ["rope", "learned", "alibi"],
         "rescale": [], "reference": "", "analyze": False}

codes = {}

def run(args, what):
    out_dir = os.path.join(tmp, "case")
    os.makedirs(out_dir, exist_ok=True)
    t0 = time.time()
    try:
        # run inside the scratch folder, so that a mutated relative path (runs_dir=-1) lands there, never
        # in the source tree
        p = subprocess.run([BIN] + args, cwd=out_dir, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return f"hang past 60 s: {what}"
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    codes[p.returncode] = codes.get(p.returncode, 0) + 1
    if p.returncode < 0:
        return f"signal {-p.returncode}: {what}"
    if p.returncode not in (0, 2, 3, 4, 5, 7):
        return f"exit {p.returncode} ({lines[:1]}): {what}"
    if p.returncode != 0 and (len(lines) != 1 or not lines[0].startswith("pe-bench: error: ")):
        return f"{len(lines)} stderr lines for exit {p.returncode} ({lines[:2]}): {what}"
    for root, dirs, files in os.walk(tmp):
        for n in dirs + files:
            if ".tmp." in n or n.endswith(".lock"):
                return f"left behind {os.path.join(root, n)}: {what}"
    return None

def experiment_case(i):
    cfg = dict(SMALL, out_dir=os.path.join(tmp, "case", "out"), runs_dir=os.path.join(tmp, "case", "runs"))
    for _ in range(rng.randint(1, 3)):
        k = rng.choice(KEYS)
        if rng.random() < 0.15:
            cfg.pop(k, None)
        else:
            cfg[k] = rng.choice(EXTREME)
    if rng.random() < 0.1:
        cfg["no_such_key"] = 1
    path = os.path.join(tmp, f"exp{i}.json")
    text = json.dumps(cfg).replace('"1e999"', "1e999")
    open(path, "w").write(text)
    return ["run", path, "--quiet"], f"run {text}"

def set_case(i):
    k, v = rng.choice(KEYS), rng.choice(EXTREME)
    val = ",".join(map(str, v)) if isinstance(v, list) else ("" if v is None else str(v))
    args = ["train", "--scheme", rng.choice(["rope", "learned", "alibi", "t5", "none"]), "--steps", "2",
            "--runs-dir", os.path.join(tmp, "case", "runs"), "--quiet", "--set", f"{k}={val}"]
    return args, " ".join(args)

def option_case(i):
    opt, v = rng.choice(["--steps", "--seed", "--threads", "--lengths"]), rng.choice(EXTREME)
    if opt == "--lengths":
        return ["eval", "--checkpoint", CKPT, "--lengths", str(v), "--out", os.path.join(tmp, "case", "e.json"), "--quiet"], f"eval --lengths {v}"
    return ["train", "--scheme", "rope", opt, str(v), "--steps" if opt != "--steps" else "--quiet", "2" if opt != "--steps" else "--quiet",
            "--runs-dir", os.path.join(tmp, "case", "runs")], f"train {opt} {v}"

def checkpoint_case(i):
    c = json.load(open(CKPT))
    section = rng.choice(["model", "scheme", "training", "params", "top"])
    if section == "params":
        t = rng.choice(c["params"])
        kind = rng.random()
        if kind < 0.4 and t["data"]:
            t["data"][rng.randrange(len(t["data"]))] = rng.choice(EXTREME)
        elif kind < 0.7:
            t["shape"] = [rng.choice(EXTREME), rng.choice(EXTREME)]
        else:
            t.pop(rng.choice(["name", "shape", "data"]))
    elif section == "top":
        k = rng.choice(list(c.keys()))
        if rng.random() < 0.5: c.pop(k)
        else: c[k] = rng.choice(EXTREME)
    else:
        s = c[section]
        k = rng.choice(list(s.keys()) + ["extra_field"])
        if rng.random() < 0.2: s.pop(k, None)
        else: s[k] = rng.choice(EXTREME)
    path = os.path.join(tmp, f"cp{i}.json")
    json.dump(c, open(path, "w"))
    return ["eval", "--checkpoint", path, "--lengths", "32,64", "--out", os.path.join(tmp, "case", "e.json"), "--quiet"], f"checkpoint {section} mutation #{i}"

base = os.path.join(tmp, "base")
subprocess.run([BIN, "train", "--scheme", "learned", "--steps", "2", "--runs-dir", base, "--quiet"], check=True,
               capture_output=True)
CKPT = os.path.join(base, "cue", "learned", "seed0", "checkpoint.json")
kinds = [experiment_case, set_case, option_case, checkpoint_case]
t0, found = time.time(), []
for i in range(CASES):
    args, what = kinds[i % len(kinds)](i)
    problem = run(args, what)
    if problem:
        found.append(problem)
    subprocess.run(["rm", "-rf", os.path.join(tmp, "case")])
subprocess.run(["rm", "-rf", tmp])
for f in found:
    print("FUZZ:", f[:400])
tally = ", ".join(f"exit {c}: {n}" for c, n in sorted(codes.items()))
print(f"fuzz_inputs: {CASES} cases (seed {SEED}) in {time.time() - t0:.0f} s ({tally}), {len(found)} problems")
sys.exit(1 if found else 0)
