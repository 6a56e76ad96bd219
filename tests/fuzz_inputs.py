#!/usr/bin/env python3
"""Seeded fuzzer: mutates experiment files, --set values, CLI options and checkpoints (type changes,
extreme and non-finite numbers, missing and extra fields, huge sizes) and runs pe-bench on each.
Every run must end with exit 0 or a documented code (2, 3, 4, 5, 7) and, when it fails, exactly one
line on stderr -- never a signal, an internal error (70), a hang past the bound, or a file left behind.
It never writes into the source tree: every pe-bench runs in a fresh scratch folder (its cwd, where
relative paths resolve; experiments/ and data/ are read-only copies there), every path it is given
(options, --set, experiment keys) that would resolve outside the scratch area -- into the repository
or anywhere else -- is rewritten into the case's folder, and the run fails if the repository's
`git status --porcelain` (untracked and ignored files listed one by one; the build trees left out;
outside a git checkout, every file's size and mtime) changed while it ran.
Usage: tests/fuzz_inputs.py path/to/pe-bench [cases] [seed]"""
import json, os, random, shutil, stat, subprocess, sys, tempfile, time

BIN, CASES, SEED = os.path.abspath(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 150, int(sys.argv[3]) if len(sys.argv) > 3 else 1
REPO = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
rng = random.Random(SEED)

def inside(path, root):
    return os.path.commonpath([path, root]) == root

tmp = os.path.realpath(tempfile.mkdtemp(prefix="pe-fuzz-"))
if inside(tmp, REPO):  # TMPDIR inside the repository: the scratch area goes to /tmp instead
    os.rmdir(tmp)
    tmp = os.path.realpath(tempfile.mkdtemp(prefix="pe-fuzz-", dir="/tmp"))
CASE = os.path.join(tmp, "case")  # the cwd of every pe-bench run, made anew for each

# ---- the source tree must come out as it went in ----------------------------------------------------

def build_trees():
    """Folders of the repository that builds and ctest write while the fuzzer runs (left out of the check)."""
    trees = {"build"} | {n for n in os.listdir(REPO) if n.startswith("build-")}
    if inside(os.path.realpath(BIN), REPO):
        trees.add(os.path.relpath(os.path.dirname(os.path.realpath(BIN)), REPO).split(os.sep)[0])
    return trees

def tree_state():
    """The repository's `git status --porcelain`, listing untracked and ignored files one by one (so a
    run directory under the ignored results/runs/ counts too); outside a git checkout, the size and
    mtime of every file. The build trees are left out (builds and ctest write there meanwhile)."""
    skip = build_trees()
    if os.path.exists(os.path.join(REPO, ".git")):
        try:
            p = subprocess.run(["git", "--no-optional-locks", "-C", REPO, "status", "--porcelain",
                                "--untracked-files=all", "--ignored"], capture_output=True, text=True)
        except OSError:  # no git here
            p = None
        if p and p.returncode == 0:
            return {l: None for l in p.stdout.splitlines() if l[3:].strip('"').split("/")[0] not in skip}
    files = {}
    for root, dirs, names in os.walk(REPO):
        if root == REPO:
            dirs[:] = [d for d in dirs if d not in skip]
        for n in names:
            try:
                st = os.lstat(os.path.join(root, n))
            except OSError:
                continue
            files[os.path.relpath(os.path.join(root, n), REPO)] = (st.st_size, st.st_mtime_ns)
    return files

def tree_changes(before, after):
    return ([f"now {n}" for n in sorted(set(after) - set(before))] + [f"no longer {n}" for n in sorted(set(before) - set(after))]
            + [f"changed {n}" for n in sorted(set(before) & set(after)) if before[n] != after[n]])

# ---- every path pe-bench is given stays in the scratch area -----------------------------------------

PATH_OPTIONS = ("--runs-dir", "--out", "--checkpoint", "--corpus", "--experiment", "--markdown", "--reference")
PATH_KEYS = ("runs_dir", "out_dir", "corpus", "reference", "horizon_cue_runs")
rewritten = []

def confine(value):
    """value as pe-bench resolves it from its cwd (CASE): kept when it stays inside the scratch area,
    else (the repository, /, a parent folder, a symlink out) a folder inside CASE instead."""
    if not isinstance(value, str) or not value:
        return value  # not a path: pe-bench refuses the type or the empty string
    try:
        if inside(os.path.realpath(os.path.join(CASE, value)), tmp):
            return value
    except ValueError:  # a NUL byte
        pass
    rewritten.append(value)
    return os.path.join(CASE, "outside-%d" % len(rewritten))

def confine_args(args):
    args = list(args)
    for i, a in enumerate(args):
        if i > 0 and args[i - 1] in PATH_OPTIONS:
            args[i] = confine(a)
        elif i > 0 and args[i - 1] == "--set" and a.split("=", 1)[0] in PATH_KEYS and "=" in a:
            k, v = a.split("=", 1)
            args[i] = k + "=" + confine(v)
        elif a.startswith(tuple(o + "=" for o in PATH_OPTIONS)):
            o, v = a.split("=", 1)
            args[i] = o + "=" + confine(v)
    files = {"run": 1, "compare": 1, "diff": 2}.get(args[0] if args else "", 0)  # positional files
    for i in range(1, min(1 + files, len(args))):
        if not args[i].startswith("-"):
            args[i] = confine(args[i])
    return args

def fresh_case():
    """An empty CASE holding only links to the read-only copies of experiments/ and data/."""
    shutil.rmtree(CASE, ignore_errors=True)
    os.makedirs(CASE)
    for d in ("experiments", "data"):
        os.symlink(os.path.join(tmp, "ro", d), os.path.join(CASE, d))

def read_only_copies():
    for d in ("experiments", "data"):
        if os.path.isdir(os.path.join(REPO, d)):
            shutil.copytree(os.path.join(REPO, d), os.path.join(tmp, "ro", d))
        else:
            os.makedirs(os.path.join(tmp, "ro", d))
    for root, dirs, names in os.walk(os.path.join(tmp, "ro"), topdown=False):
        for n in names + dirs + [""]:
            p = os.path.join(root, n)
            os.chmod(p, os.stat(p).st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))

def remove_scratch():
    for root, dirs, _ in os.walk(tmp):
        for d in dirs:
            p = os.path.join(root, d)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | stat.S_IWUSR)
    shutil.rmtree(tmp, ignore_errors=True)

def guard_self_check():
    """The guard refuses what the fuzzer's values do not yet produce: paths into the repository."""
    fresh_case()
    leaks = [v for v in (REPO, os.path.join(REPO, "results"), os.path.relpath(os.path.join(REPO, "results"), CASE),
                         "../" * 64 + REPO.lstrip("/"), "/", "../..") if confine(v) == v]
    kept = [v for v in ("x", "-1", "results", "data/timemachine.txt", os.path.join(CASE, "out")) if confine(v) != v]
    del rewritten[:]
    if leaks or kept:
        sys.exit(f"fuzz_inputs: the path guard is wrong: kept {leaks}, rewrote {kept}")
EXTREME = [0, -1, 1, 2, 3, 7, 2**31, 2**31 - 1, -2**31, 2**32 + 1, 2**63 - 1, 10**18, 1e308, -1e308, 1e-320, 0.5, -0.0,
           1e39, "x", "", True, None, [], {}, [1, 2], "1e999", 1.5]
KEYS = ["steps", "batch_size", "lr", "train_length", "eval_lengths", "test_sequences", "d_model", "mark_prob", "alphabet",
        "seeds", "schemes", "base", "rotary_fraction", "learned_rows", "alibi_slopes", "log_every", "embed_init_std",
        "adam_beta1", "adam_eps", "out_dir", "runs_dir", "maps", "t5_buckets", "shaw_clip", "name", "task"]
SMALL = {"steps": 2, "test_sequences": 16, "eval_lengths": [32, 64], "seeds": [0], "schemes": ["rope", "learned", "alibi"],
         "maps": [], "reference": "", "analyze": False}

codes = {}

def run(args, what):
    t0 = time.time()
    try:
        # run inside the case's fresh scratch folder, so that a mutated relative path (runs_dir=-1) lands
        # there, and with every path confined to the scratch area: never in the source tree
        p = subprocess.run([BIN] + confine_args(args), cwd=CASE, capture_output=True, text=True, timeout=60)
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
    for k in PATH_KEYS:
        if k in cfg:
            cfg[k] = confine(cfg[k])
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

def export_base():
    """An export of the base checkpoint (made once): config.json, model.safetensors and the header."""
    d = os.path.join(tmp, "export-base")
    if not os.path.exists(d):
        subprocess.run([BIN, "export", "--checkpoint", CKPT, "--out", d], check=True, capture_output=True, cwd=tmp)
    raw = open(os.path.join(d, "model.safetensors"), "rb").read()
    n = int.from_bytes(raw[:8], "little")
    return json.load(open(os.path.join(d, "config.json"))), json.loads(raw[8:8 + n]), raw[8 + n:]

def import_args(i, config_text, tensors_bytes):
    d = os.path.join(tmp, f"imp{i}")
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "config.json"), "w").write(config_text)
    open(os.path.join(d, "model.safetensors"), "wb").write(tensors_bytes)
    return ["import", "--from", d, "--out", os.path.join(tmp, "case", "imported.json")]

def safetensors_file(header, data, pad=b" "):
    h = (header if isinstance(header, str) else json.dumps(header)).encode()
    h += pad * (-len(h) % 8)
    return len(h).to_bytes(8, "little") + h + data

def safetensors_case(i):
    """A mutated safetensors header (shapes, offsets, dtypes, padding, names) under an export's config."""
    config, header, data = export_base()
    name = rng.choice([k for k in header if k != "__metadata__"])
    kind, pad = rng.randrange(7), b" "
    if kind == 0:
        header[name][rng.choice(["shape", "data_offsets", "dtype"])] = rng.choice(EXTREME + [[2**62], [2**32, 2**32], [0, 2**63]])
    elif kind == 1:
        header[name]["shape"] = [rng.choice(EXTREME) for _ in range(rng.randint(0, 3))]
    elif kind == 2:
        header[name]["data_offsets"] = [rng.choice([0, 4, 4.5, -4, 2**64 - 1, len(data), len(data) + 4]) for _ in range(2)]
    elif kind == 3:
        pad = rng.choice([b"\0", b"\n", b"x"])
    elif kind == 4:
        text = json.dumps(header)
        text = text[:-1] + ", " + json.dumps(name) + ": " + json.dumps(header[name]) + "}"  # the name twice
        return import_args(i, json.dumps(config), safetensors_file(text, data)), f"safetensors {name} twice"
    elif kind == 5:
        body = safetensors_file(header, data)
        cut = rng.randrange(len(body))
        return import_args(i, json.dumps(config), body[:cut]), f"safetensors cut at {cut}"
    else:
        header[name] = rng.choice(EXTREME)
    return import_args(i, json.dumps(config), safetensors_file(header, data, pad)), f"safetensors {kind} {name}: {json.dumps(header)[:200]}"

def export_config_case(i):
    """A mutated export config.json (its tensors list and checkpoint fields) imported, or a mutated
    checkpoint exported."""
    config, header, data = export_base()
    kind = rng.randrange(6)
    if kind == 0 and config["tensors"]:
        t = rng.choice(config["tensors"])
        t[rng.choice(["pe_bench", "torch", "pe_bench_shape", "transposed", "torch_shape"])] = rng.choice(EXTREME)
    elif kind == 1 and config["tensors"]:
        rng.choice(config["tensors"])["pe_bench_shape"] = [rng.choice(EXTREME) for _ in range(rng.randint(0, 3))]
    elif kind == 2:
        config["tensors"].append(dict(rng.choice(config["tensors"])))
    elif kind == 3:
        cp = config["pe_bench_checkpoint"]
        section = rng.choice(["model", "scheme", "training", "top"])
        target = cp if section == "top" or not isinstance(cp.get(section), dict) else cp[section]
        target[rng.choice(list(target.keys()) + ["extra"])] = rng.choice(EXTREME + ["../../etc"])
    elif kind == 4:
        config[rng.choice(["pe_bench_checkpoint", "tensors"])] = rng.choice(EXTREME)
    else:
        c = json.load(open(CKPT))
        p = rng.choice(c["params"])
        p[rng.choice(["shape", "data", "name"])] = rng.choice(EXTREME + [[160, 48], [16, 480000], [-17, -16], [0, 16]])
        path = os.path.join(tmp, f"ex{i}.json")
        json.dump(c, open(path, "w"))
        return ["export", "--checkpoint", path, "--out", os.path.join(tmp, "case", "ex")], f"export of a mutated checkpoint {json.dumps(p)[:200]}"
    return import_args(i, json.dumps(config), safetensors_file(header, data)), f"import of config {json.dumps(config)[:300]}"

LAB_FILES = ("theory.json", "tournament/results.json", "filings/lab_filing.json", "failures/results.json")
LAB_VALUES = ["<!--<script>", "</script><script>", "a&b>c", "\u2028\u2029", "x" * 5000, "pi", "none", "cue", 65536, 65538,
              2048, 4096, 1e12, 1e13, -2]
lab_pages = []  # the output folders of lab cases, checked at the next lab case (a page must escape what it embeds)

def lab_case(i):
    """pe-bench lab on a results directory in the case's folder (sometimes named with "<!--<script>", which
    its page embeds) whose theory.json, tournament/results.json or filings/lab_filing.json has 1 to 3
    values replaced (types, extremes, hostile strings), removed, emptied or multiplied (a list 50 times
    longer); two of the tournament's heads are its runs, so a run past the checks stays short. The page a
    lab case wrote is checked at the next one: no raw < > & in its JSON block, which parses back to lab.json."""
    while lab_pages:
        out = lab_pages.pop()
        if os.path.exists(os.path.join(out, "index.html")):
            page = open(os.path.join(out, "index.html"), encoding="utf-8").read()
            tag = '<script type="application/json" id="payload">'
            block = page[page.index(tag) + len(tag):page.index("</script>", page.index(tag))]
            if any(c in block for c in "<>&\u2028\u2029") or page.count("<script") != 2 or "<!--" in page:
                found.append(f"lab page {out}: its JSON block or script elements hold a raw < > & or <!--")
            elif json.loads(block) != json.load(open(os.path.join(out, "lab.json"), encoding="utf-8")):
                found.append(f"lab page {out}: its JSON block is not lab.json")
    src = os.path.join(tmp, "lab-src")
    if not os.path.isdir(src):  # once: copies of the committed inputs and two heads
        for rel in LAB_FILES:
            os.makedirs(os.path.dirname(os.path.join(src, rel)), exist_ok=True)
            shutil.copy(os.path.join(REPO, "results", rel), os.path.join(src, rel))
        for head in ("rope/seed0", "sinusoidal/seed0"):
            shutil.copytree(os.path.join(REPO, "results/tournament/runs/cue", head), os.path.join(src, "tournament/runs/cue", head))
    res = os.path.join(CASE, rng.choice(["lab", "lab-<!--<script>"]))
    shutil.copytree(src, res)
    rel = rng.choice(LAB_FILES)
    doc = json.load(open(os.path.join(src, rel)))
    for _ in range(rng.randint(1, 3)):
        parent, key, v = None, None, doc  # a random value: descend from the top, stopping at each level at random
        while True:
            keys = list(v) if isinstance(v, dict) else list(range(len(v))) if isinstance(v, list) else []
            if not keys or (parent is not None and rng.random() < 0.35):
                break
            parent, key = v, rng.choice(keys)
            v = parent[key]
        r = rng.random()
        new = (rng.choice(EXTREME + LAB_VALUES) if r < 0.7 else [] if r < 0.8 else v * 50 if isinstance(v, (list, str)) else v)
        if parent is None:
            doc = new
        elif r >= 0.9:
            del parent[key]
        else:
            parent[key] = new
    text = json.dumps(doc).replace('"1e999"', "1e999")
    open(os.path.join(res, rel), "w").write(text)
    out = os.path.join(tmp, f"lab-out{i}")
    lab_pages.append(out)
    return ["lab", "--results", res, "--out", out, "--quiet"], f"lab with {rel} mutated #{i}: {text[:300]}"

ROPE_TYPES = ["default", "linear", "dynamic", "yarn", "longrope", "llama3"]
ROPE_TYPES_UNREAD = ["proportional", "zoom", "", 3, None]  # Transformers' proportional, unknown ones, wrong types
ROPE_FIELDS = {"default": [], "linear": ["factor"], "dynamic": ["factor", "original_max_position_embeddings"],
               "yarn": ["factor", "original_max_position_embeddings", "attention_factor", "beta_fast", "beta_slow", "mscale",
                        "mscale_all_dim", "truncate"],
               "longrope": ["short_factor", "long_factor", "factor", "original_max_position_embeddings", "attention_factor"],
               "llama3": ["factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"]}
ROPE_VALUES = EXTREME + [4, 8, 32, 64, 256, 0.999, 1e12, 1e13, "NaN", "Infinity", "4"]
CHARLM = os.path.join(tmp, "charlm-checkpoint.json")

def rope_scaling_case(i):
    """A random Transformers rope_scaling (v4) or rope_parameters (v5) dictionary, bare or in a whole
    config.json, for every rope_type (and unknown ones): the type's own fields with plausible values
    (each present or not), then 0 to 2 of them replaced by extremes or wrong types, removed, or joined by
    another type's field or an unknown one; the original length at the top (v4, Phi-3) or inside (v5),
    now and then in both. Read by census --rope-scaling (as JSON on the command line or a file), now and
    then by sample (20 characters) or eval (one length, 4 windows) on the char-LM checkpoint (heads of 32)."""
    if not os.path.exists(CHARLM):  # once: a copy in the scratch area (a path into the repository would be rewritten)
        shutil.copy(os.path.join(REPO, "results/charlm-quick/runs/charlm/rope/seed0/checkpoint.json"), CHARLM)
    command = rng.choices(["census", "sample", "eval"], [0.75, 0.15, 0.1])[0]
    t = rng.choice(ROPE_TYPES) if rng.random() < 0.85 else rng.choice(ROPE_TYPES_UNREAD)
    head_dim = 32 if command != "census" or rng.random() < 0.5 else rng.choice([16, 32, 64])
    planes = head_dim // 2 if rng.random() < 0.9 else rng.choice([1, 3, head_dim])
    plausible = {"factor": rng.choice([2, 4, 8, 1.5, None]), "original_max_position_embeddings": rng.choice([32, 64, 128]),
                 "attention_factor": rng.choice([1.2, 0.5]), "beta_fast": rng.choice([32, 16]), "beta_slow": rng.choice([1, 2]),
                 "mscale": rng.choice([1, 0.5]), "mscale_all_dim": rng.choice([0.7, 1]), "truncate": rng.choice([True, False]),
                 "low_freq_factor": 1, "high_freq_factor": 4, "short_factor": [1.0 + 0.1 * j for j in range(planes)],
                 "long_factor": [2.0 + j for j in range(planes)]}
    d = {"rope_type" if rng.random() < 0.9 else "type": t}
    for k in ROPE_FIELDS.get(t, list(plausible)):
        if rng.random() < 0.8:
            d[k] = plausible[k]
    for _ in range(rng.choice([0, 0, 1, 2])):
        r = rng.random()
        if not d or r < 0.15:
            d[rng.choice(list(plausible) + ["no_such_field"])] = rng.choice(ROPE_VALUES)  # perhaps another type's
        elif r < 0.3:
            d.pop(rng.choice(list(d)), None)
        elif r < 0.85:
            d[rng.choice(list(d))] = rng.choice(ROPE_VALUES)
        else:
            d[rng.choice(list(d))] = [rng.choice(ROPE_VALUES) for _ in range(rng.choice([1, planes, 2 * planes + 1]))]
    layout = rng.choice(["bare", "v4", "v5"])
    if layout == "bare":
        cfg = d
    else:
        cfg = {"head_dim": head_dim, "max_position_embeddings": rng.choice([256, 512, 128, 32])}
        theta = 10000 if rng.random() < 0.8 else rng.choice([1, 1e12, 1e13, -5, "1e999", "x", 500000])
        inner = rng.random() < 0.5  # the original length inside (v5's place) or at the top (v4's, Phi-3's)
        if "original_max_position_embeddings" in d and not inner:
            cfg["original_max_position_embeddings"] = d["original_max_position_embeddings"] if layout == "v4" else d.pop("original_max_position_embeddings")
        if rng.random() < 0.1:
            cfg["partial_rotary_factor"] = rng.choice([0.5, 1, 0, 2])
        if layout == "v4":
            if not inner:
                d.pop("original_max_position_embeddings", None)
            cfg["rope_theta"], cfg["rope_scaling"] = theta, d
        else:
            d["rope_theta"] = theta
            cfg["rope_parameters"] = d
        if rng.random() < 0.2:
            cfg[rng.choice(list(cfg))] = rng.choice(ROPE_VALUES)
    text = json.dumps(cfg).replace('"1e999"', "1e999").replace('"NaN"', "NaN").replace('"Infinity"', "Infinity")
    spec = text
    if rng.random() < 0.25:  # the same as a config.json file
        spec = os.path.join(tmp, f"rope{i}.json")
        open(spec, "w").write(text)
    if command == "sample":
        return (["sample", "--checkpoint", CHARLM, "--rope-scaling", spec, "--chars", "20", "--prompt", "the time"],
                f"sample --rope-scaling {text}")
    if command == "eval":
        return (["eval", "--task", "charlm", "--checkpoint", CHARLM, "--rope-scaling", spec, "--lengths", "256",
                 "--set", "val_windows=4", "--out", os.path.join(CASE, "e.json"), "--quiet"], f"eval --rope-scaling {text}")
    args = ["census", "--rope-scaling", spec]
    if rng.random() < 0.4:
        args += ["--length", str(rng.choice([1, 32, 256, 4096, 2**24, 2**24 + 1, 0, -1]))]
    if rng.random() < 0.2:
        args += ["--d-head", str(rng.choice([16, 32, 4, 6, 131072, 131074]))]
    if rng.random() < 0.15:
        args += ["--base", str(rng.choice([10000, 1.5, 1, 1e12, 1e13, "inf", "nan", "1e400"]))]
    if rng.random() < 0.5:
        args.append("--json")
    return args, "census " + " ".join(args[1:])

tree_before = tree_state()
kinds = [experiment_case, set_case, option_case, checkpoint_case, safetensors_case, export_config_case, lab_case, rope_scaling_case]
t0, found = time.time(), []
try:
    read_only_copies()
    guard_self_check()
    base = os.path.join(tmp, "base")
    fresh_case()
    subprocess.run([BIN, "train", "--scheme", "learned", "--steps", "2", "--runs-dir", base, "--quiet"], check=True,
                   capture_output=True, cwd=CASE)
    CKPT = os.path.join(base, "cue", "learned", "seed0", "checkpoint.json")
    for i in range(CASES):
        fresh_case()
        args, what = kinds[i % len(kinds)](i)
        problem = run(args, what)
        if problem:
            found.append(problem)
finally:
    remove_scratch()
found += [f"the source tree changed while the fuzzer ran: {c}" for c in tree_changes(tree_before, tree_state())]
for f in found:
    print("FUZZ:", f[:400])
tally = ", ".join(f"exit {c}: {n}" for c, n in sorted(codes.items()))
print(f"fuzz_inputs: {CASES} cases (seed {SEED}) in {time.time() - t0:.0f} s ({tally}), {len(rewritten)} paths "
      f"rewritten into the scratch area, {len(found)} problems")
sys.exit(1 if found else 0)
