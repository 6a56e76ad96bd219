#!/usr/bin/env bash
# A seed sweep: every (scheme, seed) of an experiment as an independent job, then one aggregation
# into the experiment's results.json and table.md — on this machine, or on a Slurm cluster.
#
#   scripts/sweep.sh EXPERIMENT [--seeds 0-9] [--jobs N] [--threads T] [--set key=value ...]
#   scripts/sweep.sh EXPERIMENT --seeds 0-9 --slurm [--dry-run] [--wait] [--partition P] [--time T]
#                    [--mem M] [--cpus C] [--set key=value ...]
#
# --seeds      seeds as ranges and lists: 0-9, 0,3,5, 0-3,8 (default: the experiment's seeds)
# --jobs N     jobs at once on this machine (default 1); each job gets --threads T threads
#              (default: the cores divided by the jobs). Results do not depend on either.
# --set k=v    experiment keys, as for pe-bench run (repeatable)
# --bin PATH   the pe-bench binary (default: build/pe-bench, else pe-bench on the PATH)
# --slurm      write <out_dir>/sweep/jobs.sbatch (one array task per job) and aggregate.sbatch (run
#              after the array succeeds: --dependency=afterok) and submit both with sbatch
# --dry-run    with --slurm: write the scripts and print the sbatch commands, submit nothing
# --wait       with --slurm: return when the aggregation has finished (sbatch --wait)
# --partition P, --time T, --mem M, --cpus C: the array tasks' Slurm resources (defaults: the
#              cluster's default partition, 02:00:00, 4G, 2 CPUs; the aggregation gets the same)
#
# A job whose run directory is already complete is skipped (and counted), so running the same
# sweep again after a crash or a cancelled job resumes it; a job stopped by SIGINT/SIGTERM continues
# from its saved state (pe-bench --resume). Each job is
#   pe-bench run EXPERIMENT --set schemes=S --set seeds=N [--set ...] --resume --train-only
# and the aggregation is `pe-bench run EXPERIMENT --set seeds=LIST [--set ...] --resume`, which keeps
# every complete run, trains what is missing (the char LM's fine-tunes, a skipped run whose config
# changed) and evaluates: the same results.json, byte for byte, as one `pe-bench run`.
# Logs: <out_dir>/sweep/logs/. Exit: 0 done (or submitted), 1 a job or the aggregation failed, 2 usage.
set -uo pipefail

die() { echo "sweep: error: $*" >&2; exit 2; }

experiment="" seeds="" jobs=1 threads="" slurm=0 dry=0 wait=0 partition="" time_limit="02:00:00" mem="4G" cpus=2
bin=""
sets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seeds) seeds=${2:?--seeds needs a value}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a value}; shift 2 ;;
    --threads) threads=${2:?--threads needs a value}; shift 2 ;;
    --set) sets+=(--set "${2:?--set needs key=value}"); shift 2 ;;
    --bin) bin=${2:?--bin needs a path}; shift 2 ;;
    --slurm) slurm=1; shift ;;
    --dry-run) dry=1; shift ;;
    --wait) wait=1; shift ;;
    --partition) partition=${2:?--partition needs a value}; shift 2 ;;
    --time) time_limit=${2:?--time needs a value}; shift 2 ;;
    --mem) mem=${2:?--mem needs a value}; shift 2 ;;
    --cpus) cpus=${2:?--cpus needs a value}; shift 2 ;;
    -h|--help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see scripts/sweep.sh --help)" ;;
    *) [[ -z "$experiment" ]] || die "one experiment file, got '$experiment' and '$1'"; experiment=$1; shift ;;
  esac
done
[[ -n "$experiment" ]] || die "give an experiment file, e.g. scripts/sweep.sh experiments/tournament.json --seeds 0-9"
[[ -f "$experiment" ]] || die "experiment file $experiment not found"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs must be a positive integer (got '$jobs')"
[[ -z "$threads" || "$threads" =~ ^[1-9][0-9]*$ ]] || die "--threads must be a positive integer (got '$threads')"
[[ "$cpus" =~ ^[1-9][0-9]*$ ]] || die "--cpus must be a positive integer (got '$cpus')"
[[ $dry -eq 0 || $slurm -eq 1 ]] || die "--dry-run only applies with --slurm"
[[ $wait -eq 0 || $slurm -eq 1 ]] || die "--wait only applies with --slurm"
if [[ -z "$bin" ]]; then
  if [[ -x build/pe-bench ]]; then bin=build/pe-bench; else bin=$(command -v pe-bench) || die "no pe-bench: build it (make) or pass --bin"; fi
fi
bin=$(realpath "$bin")

# seeds: "0-3,8" -> "0,1,2,3,8"
if [[ -n "$seeds" ]]; then
  list=()
  IFS=',' read -ra parts <<<"$seeds"
  for p in "${parts[@]}"; do
    if [[ "$p" =~ ^([0-9]+)-([0-9]+)$ ]]; then
      (( BASH_REMATCH[1] <= BASH_REMATCH[2] )) || die "--seeds: range $p runs backwards"
      for ((s = BASH_REMATCH[1]; s <= BASH_REMATCH[2]; s++)); do list+=("$s"); done
    elif [[ "$p" =~ ^[0-9]+$ ]]; then list+=("$p")
    else die "--seeds: '$p' is not a seed or a range like 0-9"; fi
  done
  seed_list=$(IFS=,; echo "${list[*]}")
  sets=(--set "seeds=$seed_list" "${sets[@]}")
fi

# the resolved experiment: its task, schemes, seeds and directories (pe-bench checks every key)
config=$("$bin" run "$experiment" "${sets[@]}" --print-config) || exit 2
read_key() { /usr/bin/python3 -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print(",".join(map(str,v)) if isinstance(v,list) else v)' "$1" <<<"$config"; }
task=$(read_key task) schemes=$(read_key schemes) seed_list=$(read_key seeds)
runs_dir=$(read_key runs_dir) out_dir=$(read_key out_dir)
# the aggregation reads every seed; a job sets its own scheme and seed after these
agg_sets=("${sets[@]}")
[[ -n "$seeds" ]] || agg_sets=(--set "seeds=$seed_list" "${sets[@]}")

sweep_dir="$out_dir/sweep"
mkdir -p "$sweep_dir/logs" || die "cannot create $sweep_dir"
pending="$sweep_dir/pending.txt"
: >"$pending"
total=0 skipped=0
IFS=',' read -ra scheme_arr <<<"$schemes"
IFS=',' read -ra seed_arr <<<"$seed_list"
for sc in "${scheme_arr[@]}"; do
  for sd in "${seed_arr[@]}"; do
    total=$((total + 1))
    if [[ -f "$runs_dir/$task/$sc/seed$sd/checkpoint.json" ]]; then skipped=$((skipped + 1)); else echo "$sc $sd" >>"$pending"; fi
  done
done
todo=$((total - skipped))
echo "sweep: $experiment: ${#scheme_arr[@]} schemes x ${#seed_arr[@]} seeds = $total jobs; $skipped already complete (skipped), $todo to run"

# one job's command line, for this machine and for Slurm alike
job_args() {  # scheme seed
  printf '%q ' "$bin" run "$experiment" "${sets[@]}" --set "schemes=$1" --set "seeds=$2" --resume --train-only --quiet
}

if [[ $slurm -eq 1 ]]; then
  here=$(pwd)
  {
    echo "#!/usr/bin/env bash"
    echo "# pe-bench sweep of $experiment: one array task per (scheme, seed) of $pending"
    echo "#SBATCH --job-name=pe-bench-sweep"
    echo "#SBATCH --chdir=$here"
    echo "#SBATCH --output=$sweep_dir/logs/job-%a.log"
    echo "#SBATCH --cpus-per-task=$cpus"
    echo "#SBATCH --mem=$mem"
    echo "#SBATCH --time=$time_limit"
    [[ -z "$partition" ]] || echo "#SBATCH --partition=$partition"
    echo "set -euo pipefail"
    echo "line=\$(sed -n \"\$((SLURM_ARRAY_TASK_ID + 1))p\" $(printf '%q' "$(realpath "$pending")"))"
    echo "read -r scheme seed <<<\"\$line\""
    printf 'exec %q run %q' "$bin" "$experiment"
    for a in "${sets[@]}"; do printf ' %q' "$a"; done
    echo ' --set "schemes=$scheme" --set "seeds=$seed" --resume --train-only --quiet --threads "$SLURM_CPUS_PER_TASK"'
  } >"$sweep_dir/jobs.sbatch"
  {
    echo "#!/usr/bin/env bash"
    echo "# pe-bench sweep of $experiment: the aggregation, after every array task succeeded"
    echo "#SBATCH --job-name=pe-bench-aggregate"
    echo "#SBATCH --chdir=$here"
    echo "#SBATCH --output=$sweep_dir/logs/aggregate.log"
    echo "#SBATCH --cpus-per-task=$cpus"
    echo "#SBATCH --mem=$mem"
    echo "#SBATCH --time=$time_limit"
    [[ -z "$partition" ]] || echo "#SBATCH --partition=$partition"
    printf 'exec %q run %q' "$bin" "$experiment"
    for a in "${agg_sets[@]}"; do printf ' %q' "$a"; done
    echo ' --resume --quiet --threads "$SLURM_CPUS_PER_TASK"'
  } >"$sweep_dir/aggregate.sbatch"
  chmod +x "$sweep_dir/jobs.sbatch" "$sweep_dir/aggregate.sbatch"
  array_cmd=(sbatch --parsable --array=0-$((todo - 1)) "$sweep_dir/jobs.sbatch")
  agg_cmd=(sbatch --parsable --kill-on-invalid-dep=yes)  # a failed array task cancels the aggregation
  [[ $wait -eq 0 ]] || agg_cmd+=(--wait)
  echo "sweep: wrote $sweep_dir/jobs.sbatch ($todo array tasks) and $sweep_dir/aggregate.sbatch"
  if [[ $dry -eq 1 ]]; then
    [[ $todo -eq 0 ]] || echo "sweep: would run: ${array_cmd[*]}"
    echo "sweep: would run: ${agg_cmd[*]} ${todo:+--dependency=afterok:<array job id>} $sweep_dir/aggregate.sbatch"
    exit 0
  fi
  command -v sbatch >/dev/null || die "sbatch not found: run this on a Slurm login node, or add --dry-run to only write the scripts"
  dep=()
  if [[ $todo -gt 0 ]]; then
    array_id=$("${array_cmd[@]}") || { echo "sweep: error: sbatch refused the array job" >&2; exit 1; }
    array_id=${array_id%%;*}
    echo "sweep: submitted array job $array_id ($todo tasks)"
    dep=(--dependency="afterok:$array_id")
  fi
  agg_id=$("${agg_cmd[@]}" "${dep[@]}" "$sweep_dir/aggregate.sbatch") || {
    echo "sweep: error: the aggregation job failed (see $sweep_dir/logs/aggregate.log, and job-*.log for the array)" >&2
    exit 1
  }
  echo "sweep: aggregation job ${agg_id%%;*}${dep:+ runs after $array_id succeeds}; results: $out_dir/results.json"
  [[ $wait -eq 0 ]] || cat "$sweep_dir/logs/aggregate.log"
  exit 0
fi

# ---- on this machine
if [[ -z "$threads" ]]; then threads=$(( $(nproc) / jobs )); (( threads >= 1 )) || threads=1; fi
done_file="$sweep_dir/done.txt"
: >"$done_file"
start=$(date +%s)
export SWEEP_DONE=$done_file SWEEP_TODO=$todo SWEEP_SKIPPED=$skipped SWEEP_START=$start SWEEP_LOGS="$sweep_dir/logs"
export SWEEP_THREADS=$threads SWEEP_CMD
SWEEP_CMD="$(printf '%q ' "$bin" run "$experiment" "${sets[@]}")"
run_job() {  # scheme seed: one job, then one progress line
  local log="$SWEEP_LOGS/$1-seed$2.log" rc
  eval "$SWEEP_CMD --set schemes=$1 --set seeds=$2 --resume --train-only --quiet --threads $SWEEP_THREADS" >"$log" 2>&1
  rc=$?
  local n
  n=$( (flock 9; echo "$1 $2 $rc" >>"$SWEEP_DONE"; wc -l <"$SWEEP_DONE") 9>>"$SWEEP_DONE.lock")
  local el=$(( $(date +%s) - SWEEP_START ))
  local left=$(( el * (SWEEP_TODO - n) / n ))
  local status="done"
  [[ $rc -eq 0 ]] || status="FAILED (exit $rc, see $log)"
  printf 'sweep: %d/%d jobs done (%d skipped), %d:%02d elapsed, ~%d:%02d remaining — %s seed %s %s\n' \
    "$n" "$SWEEP_TODO" "$SWEEP_SKIPPED" $((el / 60)) $((el % 60)) $((left / 60)) $((left % 60)) "$1" "$2" "$status"
  return $rc
}
export -f run_job
if [[ $todo -gt 0 ]]; then
  if command -v parallel >/dev/null; then
    parallel --will-cite -j "$jobs" --colsep ' ' run_job {1} {2} <"$pending"
  else
    xargs -P "$jobs" -L 1 bash -c 'run_job "$@"' _ <"$pending"
  fi
fi
rm -f "$done_file.lock"
failed=$(awk '$3 != 0' "$done_file" | wc -l)
if [[ $failed -gt 0 ]]; then
  echo "sweep: error: $failed of $todo jobs failed (logs in $sweep_dir/logs/); run the same command again to retry them" >&2
  exit 1
fi
el=$(( $(date +%s) - start ))
echo "sweep: $todo jobs in $((el / 60)):$(printf %02d $((el % 60))); aggregating"
"$bin" run "$experiment" "${agg_sets[@]}" --resume --quiet --threads "$(nproc)" || exit 1
