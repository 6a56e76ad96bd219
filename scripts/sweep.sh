#!/usr/bin/env bash
# A seed sweep: every (scheme, seed) of an experiment as an independent job, then one aggregation
# into the experiment's results.json and table.md — on this machine, or on a Slurm cluster.
#
#   scripts/sweep.sh EXPERIMENT [--seeds 0-9] [--jobs N] [--threads T] [--set key=value ...]
#   scripts/sweep.sh EXPERIMENT --seeds 0-9 --slurm [--dry-run] [--wait] [--partition P] [--time T]
#                    [--mem M] [--cpus C] [--set key=value ...]
#
# --seeds      seeds as ranges and lists of decimal numbers: 0-9, 0,3,5, 0-3,8 (08 is 8); at most
#              10000 seeds, each from 0 to 2147483647, none twice (default: the experiment's seeds).
#              With --seeds, --set seeds=... is refused (one of the two sets the seeds).
# --jobs N     jobs at once on this machine (default 1); each job gets --threads T threads
#              (default: the cores divided by the jobs). Results do not depend on either.
# --set k=v    experiment keys, as for pe-bench run (repeatable)
# --bin PATH   the pe-bench binary (default: build/pe-bench, else pe-bench on the PATH)
# --slurm      write <out_dir>/sweep/jobs.sbatch (one array task per job; the job list is inside it)
#              and aggregate.sbatch (run after the array succeeds: --dependency=afterok) and submit
#              both with sbatch
# --dry-run    with --slurm: write the scripts and print the sbatch commands, submit nothing
# --wait       with --slurm: return when the aggregation has finished (sbatch --wait)
# --partition P, --time T, --mem M, --cpus C: the array tasks' Slurm resources (defaults: the
#              cluster's default partition, 02:00:00, 4G, 2 CPUs; the aggregation gets the same)
#
# A job whose run directory is already complete is skipped (and counted), so running the same
# sweep again after a crash or a cancelled job resumes it; a job stopped by SIGINT/SIGTERM continues
# from its saved state (pe-bench --resume). Each job is
#   pe-bench run EXPERIMENT [--set ...] --set schemes=S --set seeds=N --resume --train-only
# and the aggregation is `pe-bench run EXPERIMENT [--set ...] --set seeds=LIST --resume`, which keeps
# every complete run, trains what is missing (the char LM's fine-tunes, a skipped run whose config
# changed) and evaluates: the same results.json, byte for byte, as one `pe-bench run`.
# Logs: <out_dir>/sweep/logs/.
#
# Ctrl-C (SIGINT) or SIGTERM on this machine (to the sweep alone or to its process group): no further
# job starts, every running job gets the signal once and saves its state at its next step boundary (a
# second signal stops them at once), nothing is aggregated, and the sweep exits 130 or 143; run the
# same command again to continue (every job resumes: pe-bench --resume). A job that exits 8
# (interrupted: someone signalled that pe-bench) while the sweep got none stops the sweep too: no
# further job starts, the running ones finish, nothing is aggregated, exit 8.
# One sweep at a time per out_dir: a sweep holds <out_dir>/sweep/sweep.lock while it runs, and a
# second one on the same out_dir is refused at once, naming the first.
# Control characters (bytes below 0x20, and 0x7f) are refused in every path and value the sweep
# writes into its scripts and job lists: the experiment's path, out_dir and runs_dir, --set values,
# --bin, the Slurm options and (with --slurm) the working directory; every value written into a
# batch script is quoted.
#
# Exit codes (an error is one line on stderr that starts with "sweep.sh:"):
#   0    done (with --slurm: submitted; with --dry-run: the scripts are written)
#   1    a job, the aggregation or sbatch failed (the line names the logs)
#   2    usage: an unknown option, a missing or bad value, a bad seed list, a control character,
#        an experiment or --set that pe-bench refuses; nothing is written
#   5    the sweep folder <out_dir>/sweep/ cannot be created or written
#   8    a job or the aggregation was interrupted (pe-bench exit 8, its state saved) while the sweep
#        itself got no signal; run the same command again to continue
#   75   another sweep is running on the same out_dir (named); nothing is written
#   130  stopped by SIGINT (143: SIGTERM); the running jobs saved their state: run the same command
#        again to continue
set -uo pipefail

max_seeds=10000 max_seed=2147483647
err() { local code=$1; shift; printf 'sweep.sh: %s\n' "$*" >&2; exit "$code"; }
die() { err 2 "$@"; }
has_cntrl() { local LC_ALL=C; [[ $1 == *[[:cntrl:]]* ]]; }
shown() { if has_cntrl "$1"; then printf '%q' "$1"; else printf "'%s'" "$1"; fi; }  # a value, on one line
clean() {  # what value: refuse a control character
  ! has_cntrl "$2" ||
    die "$1 $(shown "$2") holds a control character (a byte below 0x20, or 0x7f): refused, since it would be written into the sweep's scripts and job lists"
}
one_line() {  # file: its text on one line, control characters dropped
  local text="" line
  while IFS= read -r line || [[ -n $line ]]; do text+="${text:+ }$line"; done <"$1"
  local LC_ALL=C
  printf '%s' "${text//[[:cntrl:]]/}"
}
signal_code() { if [[ $1 == INT ]]; then echo 130; else echo 143; fi; }
usage() {
  local line
  while IFS= read -r line; do
    [[ $line == '#!'* ]] && continue
    [[ $line == '#'* ]] || break
    line=${line#\#}; printf '%s\n' "${line# }"
  done <"$0"
}

temps=()   # removed on exit: nothing is left half-written
stopped_by="" phase=check
cleanup() {
  [[ ${#temps[@]} -eq 0 ]] || rm -f -- "${temps[@]}"
  if [[ $phase == jobs || $phase == aggregate ]]; then rm -rf -- "$stop_file" "$pid_dir" "$jobs_lock"; fi
}
trap cleanup EXIT
early_signal() {  # before any job runs: stop at once
  local sig=$1 code=$((128 + $2))
  if [[ $phase == submit ]]; then
    err "$code" "stopped by SIG$sig while submitting; what sbatch accepted runs on (squeue shows it, scancel stops it)"
  fi
  err "$code" "stopped by SIG$sig before any job started; nothing was run"
}
trap 'early_signal INT 2' INT
trap 'early_signal TERM 15' TERM

experiment="" seeds="" seeds_given=0 jobs=1 threads="" slurm=0 dry=0 wait=0 partition="" time_limit="02:00:00"
mem="4G" cpus=2 bin=""
user_sets=()
while [[ $# -gt 0 ]]; do
  opt=$1
  case "$opt" in
    --seeds|--jobs|--threads|--set|--bin|--partition|--time|--mem|--cpus)
      [[ $# -ge 2 && -n $2 ]] || die "$opt needs a value (see scripts/sweep.sh --help)"
      val=$2
      shift 2
      case "$opt" in
        --seeds) seeds=$val seeds_given=1 ;;
        --jobs) jobs=$val ;;
        --threads) threads=$val ;;
        --set) user_sets+=(--set "$val") ;;
        --bin) bin=$val ;;
        --partition) partition=$val ;;
        --time) time_limit=$val ;;
        --mem) mem=$val ;;
        --cpus) cpus=$val ;;
      esac ;;
    --slurm) slurm=1; shift ;;
    --dry-run) dry=1; shift ;;
    --wait) wait=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option $(shown "$opt") (see scripts/sweep.sh --help)" ;;
    *) [[ -z "$experiment" ]] || die "one experiment file, got $(shown "$experiment") and $(shown "$opt")"
       experiment=$opt; shift ;;
  esac
done

# ---- every check before anything is written
[[ -n "$experiment" ]] || die "give an experiment file, e.g. scripts/sweep.sh experiments/tournament.json --seeds 0-9"
clean "the experiment path" "$experiment"
[[ -f "$experiment" ]] || die "experiment file $(shown "$experiment") not found"
number() {  # option value: a whole number from 1 to 9999
  [[ $2 =~ ^[1-9][0-9]{0,3}$ ]] || die "$1 must be a whole number from 1 to 9999 (got $(shown "$2"))"
}
number --jobs "$jobs"
[[ -z "$threads" ]] || number --threads "$threads"
number --cpus "$cpus"
clean --mem "$mem"
[[ $mem =~ ^[0-9]{1,12}[KMGTkmgt]?$ ]] || die "--mem must be a size like 4G, 500M or 8000 (got $(shown "$mem"))"
clean --time "$time_limit"
[[ $time_limit =~ ^([0-9]{1,6}-)?[0-9]{1,6}(:[0-9]{1,2}){0,2}$ || $time_limit =~ ^(UNLIMITED|unlimited|INFINITE|infinite)$ ]] ||
  die "--time must be a Slurm time like 02:00:00, 90 or 1-12:00:00 (got $(shown "$time_limit"))"
clean --partition "$partition"
[[ -z "$partition" || $partition =~ ^[A-Za-z0-9._,:@+-]+$ ]] ||
  die "--partition must be a Slurm partition name (letters, digits and . _ , : @ + -; got $(shown "$partition"))"
[[ $dry -eq 0 || $slurm -eq 1 ]] || die "--dry-run only applies with --slurm"
[[ $wait -eq 0 || $slurm -eq 1 ]] || die "--wait only applies with --slurm"
for ((i = 1; i < ${#user_sets[@]}; i += 2)); do
  a=${user_sets[i]}
  clean "--set" "$a"
  [[ $a == *=* ]] || die "--set $(shown "$a"): expected key=value"
  key=${a%%=*}
  key=${key#"${key%%[! ]*}"} key=${key%"${key##*[! ]}"}  # pe-bench trims the key
  [[ $seeds_given -eq 0 || $key != seeds ]] ||
    die "--seeds $(shown "$seeds") and --set $(shown "$a") both set the seeds: give one of them"
done

# --seeds "0-3,8" -> seed_list "0,1,2,3,8" (decimal, counted before it is expanded)
seed_sets=()
if [[ $seeds_given -eq 1 ]]; then
  clean --seeds "$seeds"
  bad_seeds() { die "--seeds $(shown "$seeds"): $*"; }
  [[ $seeds != ,* && $seeds != *, && $seeds != *,,* ]] || bad_seeds "an empty item (write e.g. 0-9 or 0,3,5)"
  seed_value() {  # text -> decimal value in $v (leading zeros are decimal: 08 is 8)
    [[ $1 =~ ^0*([0-9]{1,10})$ ]] || bad_seeds "seed $1 is larger than $max_seed"
    v=$((10#${BASH_REMATCH[1]}))
    (( v <= max_seed )) || bad_seeds "seed $1 is larger than $max_seed"
  }
  IFS=',' read -ra parts <<<"$seeds"
  count=0 ranges=()
  for p in "${parts[@]}"; do
    if [[ $p =~ ^([0-9]+)-([0-9]+)$ ]]; then
      hi_text=${BASH_REMATCH[2]}
      seed_value "${BASH_REMATCH[1]}"; lo=$v
      seed_value "$hi_text"; hi=$v
      (( lo <= hi )) || bad_seeds "the range $p runs backwards (write $hi_text-${p%%-*})"
    elif [[ $p =~ ^[0-9]+$ ]]; then
      seed_value "$p"; lo=$v hi=$v
    elif [[ $p =~ ^-[0-9] ]]; then
      bad_seeds "'$p' is negative (seeds run from 0 to $max_seed)"
    else
      bad_seeds "'$p' is not a seed or a range like 0-9"
    fi
    count=$((count + hi - lo + 1))
    (( count <= max_seeds )) || bad_seeds "more than $max_seeds seeds; split the sweep"
    ranges+=("$lo" "$hi")
  done
  declare -A seen=()
  list=()
  for ((i = 0; i < ${#ranges[@]}; i += 2)); do
    for ((s = ranges[i]; s <= ranges[i + 1]; s++)); do
      [[ -z ${seen[$s]:-} ]] || bad_seeds "seed $s appears twice"
      seen[$s]=1
      list+=("$s")
    done
  done
  seed_list=$(IFS=,; echo "${list[*]}")
  seed_sets=(--set "seeds=$seed_list")
fi

if [[ -z "$bin" ]]; then
  if [[ -x build/pe-bench ]]; then bin=build/pe-bench; else bin=$(command -v pe-bench) || die "no pe-bench: build it (make) or pass --bin"; fi
fi
clean --bin "$bin"
[[ -f "$bin" && -x "$bin" ]] || die "--bin $(shown "$bin") is not an executable file"
bin=$(realpath -- "$bin" 2>/dev/null) || die "--bin $(shown "$bin"): cannot resolve the path"
clean "--bin (resolved)" "$bin"
here=$(pwd) || die "cannot read the working directory"
[[ $slurm -eq 0 ]] || clean "the working directory (--chdir of the batch scripts)" "$here"

# the resolved experiment (pe-bench checks every key): its task, schemes, seeds and directories, all
# free of control characters
[[ -x /usr/bin/python3 ]] || die "/usr/bin/python3 is needed to read the resolved experiment"
mapfile -t fields < <(/usr/bin/python3 - "$max_seeds" "$bin" run "$experiment" "${user_sets[@]}" "${seed_sets[@]}" --print-config <<'PY'
import json, signal, subprocess, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)  # a Ctrl-C: no traceback (sweep.sh says it in one line)
max_seeds, cmd = int(sys.argv[1]), sys.argv[2:]
def fail(msg):
    print("sweep.sh: " + msg, file=sys.stderr)
    sys.exit(2)
def cntrl(s):
    return any(ord(c) < 0x20 or ord(c) == 0x7f for c in s)
try:
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True)
except OSError as e:
    fail(f"cannot run {cmd[0]}: {e.strerror}")
if p.returncode != 0:
    why = " ".join(p.stderr.decode("utf-8", "replace").split()) or f"exit {p.returncode}"
    fail(f"pe-bench refused the experiment (exit {p.returncode}): {why}")
try:
    c = json.loads(p.stdout.decode("utf-8", "surrogateescape"))
    if len(c["seeds"]) > max_seeds:
        fail(f"the experiment has {len(c['seeds'])} seeds, more than the {max_seeds} a sweep takes; give --seeds")
    out = []
    for key in ("task", "schemes", "seeds", "runs_dir", "out_dir"):
        v = c[key]
        s = ",".join(map(str, v)) if isinstance(v, list) else str(v)
        if not s:
            fail(f"the experiment's {key} is empty")
        if cntrl(s):
            fail(f"the experiment's {key} {json.dumps(s)} holds a control character (a byte below 0x20, or 0x7f): "
                 "refused, since it would be written into the sweep's scripts and job lists")
        out.append(s)
except (ValueError, KeyError, TypeError) as e:
    fail(f"cannot read pe-bench --print-config: {e}")
sys.stdout.buffer.write(("\n".join(out) + "\n").encode("utf-8", "surrogateescape"))
PY
)
[[ ${#fields[@]} -eq 5 ]] || exit 2  # python said why, in one line
task=${fields[0]} schemes=${fields[1]} seed_list=${fields[2]} runs_dir=${fields[3]} out_dir=${fields[4]}
# the aggregation reads every seed; a job sets its own scheme and seed after the user's --set
agg_sets=("${user_sets[@]}" --set "seeds=$seed_list")
IFS=',' read -ra scheme_arr <<<"$schemes"
IFS=',' read -ra seed_arr <<<"$seed_list"
sweep_dir="$out_dir/sweep"
if [[ $slurm -eq 1 ]]; then
  sweep_abs=$(realpath -m -- "$sweep_dir" 2>/dev/null) || die "cannot resolve $(shown "$sweep_dir")"
  clean "the sweep folder" "$sweep_abs"
  # Slurm expands %-patterns in --output (% is written %%), and a backslash there turns them all off
  [[ $sweep_abs != *\\* ]] || die "out_dir $(shown "$out_dir") holds a backslash, which Slurm's --output patterns cannot take"
fi

# ---- the sweep folder, and its lock: one sweep per out_dir at a time
if ! mkdir -p -- "$sweep_dir/logs" 2>/dev/null || [[ ! -w $sweep_dir ]]; then
  err 5 "cannot create or write the sweep folder $(shown "$sweep_dir")"
fi
lock_file="$sweep_dir/sweep.lock"
{ exec {lock_fd}>>"$lock_file"; } 2>/dev/null || err 5 "cannot open $(shown "$lock_file")"
if ! flock -n "$lock_fd"; then
  owner=""
  IFS= read -r owner <"$lock_file" 2>/dev/null
  err 75 "another sweep is running on $(shown "$out_dir") (${owner:-it has just started}; lock: $lock_file): wait for it to end, or stop it"
fi
# the owner's line (the lock stays on the open file: truncating it keeps the lock)
owner=$(printf ' %q' "$experiment" ${seeds:+--seeds "$seeds"})
owner="pid $$, started $(date '+%Y-%m-%d %H:%M:%S') in $(shown "$here"): scripts/sweep.sh$owner"
{ printf '%s\n' "${owner:0:400}" >"$lock_file"; } 2>/dev/null || err 5 "cannot write $(shown "$lock_file")"

write_file() {  # path command...: the command's output into path.tmp.PID, then renamed onto path
  local path=$1 tmp="$1.tmp.$$"
  shift
  temps+=("$tmp")
  { "$@" >"$tmp" && mv -f -- "$tmp" "$path"; } 2>/dev/null || err 5 "cannot write $(shown "$path")"
}

total=0 skipped=0 todo_jobs=()
for sc in "${scheme_arr[@]}"; do
  for sd in "${seed_arr[@]}"; do
    total=$((total + 1))
    if [[ -f "$runs_dir/$task/$sc/seed$sd/checkpoint.json" ]]; then skipped=$((skipped + 1)); else todo_jobs+=("$sc $sd"); fi
  done
done
todo=${#todo_jobs[@]}
echo "sweep.sh: $experiment: ${#scheme_arr[@]} schemes x ${#seed_arr[@]} seeds = $total jobs; $skipped already complete (skipped), $todo to run"

# shellcheck disable=SC2016,SC2317  # the generators run through write_file; '$x' is the scripts' own
if [[ $slurm -eq 1 ]]; then
  sbatch_value() {  # a value for an #SBATCH line: in double quotes, with \ " ' # escaped by a backslash,
    local v=$1  # as Slurm's parser of #SBATCH lines reads them (old versions end the line at any #)
    v=${v//[\\]/\\\\} v=${v//[\"]/\\\"} v=${v//[\']/\\\'} v=${v//[#]/\\#}
    printf '"%s"' "$v"
  }
  header() {  # job-name output-file: the #SBATCH block, then the script's first command
    echo "#!/usr/bin/env bash"
    printf '# pe-bench sweep of %q, written by scripts/sweep.sh\n' "$experiment"
    echo "#SBATCH --job-name=$1"
    echo "#SBATCH --chdir=$(sbatch_value "$here")"
    echo "#SBATCH --output=$(sbatch_value "${sweep_abs//%/%%}/logs/$2")"
    echo "#SBATCH --cpus-per-task=$(sbatch_value "$cpus")"
    echo "#SBATCH --mem=$(sbatch_value "$mem")"
    echo "#SBATCH --time=$(sbatch_value "$time_limit")"
    [[ -z "$partition" ]] || echo "#SBATCH --partition=$(sbatch_value "$partition")"
    echo "set -euo pipefail"
  }
  jobs_script() {
    header pe-bench-sweep 'job-%a.log'
    echo "# one array task per (scheme, seed):"
    echo "sweep_jobs=("
    for j in "${todo_jobs[@]}"; do printf '  %q\n' "$j"; done
    echo ")"
    echo 'task=${SLURM_ARRAY_TASK_ID:?is not set: submit this script with sbatch --array}'
    echo '[[ $task =~ ^[0-9]+$ && $task -lt ${#sweep_jobs[@]} ]] ||'
    echo '  { echo "jobs.sbatch: no job $task (there are ${#sweep_jobs[@]})" >&2; exit 2; }'
    echo 'read -r scheme seed <<<"${sweep_jobs[task]}"'
    printf 'exec %q run %q' "$bin" "$experiment"
    for a in "${user_sets[@]}"; do printf ' %q' "$a"; done
    echo ' --set "schemes=$scheme" --set "seeds=$seed" --resume --train-only --quiet --threads "${SLURM_CPUS_PER_TASK:-'"$cpus"'}"'
  }
  agg_script() {
    header pe-bench-aggregate aggregate.log
    echo "# the aggregation, after every array task succeeded"
    printf 'exec %q run %q' "$bin" "$experiment"
    for a in "${agg_sets[@]}"; do printf ' %q' "$a"; done
    echo ' --resume --quiet --threads "${SLURM_CPUS_PER_TASK:-'"$cpus"'}"'
  }
  write_file "$sweep_dir/jobs.sbatch" jobs_script
  write_file "$sweep_dir/aggregate.sbatch" agg_script
  chmod +x "$sweep_dir/jobs.sbatch" "$sweep_dir/aggregate.sbatch"
  array_cmd=(sbatch --parsable --array=0-$((todo - 1)) "$sweep_dir/jobs.sbatch")
  agg_cmd=(sbatch --parsable --kill-on-invalid-dep=yes)  # a failed array task cancels the aggregation
  [[ $wait -eq 0 ]] || agg_cmd+=(--wait)
  echo "sweep.sh: wrote $sweep_dir/jobs.sbatch ($todo array tasks) and $sweep_dir/aggregate.sbatch"
  if [[ $dry -eq 1 ]]; then
    [[ $todo -eq 0 ]] || echo "sweep.sh: would run: $(printf '%q ' "${array_cmd[@]}")"
    after=""
    [[ $todo -eq 0 ]] || after="--dependency=afterok:<array job id> "
    echo "sweep.sh: would run: $(printf '%q ' "${agg_cmd[@]}")$after$(printf '%q' "$sweep_dir/aggregate.sbatch")"
    exit 0
  fi
  command -v sbatch >/dev/null || die "sbatch not found: run this on a Slurm login node, or add --dry-run to only write the scripts"
  phase=submit
  dep=()
  if [[ $todo -gt 0 ]]; then
    array_id=$("${array_cmd[@]}" 2>"$sweep_dir/logs/sbatch.err") ||
      err 1 "sbatch refused the array job: $(one_line "$sweep_dir/logs/sbatch.err")"
    array_id=${array_id%%;*}
    echo "sweep.sh: submitted array job $array_id ($todo tasks)"
    dep=(--dependency="afterok:$array_id")
  fi
  agg_id=$("${agg_cmd[@]}" "${dep[@]}" "$sweep_dir/aggregate.sbatch") ||
    err 1 "the aggregation job failed (see $sweep_dir/logs/aggregate.log, and job-*.log for the array)"
  echo "sweep.sh: aggregation job ${agg_id%%;*}${dep:+ runs after $array_id succeeds}; results: $out_dir/results.json"
  [[ $wait -eq 0 ]] || cat "$sweep_dir/logs/aggregate.log"
  exit 0
fi

# ---- on this machine
job_list() { [[ $todo -eq 0 ]] || printf '%s\n' "${todo_jobs[@]}"; }
write_file "$sweep_dir/pending.txt" job_list
pending="$sweep_dir/pending.txt"
if [[ -z "$threads" ]]; then threads=$(( $(nproc) / jobs )); (( threads >= 1 )) || threads=1; fi
done_file="$sweep_dir/done.txt" jobs_lock="$sweep_dir/jobs.lock" stop_file="$sweep_dir/stop" pid_dir="$sweep_dir/pids"
rm -rf -- "$pid_dir" "$stop_file"
{ : >"$done_file" && mkdir "$pid_dir"; } 2>/dev/null || err 5 "cannot write in $(shown "$sweep_dir")"
start=$(date +%s)
export SWEEP_DONE=$done_file SWEEP_TODO=$todo SWEEP_SKIPPED=$skipped SWEEP_START=$start SWEEP_LOGS="$sweep_dir/logs"
export SWEEP_THREADS=$threads SWEEP_LOCK=$jobs_lock SWEEP_STOP=$stop_file SWEEP_PIDS=$pid_dir SWEEP_CMD
SWEEP_CMD="$(printf '%q ' "$bin" run "$experiment" "${user_sets[@]}")"
# One job, then one progress line; none once the sweep is stopping (the stop file exists). Under the
# jobs lock, the job's process writes its pid to the pid folder before it becomes pe-bench, so the
# sweep's signal handler (which takes the same lock) either finds it there or keeps it from starting.
run_job() {  # scheme seed
  local log="$SWEEP_LOGS/$1-seed$2.log" pidf="$SWEEP_PIDS/$1-seed$2" rc=0 started=0 n cmd
  eval "cmd=($SWEEP_CMD)"
  cmd+=(--set "schemes=$1" --set "seeds=$2" --resume --train-only --quiet --threads "$SWEEP_THREADS")
  {
    flock 9
    if [[ ! -e $SWEEP_STOP ]]; then
      started=1
      ( printf '%s %s\n' "$BASHPID" "$$" >"$pidf"; flock -u 9; exec "${cmd[@]}" 9>&- ) >"$log" 2>&1 </dev/null
      rc=$?
    fi
  } 9>>"$SWEEP_LOCK"
  [[ $started -eq 1 ]] || return 0
  n=$( {
    flock 9
    rm -f "$pidf"
    case $rc in 8|130|143) : >"$SWEEP_STOP" ;; esac  # interrupted: no further job starts
    echo "$1 $2 $rc" >>"$SWEEP_DONE"
    wc -l <"$SWEEP_DONE"
  } 9>>"$SWEEP_LOCK" )
  local el=$(( $(date +%s) - SWEEP_START ))
  local left=$(( el * (SWEEP_TODO - n) / n ))
  local status="done"
  case $rc in
    0) ;;
    8) status="interrupted (exit 8: its state is saved)" ;;
    130|143) status="stopped by SIG$([[ $rc -eq 130 ]] && echo INT || echo TERM) (see $log)" ;;
    *) status="FAILED (exit $rc, see $log)" ;;
  esac
  printf 'sweep.sh: %d/%d jobs done (%d skipped), %d:%02d elapsed, ~%d:%02d remaining — %s seed %s %s\n' \
    "$n" "$SWEEP_TODO" "$SWEEP_SKIPPED" $((el / 60)) $((el % 60)) $((left / 60)) $((left % 60)) "$1" "$2" "$status"
  return 0
}
export -f run_job

# SIGINT/SIGTERM: the jobs and the aggregation run in their own process group, so a Ctrl-C reaches
# them only through here, once: no further job starts, and every running one gets the signal
agg_pid="" agg_signalled=0
on_signal() {  # INT|TERM
  [[ -n $stopped_by ]] || stopped_by=$1
  {
    flock 9
    : >"$stop_file"
    local f pid parent stat
    for f in "$pid_dir"/*; do
      read -r pid parent 2>/dev/null <"$f" || continue
      [[ $pid =~ ^[0-9]+$ ]] || continue
      # still the job's process (a child of its wrapper), not a recycled pid
      { stat=$(<"/proc/$pid/stat"); } 2>/dev/null || continue
      stat=${stat##*) }
      read -r _ stat _ <<<"$stat"
      [[ $stat == "$parent" ]] && kill -s "$1" "$pid" 2>/dev/null
    done
  } 9>>"$jobs_lock"
  if [[ -n $agg_pid ]]; then kill -s "$1" "$agg_pid" 2>/dev/null; agg_signalled=1; fi
}
wait_for() {  # pid: until it has ended (a signal interrupts `wait`); its status in $waited
  while :; do
    wait "$1"
    waited=$?
    (( waited > 128 )) && kill -0 "$1" 2>/dev/null && continue
    break
  done
}
resume_hint="run the same command again to continue (every job resumes from its saved state: pe-bench --resume)"
phase="jobs"
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
runner_rc=0
if [[ $todo -gt 0 ]]; then
  set -m  # the runner and its jobs in a process group of their own
  if command -v parallel >/dev/null; then
    parallel --will-cite -j "$jobs" --colsep ' ' run_job '{1}' '{2}' <"$pending" &
  else
    xargs -P "$jobs" -L 1 bash -c 'run_job "$@"' _ <"$pending" &
  fi
  runner=$!
  set +m
  wait_for "$runner"
  runner_rc=$waited
fi
ran=0 failed=0 interrupted=0
while read -r _ _ rc; do
  ran=$((ran + 1))
  case $rc in 0) ;; 8|130|143) interrupted=$((interrupted + 1)) ;; *) failed=$((failed + 1)) ;; esac
done <"$done_file"
finished=$((ran - failed - interrupted))
summary="$finished of $todo jobs done, $interrupted stopped, $failed failed, $((todo - ran)) not started"
if [[ -n $stopped_by ]]; then
  err "$(signal_code "$stopped_by")" "stopped by SIG$stopped_by ($summary); nothing aggregated: $resume_hint"
fi
if [[ $interrupted -gt 0 ]]; then
  err 8 "$interrupted job(s) interrupted by a signal to pe-bench ($summary; logs in $sweep_dir/logs/); nothing aggregated: $resume_hint"
fi
if [[ $failed -gt 0 ]]; then
  err 1 "$failed of $todo jobs failed (logs in $sweep_dir/logs/); run the same command again to retry them"
fi
[[ $ran -eq $todo ]] || err 1 "the job runner ended (exit $runner_rc) after $ran of $todo jobs; run the same command again"
el=$(( $(date +%s) - start ))
echo "sweep.sh: $todo jobs in $((el / 60)):$(printf %02d $((el % 60))); aggregating"
phase=aggregate
agg_log="$sweep_dir/logs/aggregate.log"
set -m
"$bin" run "$experiment" "${agg_sets[@]}" --resume --quiet --threads "$(nproc)" 2>"$agg_log" </dev/null &
agg_pid=$!
set +m
if [[ -n $stopped_by && $agg_signalled -eq 0 ]]; then kill -s "$stopped_by" "$agg_pid" 2>/dev/null; agg_signalled=1; fi
wait_for "$agg_pid"
agg_rc=$waited
[[ ! -s $agg_log || $agg_rc -ne 0 ]] || cat "$agg_log" >&2
last=""
[[ $agg_rc -eq 0 ]] || last=$(one_line "$agg_log")
if [[ -n $stopped_by ]]; then
  err "$(signal_code "$stopped_by")" "stopped by SIG$stopped_by during the aggregation (log: $agg_log): run the same command again to continue (pe-bench --resume keeps every complete run)"
fi
case $agg_rc in
  0) ;;
  8|130|143) err 8 "the aggregation was interrupted by a signal to pe-bench (${last:-exit $agg_rc}; log: $agg_log): run the same command again to continue (pe-bench --resume)" ;;
  *) err 1 "the aggregation failed (pe-bench exit $agg_rc: ${last:-no message}; log: $agg_log)" ;;
esac
