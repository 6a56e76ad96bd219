#!/usr/bin/python3
"""Alternating A/B benchmark runs of two Google Benchmark binaries (issue 48, "Speed").

This machine's speed drifts 10-30 % over minutes, so two builds are compared only within a round:
each round runs binary A then binary B (the order swapped every other round, to cancel order
effects) on the same benchmarks, and the comparison is the median over rounds of the within-round
ratio B/A. More binaries may follow B: each is compared with A the same way, and a round runs them
all in turn (A, B, C, ... then ..., C, B, A). Standard library only.

  /usr/bin/python3 bench/alternate.py BEFORE AFTER [MORE ...] --filter REGEX [--rounds 7] [--min-time 0.5]
      [--per-benchmark] [--json out.json] [--names before,after] [--extra-arg ARG ...]

--per-benchmark: within a round, each benchmark (the names both binaries list for the filter) is run
in A and in B back to back, one process each, so a pair is seconds apart rather than a whole
filter's run apart (for a machine whose load changes from second to second).

Prints per benchmark: the median real time of A and of B (in the benchmark's time unit, converted
to ms), the median of the within-round ratios B/A, and their min and max. OMP_NUM_THREADS=1 is set
for both binaries (a benchmark that sets its own thread count keeps it). --min-time is passed as
Google Benchmark's --benchmark_min_time: a bare number of seconds (1.7 accepts only that; 1.8 also
'0.5s'); --min-time-suffix adds 's' for versions that want it.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

TO_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def run_once(binary, regex, min_time, extra, env, metric="real_time"):
    cmd = [binary, f"--benchmark_filter={regex}", f"--benchmark_min_time={min_time}",
           "--benchmark_format=json"] + extra
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"{binary} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    data = json.loads(p.stdout)
    out, other = {}, {}
    for b in data["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
            continue
        unit = TO_MS[b.get("time_unit", "ns")]
        out[b["name"]] = b[metric] * unit
        other[b["name"]] = {m: b[m] * unit for m in ("real_time", "cpu_time")}
    return out, other


def list_tests(binary, regex, env):
    p = subprocess.run([binary, f"--benchmark_filter={regex}", "--benchmark_list_tests"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
    return [line.strip() for line in p.stdout.splitlines() if line.strip()]


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binaries", nargs="+", help="binary A (before), binary B (after), and any more (each compared "
                                                "with A)")
    ap.add_argument("--filter", required=True, help="--benchmark_filter regex, the same for every binary")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--min-time", default="0.5", help="seconds (--benchmark_min_time)")
    ap.add_argument("--min-time-suffix", action="store_true", help="pass e.g. 0.5s (Google Benchmark >= 1.8)")
    ap.add_argument("--names", help="the binaries' names, comma-separated (default before,after,c3,c4...)")
    ap.add_argument("--json", help="write every round's times here")
    ap.add_argument("--extra-arg", action="append", default=[], help="another argument for every binary")
    ap.add_argument("--metric", default="real_time", choices=["real_time", "cpu_time"],
                    help="the time compared (default real_time)")
    ap.add_argument("--per-benchmark", action="store_true",
                    help="alternate benchmark by benchmark (A and B of a pair seconds apart; for a loaded machine) "
                         "instead of running the whole filter in A then in B")
    args = ap.parse_args()
    if len(args.binaries) < 2:
        ap.error("give at least two binaries")

    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = "1"
    min_time = args.min_time + ("s" if args.min_time_suffix else "")
    nbin = len(args.binaries)
    names = (args.names.split(",") if args.names
             else ["before", "after"] + [f"c{i + 1}" for i in range(2, nbin)])
    if len(names) != nbin:
        ap.error("--names needs one name per binary")
    times = [[] for _ in range(nbin)]  # per binary, per round: {benchmark: ms}
    rounds_log = []
    t_start = time.time()
    print(f"# load average at start: {loadavg()}", flush=True)
    if args.per_benchmark:
        listed = [list_tests(b, args.filter, env) for b in args.binaries]
        common = [n for n in listed[0] if all(n in lst for lst in listed[1:])]
        only = sorted(set().union(*listed) - set(common))
        if only:
            print(f"# not in every binary (not run): {', '.join(only)}")
        filters = ["^" + re.escape(n) + "$" for n in common]
    else:
        filters = [args.filter]
    for r in range(args.rounds):
        order = list(range(nbin)) if r % 2 == 0 else list(reversed(range(nbin)))
        got = [{} for _ in range(nbin)]
        both = [{} for _ in range(nbin)]  # real and cpu time, for the JSON
        for f in filters:
            for k in order:
                t, o = run_once(args.binaries[k], f, min_time, args.extra_arg, env, args.metric)
                got[k].update(t), both[k].update(o)
        for k in range(nbin):
            times[k].append(got[k])
        rounds_log.append({"round": r, "order": [names[k] for k in order], "load": loadavg(),
                           "times": {names[k]: both[k] for k in range(nbin)}})
        print(f"# round {r + 1}/{args.rounds} ({'->'.join(names[k] for k in order)}) "
              f"done at {time.time() - t_start:.0f} s, load {loadavg()}", file=sys.stderr, flush=True)
    print(f"# load average at end: {loadavg()}; wall {time.time() - t_start:.0f} s, {args.rounds} rounds, "
          f"{args.metric}, min_time {min_time}")

    benches = [n for n in times[0][0] if all(n in t for ts in times for t in ts)]
    w = max([len(n) for n in benches] + [9])
    head = f"{'benchmark':<{w}}" + "".join(f"  {nm + ' ms':>11}" for nm in names)
    for nm in names[1:]:
        head += f"  {nm + '/' + names[0]:>12}  {'min-max':>11}"
    print(head)
    summary = []
    for n in benches:
        per = [[t[n] for t in ts] for ts in times]
        row = {"name": n, "ms": {names[k]: statistics.median(per[k]) for k in range(nbin)}, "ratios": {}}
        line = f"{n:<{w}}" + "".join(f"  {row['ms'][nm]:11.3f}" for nm in names)
        for k in range(1, nbin):
            ratios = [y / x for x, y in zip(per[0], per[k])]
            row["ratios"][names[k]] = {"median": statistics.median(ratios), "min": min(ratios), "max": max(ratios),
                                       "each": ratios}
            line += f"  {statistics.median(ratios):12.3f}  {min(ratios):5.3f}-{max(ratios):5.3f}"
        summary.append(row)
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"binaries": dict(zip(names, args.binaries)), "filter": args.filter, "min_time": min_time,
                       "metric": args.metric, "rounds": rounds_log, "summary": summary}, f, indent=1)


if __name__ == "__main__":
    main()
