#!/usr/bin/python3
"""scripts/plot.py on small results files: a 2-seed tournament and a 2-seed filings study trained
here in a few seconds (with the tournament's geometry and the filings document), the committed theory
and charlm-quick results. Every figure must exist as PNG and SVG,
be 1000 x 500 pixels and not be blank (its pixels vary).
Usage: tests/plots.py path/to/pe-bench   (from the repository root; needs python3-matplotlib)"""
import os
import subprocess
import sys
import tempfile

import matplotlib.image

NAMES = ["tournament", "rescaling", "rope_score_by_age", "wavelength_census", "log_ruler",
         "charlm_perplexity", "charlm_position", "filings_accuracy", "filings_document"]


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
        subprocess.run(["/usr/bin/python3", "scripts/plot.py", "--tournament", tmp + "/results.json",
                        "--theory", "results/theory.json", "--charlm", "results/charlm-quick/results.json",
                        "--filings", filings + "/results.json",
                        "--out", out], check=True, stdout=subprocess.DEVNULL)
        bad = []
        for n in NAMES:
            png, svg = os.path.join(out, n + ".png"), os.path.join(out, n + ".svg")
            if not os.path.exists(png) or not os.path.exists(svg):
                bad.append("%s: missing" % n)
                continue
            img = matplotlib.image.imread(png)
            h, w = img.shape[:2]
            if (w, h) != (1000, 500):
                bad.append("%s: %d x %d pixels, expected 1000 x 500" % (n, w, h))
            if float(img[..., :3].std()) < 0.01:
                bad.append("%s: blank (pixel std %.4f)" % (n, float(img[..., :3].std())))
            if os.path.getsize(svg) < 2000:
                bad.append("%s: the SVG is only %d bytes" % (n, os.path.getsize(svg)))
        leftovers = [f for f in os.listdir(out) if ".tmp." in f]
        if leftovers:
            bad.append("temporary files left: %s" % leftovers)
        for b in bad:
            print("FAIL:", b)
        if bad:
            sys.exit(1)
        print("plots: %d figures, PNG and SVG, 1000 x 500, none blank" % len(NAMES))


main()
