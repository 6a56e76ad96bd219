#!/usr/bin/env bash
# scripts/sweep.sh on this machine: 2 schemes x 2 seeds with 2 jobs (GNU parallel, and xargs -P when
# parallel is absent) aggregate to the same results.json and table.md, byte for byte, as one
# `pe-bench run`; a second sweep skips every job and says so; a deleted run is the only job rerun.
# Hostile input: control characters in out_dir (a newline that would inject a command into
# jobs.sbatch), --set values, the experiment path, the Slurm options and the working directory are
# refused, while a path with spaces, quotes, #, % and $(...) is quoted and works in both batch
# scripts and here; bad seed lists (empty, backwards, negative, garbage, repeated, beyond 2147483647
# or 10000 seeds, --set seeds beside --seeds) are refused, 08-09 is decimal, 10000 ten-digit seeds fit.
# Every refusal is one line starting with "sweep.sh:", its documented exit code, and nothing written.
# Real signals: SIGINT to the sweep's process group (Ctrl-C) and SIGTERM to the sweep alone stop it
# (exit 130, 143) with the running jobs' state saved, nothing aggregated and no further job; a job
# interrupted on its own stops it (exit 8); a second sweep on the same out_dir is refused at once
# (exit 75) naming the first; the same command again resumes and finishes.
# Usage: tests/sweep_local.sh path/to/pe-bench   (from the repository root)
# shellcheck disable=SC2015  # "A && B || fail": fail when either fails
set -u
BIN=$(realpath "${1:?usage: sweep_local.sh path/to/pe-bench}")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
S=(--set schemes=rope,alibi --set steps=200 --set test_sequences=500 --set maps=pi --set analyze=false
   --set "runs_dir=$T/x/runs" --set "out_dir=$T/x")
"$BIN" run experiments/tournament.json --set seeds=0,1 "${S[@]}" --quiet >/dev/null || { echo "FAIL: pe-bench run"; exit 1; }
mv "$T/x" "$T/run"
same() {  # what: the sweep's results equal the single run's
  for f in results.json table.md; do cmp -s "$T/run/$f" "$T/x/$f" || { echo "FAIL [$1]: $f differs from pe-bench run's"; fail=1; }; done
}
scripts/sweep.sh experiments/tournament.json --seeds 0-1 --jobs 2 --bin "$BIN" "${S[@]}" >"$T/a.out" 2>&1 || { echo "FAIL: sweep"; cat "$T/a.out"; exit 1; }
grep -q "4/4 jobs done (0 skipped)" "$T/a.out" || { echo "FAIL: no progress line"; cat "$T/a.out"; fail=1; }
same "parallel"
scripts/sweep.sh experiments/tournament.json --seeds 0-1 --jobs 2 --bin "$BIN" "${S[@]}" >"$T/b.out" 2>&1
grep -q "4 already complete (skipped), 0 to run" "$T/b.out" || { echo "FAIL: the second sweep did not skip"; cat "$T/b.out"; fail=1; }
same "all skipped"
rm -rf "$T/x/runs/cue/alibi/seed1"
# without GNU parallel on the PATH: xargs -P
mkdir "$T/bin" && for t in bash sed awk wc flock date realpath nproc mkdir cat rm mv printf env xargs dirname; do
  p=$(command -v $t) && ln -s "$p" "$T/bin/$t"; done
PATH="$T/bin" scripts/sweep.sh experiments/tournament.json --seeds 0-1 --jobs 2 --bin "$BIN" "${S[@]}" >"$T/c.out" 2>&1 ||
  { echo "FAIL: the xargs sweep"; cat "$T/c.out"; fail=1; }
grep -q "3 already complete (skipped), 1 to run" "$T/c.out" || { echo "FAIL: the deleted run was not the only job"; cat "$T/c.out"; fail=1; }
same "xargs, one job rerun"

# ---- hostile input: one line on stderr starting with "sweep.sh:", the documented exit code, and
# nothing written under $T/h (where every out_dir of these cases points)
REPO=$(pwd)
mkdir -p "$T/h" "$T/log"
P="$T/PWNED-$$"  # what the injected command would create
H=(--bin "$BIN" --set schemes=rope --set steps=200 --set test_sequences=500 --set maps= --set analyze=false)
one_line() {  # name file: exactly one line, starting with "sweep.sh: "
  [[ $(wc -l <"$2") -eq 1 ]] && grep -q '^sweep\.sh: ' "$2" || { echo "FAIL [$1]: stderr is not one sweep.sh: line:"; cat "$2"; fail=1; }
}
refused() {  # name code args...: run from ${CWD:-.}
  local name=$1 code=$2 before rc
  shift 2
  before=$(find "$T/h" | sort)
  (cd "${CWD:-.}" && exec timeout 120 "$REPO/scripts/sweep.sh" "$@") >"$T/log/out" 2>"$T/log/err"
  rc=$?
  [[ $rc -eq $code ]] || { echo "FAIL [$name]: exit $rc, expected $code"; cat "$T/log/err"; fail=1; }
  one_line "$name" "$T/log/err"
  [[ $(find "$T/h" | sort) == "$before" ]] || { echo "FAIL [$name]: something was written:"; find "$T/h" | sort; fail=1; }
}
# control characters; the attacker's experiment: out_dir with a newline, then a command
python3 -c 'import json, sys
nl = sys.argv[1] + "/o\ntouch " + sys.argv[2] + "\n#"
json.dump({"out_dir": nl, "runs_dir": sys.argv[1] + "/runs"}, open(sys.argv[1] + "/newline.json", "w"))' "$T/h" "$P"
refused "newline out_dir, --slurm" 2 "$T/h/newline.json" --slurm --dry-run --seeds 0 "${H[@]}"
refused "newline out_dir, here" 2 "$T/h/newline.json" --seeds 0 "${H[@]}"
refused "newline --set out_dir" 2 experiments/tournament.json --slurm --dry-run "${H[@]}" --set "out_dir=$T/h/o"$'\n'"touch $P"
refused "DEL in --set runs_dir" 2 experiments/tournament.json "${H[@]}" --set "out_dir=$T/h/o" --set "runs_dir=$T/h/r"$'\x7f'
refused "tab in --set" 2 experiments/tournament.json "${H[@]}" --set "out_dir=$T/h/o"$'\t'"x"
cp experiments/tournament.json "$T/h/e"$'\n'"x.json"
refused "newline in the experiment path" 2 "$T/h/e"$'\n'"x.json" --slurm --dry-run "${H[@]}" --set "out_dir=$T/h/o"
refused "newline --partition" 2 experiments/tournament.json --slurm --dry-run "${H[@]}" --set "out_dir=$T/h/o" \
  --partition $'p\n#SBATCH --wrap=touch '"$P"
refused "newline --time" 2 experiments/tournament.json --slurm --dry-run "${H[@]}" --set "out_dir=$T/h/o" --time $'1:00\n'
refused "space in --mem" 2 experiments/tournament.json --slurm --dry-run "${H[@]}" --set "out_dir=$T/h/o" --mem "4G --wrap=x"
mkdir "$T/h/d"$'\n'"ir"
CWD="$T/h/d"$'\n'"ir" refused "newline in the working directory, --slurm" 2 "$REPO/experiments/tournament.json" --slurm --dry-run \
  "${H[@]}" --set "out_dir=$T/h/o"
[[ ! -e $P ]] || { echo "FAIL: the injected command ran"; fail=1; }
# a path with spaces, quotes, #, %, $(...), `...` and a non-ASCII letter: quoted in both batch scripts,
# which run (as Slurm would: in the --chdir folder, with SLURM_ARRAY_TASK_ID) and write there
W="$T/w/sp ace 'sq' \"dq\" #h 50%a \$(touch $P) \`touch $P\` é"
Q=("${H[@]}" --set "runs_dir=$W/runs" --set "out_dir=$W")
scripts/sweep.sh experiments/tournament.json --seeds 0 --slurm --dry-run --partition part.1 --cpus 1 --mem 500M \
  --time 00:10:00 "${Q[@]}" >"$T/log/w.out" 2>&1 || { echo "FAIL: the sweep of a path with quotes"; cat "$T/log/w.out"; fail=1; }
for f in jobs aggregate; do
  bash -n "$W/sweep/$f.sbatch" || { echo "FAIL: $f.sbatch is not valid bash"; fail=1; }
  # each #SBATCH line is one argument to Slurm's parser of them (22.05: ' and " quote, \ escapes, an
  # unquoted # ends the line, whitespace separates), with the value expected
  python3 - "$W/sweep/$f.sbatch" "$REPO" "$(realpath "$W")" "$f" <<'PY' || fail=1
import sys
path, repo, w, name = sys.argv[1:]
def slurm_args(line):
    args, i = [], 0
    while True:
        while i < len(line) and line[i].isspace():
            i += 1
        arg, q, esc = "", None, False
        while i < len(line) and (q or not line[i].isspace()):
            c = line[i]
            i += 1
            if esc:
                esc = False
            elif c == "\\":
                esc = True
                continue
            elif q:
                if c == q:
                    q = None
                    continue
            elif c in "\"'":
                q = c
                continue
            elif c == "#":
                return args + [arg] if arg else args
            arg += c
        if q:
            sys.exit(f"FAIL: {name}.sbatch: unmatched {q} in {line!r}")
        if not arg:
            return args
        args.append(arg)
log = "/sweep/logs/job-%a.log" if name == "jobs" else "/sweep/logs/aggregate.log"
want = {"--chdir": repo, "--output": w.replace("%", "%%") + log, "--cpus-per-task": "1", "--mem": "500M",
        "--time": "00:10:00", "--partition": "part.1"}
got = {}
for line in open(path, encoding="utf-8"):
    if line.startswith("#SBATCH"):
        args = slurm_args(line[len("#SBATCH"):].rstrip("\n"))
        if len(args) != 1:
            sys.exit(f"FAIL: {name}.sbatch: {line.strip()} is {len(args)} arguments to Slurm: {args}")
        k, v = args[0].split("=", 1)
        got[k] = v
for k, v in want.items():
    if got.get(k) != v:
        sys.exit(f"FAIL: {name}.sbatch: {k} is {got.get(k)!r}, expected {v!r}")
PY
done
SLURM_ARRAY_TASK_ID=0 bash "$W/sweep/jobs.sbatch" >"$T/log/w-job.out" 2>&1 || { echo "FAIL: jobs.sbatch task 0"; cat "$T/log/w-job.out"; fail=1; }
bash "$W/sweep/aggregate.sbatch" >"$T/log/w-agg.out" 2>&1 || { echo "FAIL: aggregate.sbatch"; cat "$T/log/w-agg.out"; fail=1; }
[[ -f "$W/runs/cue/rope/seed0/checkpoint.json" && -f "$W/results.json" ]] || { echo "FAIL: the quoted scripts wrote elsewhere"; find "$T/w"; fail=1; }
# and on this machine: seed 0 is complete, seed 1 runs
scripts/sweep.sh experiments/tournament.json --seeds 0-1 --jobs 2 "${Q[@]}" >"$T/log/w-local.out" 2>&1 &&
  grep -q "1 already complete (skipped), 1 to run" "$T/log/w-local.out" && [[ -f "$W/runs/cue/rope/seed1/checkpoint.json" ]] ||
  { echo "FAIL: the local sweep of a path with quotes"; cat "$T/log/w-local.out"; fail=1; }
[[ ! -e $P ]] || { echo "FAIL: a command in the path ran"; fail=1; }
# seed lists
O=("${H[@]}" --set "runs_dir=$T/h/s/runs" --set "out_dir=$T/h/s")
for s in "" 5-2 -3 a,b 0,,1 "0," 0-3,2 0-100000 99999999999 2147483648 " 1"; do
  refused "--seeds '$s'" 2 experiments/tournament.json --seeds "$s" "${O[@]}"
done
refused "--seeds with --set seeds" 2 experiments/tournament.json --seeds 0-1 --set seeds=7 "${O[@]}"
refused "--seeds with --set ' seeds '" 2 experiments/tournament.json --seeds 0-1 --set " seeds = 7" "${O[@]}"
refused "--seeds without a value" 2 experiments/tournament.json "${O[@]}" --seeds
O=("${H[@]}" --set "runs_dir=$T/s/runs" --set "out_dir=$T/s")
scripts/sweep.sh experiments/tournament.json --seeds 08-09 --slurm --dry-run "${O[@]}" >"$T/log/s.out" 2>&1 &&
  grep -qFx '  rope\ 8' "$T/s/sweep/jobs.sbatch" && grep -qFx '  rope\ 9' "$T/s/sweep/jobs.sbatch" &&
  grep -qF 'seeds=8\,9 ' "$T/s/sweep/aggregate.sbatch" || { echo "FAIL: --seeds 08-09 is not seeds 8 and 9"; cat "$T/log/s.out"; fail=1; }
# 10000 seeds of ten digits: one argument of 110 kB, under the kernel's 128 kB
scripts/sweep.sh experiments/tournament.json --seeds 2147473648-2147483647 --slurm --dry-run "${O[@]}" >"$T/log/s.out" 2>&1 &&
  grep -q -- "--array=0-9999 " "$T/log/s.out" || { echo "FAIL: 10000 seeds"; cat "$T/log/s.out"; fail=1; }

# ---- real signals while jobs train, and a second sweep on the same out_dir
R="$T/sig"
K=(--set schemes=rope --set steps=40000 --set test_sequences=500 --set maps= --set analyze=false)
G=(experiments/tournament.json --seeds 0-2 --bin "$BIN" "${K[@]}" --set "runs_dir=$R/runs" --set "out_dir=$R")
step_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["step"])' "$R/runs/cue/rope/seed$1.state.json" 2>/dev/null; }
training() {  # seeds...: wait until each one's run is training (pe-bench holds <run dir>.lock), then 0.5 s
  local s ok
  for _ in $(seq 1 600); do
    ok=1
    for s in "$@"; do [[ -e "$R/runs/cue/rope/seed$s.lock" ]] || ok=0; done
    [[ $ok -eq 1 ]] && { sleep 0.5; return 0; }
    sleep 0.05
  done
  echo "FAIL: seeds $* did not start training"
  fail=1
}
stopped() {  # name rc expected-rc: one line naming --resume, nothing aggregated, no job or lock left
  [[ $2 -eq $3 ]] || { echo "FAIL [$1]: exit $2, expected $3"; fail=1; }
  one_line "$1" "$T/log/$1.err"
  grep -q -- "--resume" "$T/log/$1.err" || { echo "FAIL [$1]: the line does not say --resume continues"; fail=1; }
  [[ ! -e $R/results.json ]] || { echo "FAIL [$1]: aggregated"; fail=1; }
  if pgrep -f -- "runs_dir=$R/runs" >/dev/null; then echo "FAIL [$1]: a job is still running"; fail=1; fi
  if find "$R" -name '*.lock' ! -name sweep.lock | grep -q .; then echo "FAIL [$1]: a lock was left"; fail=1; fi
  [[ ! -e $R/sweep/pids && ! -e $R/sweep/stop ]] || { echo "FAIL [$1]: the sweep's job state was left"; fail=1; }
}
# Ctrl-C: SIGINT to the sweep's process group while 2 of its 3 jobs train
set -m
scripts/sweep.sh "${G[@]}" --jobs 2 >"$T/log/sigint.out" 2>"$T/log/sigint.err" &
sp=$!
set +m
training 0 1
cp "$R/sweep/pending.txt" "$T/log/pending"
timeout 30 scripts/sweep.sh "${G[@]}" --slurm --dry-run >"$T/log/second.out" 2>"$T/log/second.err"
rc=$?
[[ $rc -eq 75 ]] || { echo "FAIL [second sweep]: exit $rc, expected 75"; fail=1; }
one_line "second sweep" "$T/log/second.err"
grep -q "another sweep is running .*pid $sp" "$T/log/second.err" || { echo "FAIL [second sweep]: the first is not named"; fail=1; }
cmp -s "$T/log/pending" "$R/sweep/pending.txt" && [[ ! -e $R/sweep/jobs.sbatch ]] ||
  { echo "FAIL [second sweep]: it wrote a job list"; fail=1; }
kill -INT -- "-$sp"
wait "$sp"
stopped sigint $? 130
for s in 0 1; do [[ -f $R/runs/cue/rope/seed$s.state.json ]] || { echo "FAIL [sigint]: seed $s saved no state"; fail=1; }; done
step=$(step_of 0)
[[ ! -e $R/runs/cue/rope/seed2.state.json && ! -e $R/runs/cue/rope/seed2 && ! -e $R/sweep/logs/rope-seed2.log ]] ||
  { echo "FAIL [sigint]: the third job ran"; fail=1; }
# SIGTERM to the sweep alone (not its jobs): it passes it on
scripts/sweep.sh "${G[@]}" --jobs 2 >"$T/log/sigterm.out" 2>"$T/log/sigterm.err" &
sp=$!
training 0 1
kill -TERM "$sp"
wait "$sp"
stopped sigterm $? 143
[[ $(step_of 0) -gt ${step:-0} && ! -e $R/sweep/logs/rope-seed2.log ]] ||
  { echo "FAIL [sigterm]: seed 0 saved no later state, or the third job ran"; fail=1; }
# a job interrupted on its own (SIGINT to pe-bench only): no further job, exit 8
scripts/sweep.sh "${G[@]}" --jobs 1 >"$T/log/job8.out" 2>"$T/log/job8.err" &
sp=$!
training 0
read -r jp _ <"$R/sweep/pids/rope-seed0" && kill -INT "$jp"
wait "$sp"
stopped job8 $? 8
[[ $(cat "$R/sweep/done.txt") == "rope 0 8" ]] || { echo "FAIL [job8]: done.txt:"; cat "$R/sweep/done.txt"; fail=1; }
# the same command again finishes; seed 0, stopped three times, ends as if never stopped
scripts/sweep.sh "${G[@]}" --jobs 2 >"$T/log/resume.out" 2>&1 || { echo "FAIL: the resumed sweep"; cat "$T/log/resume.out"; fail=1; }
[[ -f $R/results.json ]] && ! find "$R/runs" -name '*.state.json' | grep -q . || { echo "FAIL: the resumed sweep did not finish"; fail=1; }
"$BIN" run experiments/tournament.json --set seeds=0 "${K[@]}" --set "runs_dir=$T/ref/runs" --set "out_dir=$T/ref" \
  --train-only --quiet --threads 1 >/dev/null
cmp -s "$T/ref/runs/cue/rope/seed0/checkpoint.json" "$R/runs/cue/rope/seed0/checkpoint.json" ||
  { echo "FAIL: seed 0, stopped and resumed by the sweep, differs from an uninterrupted run"; fail=1; }

[[ $fail -eq 0 ]] && echo "sweep_local: parallel and xargs sweeps equal pe-bench run byte for byte; reruns skip complete jobs; hostile paths, values and seed lists are refused in one line or quoted; SIGINT, SIGTERM and an interrupted job stop the sweep for --resume; a second sweep on one out_dir is refused"
exit $fail
