#!/usr/bin/env bash
# scripts/sweep.sh against a real Slurm: starts munged, slurmctld and slurmd on this machine with a
# minimal single-node slurm.conf in a temporary directory, runs a small sweep (2 schemes x 2 seeds,
# 200 steps) locally and then through --slurm (an array job and an aggregation job that depends on
# it), checks the two results.json and table.md are byte-identical, and stops the daemons it
# started (by their pids). The out_dir holds spaces, quotes, # and % (sweep.sh quotes it in the
# #SBATCH lines, and writes % as %%): the task logs must land in it, one per array task.
# Skips with one line where the daemons cannot start.
# Usage: tests/slurm_sweep.sh path/to/pe-bench   (from the repository root)
set -u
BIN=$(realpath "${1:?usage: slurm_sweep.sh path/to/pe-bench}")
skip() { echo "slurm_sweep: SKIPPED: $*"; exit 0; }
for tool in munged mungekey slurmctld slurmd sbatch sinfo; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (scripts/install-deps.sh installs slurm-wlm and munge)"
done
[[ $(id -u) -eq 0 ]] || skip "the Slurm daemons of this test run as root, and this is not root"
T=$(mktemp -d /tmp/pe-bench-slurm.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done; done
  rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/log"
mungekey -c -k "$T/munge/munge.key" -f >/dev/null 2>&1 && chmod 600 "$T/munge/munge.key" || skip "mungekey failed"
munged -f --key-file="$T/munge/munge.key" --socket="$T/munge/munge.socket" --pid-file="$T/munge/munged.pid" \
  --log-file="$T/munge/munged.log" --seed-file="$T/munge/seed" 2>"$T/log/munged.err" || skip "munged cannot start: $(head -1 "$T/log/munged.err")"
for _ in $(seq 1 50); do [[ -s "$T/munge/munged.pid" ]] && break; sleep 0.1; done
pids+=("$(cat "$T/munge/munged.pid")")
host=$(hostname -s)
port=$(( 20000 + $$ % 20000 ))
cat >"$T/slurm.conf" <<CONF
ClusterName=pebenchtest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$T/munge/munge.socket
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$(nproc) RealMemory=$(( $(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo) / 2 )) State=UNKNOWN
PartitionName=pebench Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$T/slurm.conf
t0=$(date +%s.%N)
slurmctld -f "$SLURM_CONF" 2>"$T/log/ctld.err" || skip "slurmctld cannot start: $(head -1 "$T/log/ctld.err")"
for _ in $(seq 1 50); do [[ -s "$T/slurmctld.pid" ]] && break; sleep 0.1; done
[[ -s "$T/slurmctld.pid" ]] && pids+=("$(cat "$T/slurmctld.pid")")
slurmd -f "$SLURM_CONF" 2>"$T/log/d.err" || skip "slurmd cannot start: $(head -1 "$T/log/d.err")"
for _ in $(seq 1 50); do [[ -s "$T/slurmd.pid" ]] && break; sleep 0.1; done
[[ -s "$T/slurmd.pid" ]] && pids+=("$(cat "$T/slurmd.pid")")
up=0
for _ in $(seq 1 100); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && { up=1; break; }
  sleep 0.1
done
[[ $up -eq 1 ]] || skip "the Slurm node did not come up: $(tail -1 "$T/log/slurmctld.log" 2>/dev/null)"
echo "slurm_sweep: single-node Slurm up in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}') s"

X="$T/out 'q' \"d\" #h 50%a"
S=(--set schemes=rope,alibi --set steps=200 --set test_sequences=500 --set maps=pi --set analyze=false
   --set "runs_dir=$X/runs" --set "out_dir=$X")
scripts/sweep.sh experiments/tournament.json --seeds 0-1 --jobs 2 --bin "$BIN" "${S[@]}" >"$T/local.out" 2>&1 ||
  { echo "FAIL: the local sweep"; cat "$T/local.out"; exit 1; }
mv "$X" "$T/local"
timeout 300 scripts/sweep.sh experiments/tournament.json --seeds 0-1 --slurm --wait --partition pebench --cpus 1 --mem 500M \
  --time 00:10:00 --bin "$BIN" "${S[@]}" >"$T/slurm.out" 2>&1 ||
  { echo "FAIL: the Slurm sweep"; cat "$T/slurm.out"; tail -5 "$T/log/slurmctld.log"; cat "$X"/sweep/logs/* 2>/dev/null | tail; exit 1; }
grep -q "submitted array job" "$T/slurm.out" || { echo "FAIL: no array job was submitted"; cat "$T/slurm.out"; exit 1; }
fail=0
for f in results.json table.md; do
  cmp -s "$T/local/$f" "$X/$f" || { echo "FAIL: $f differs between the local and the Slurm sweep"; fail=1; }
done
for r in rope/seed0 rope/seed1 alibi/seed0 alibi/seed1; do
  cmp -s "$T/local/runs/cue/$r/checkpoint.json" "$X/runs/cue/$r/checkpoint.json" || { echo "FAIL: $r's checkpoint differs"; fail=1; }
done
for l in job-0 job-1 job-2 job-3 aggregate; do
  [[ -f "$X/sweep/logs/$l.log" ]] || { echo "FAIL: no $l.log in the quoted out_dir:"; find "$T" -name "*.log" | head -30; fail=1; }
done
[[ $fail -eq 0 ]] && echo "slurm_sweep: 4 array tasks and the aggregation through Slurm gave the local sweep's results byte for byte"
exit $fail
