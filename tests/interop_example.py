#!/usr/bin/python3
"""Runs the numpy example of docs/interop.md as typed: exports the committed RoPE char LM to
/tmp/rope (the path the example reads), runs the doc's python block, and checks what it printed.
Usage: tests/interop_example.py path/to/pe-bench; exit 0 when the example runs and prints the
model's shapes, 1 otherwise."""
import os
import re
import subprocess
import sys

binary = sys.argv[1]
doc = open("docs/interop.md").read()
blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
if not blocks:
    sys.exit("interop_example: docs/interop.md has no python block")
out = "/tmp/rope"
subprocess.run([binary, "export", "--checkpoint", "results/charlm/runs/charlm/rope/seed0/checkpoint.json",
                "--out", out], check=True, stdout=subprocess.DEVNULL)
try:
    run = subprocess.run([sys.executable, "-c", blocks[0]], capture_output=True, text=True)
finally:
    for f in ("model.safetensors", "config.json"):
        if os.path.exists(os.path.join(out, f)):
            os.remove(os.path.join(out, f))
    if os.path.isdir(out) and not os.listdir(out):
        os.rmdir(out)
want = "rope (28, 128) (384, 128)"
if run.returncode != 0 or run.stdout.strip() != want:
    print("interop_example: FAIL: the example printed %r (stderr %r), expected %r" % (run.stdout, run.stderr[-300:], want))
    sys.exit(1)
print("interop_example: docs/interop.md's example runs as typed and prints " + want)
