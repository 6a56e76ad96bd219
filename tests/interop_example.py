#!/usr/bin/python3
"""Runs the examples of docs/interop.md as typed: the numpy block (on an export of the committed RoPE
char LM in /tmp/rope, the path it reads), and "From pe-bench to PyTorch and back": its shell lines
(`pe-bench` replaced by the binary under test) and its python block, in order; checks what they
printed and that the PyTorch-trained model imported and evaluated. The torch half is skipped (one
line) without python3-torch. Usage: tests/interop_example.py path/to/pe-bench; exit 0 when the
examples run, 1 otherwise."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

binary = sys.argv[1]
doc = open("docs/interop.md").read()
python_blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
if len(python_blocks) < 2:
    sys.exit("interop_example: docs/interop.md lacks its python blocks")
failed = False
made = ["/tmp/rope", "/tmp/rope-tuned", "/tmp/rope-tuned.json", "/tmp/rope-tuned-eval.json"]


def clean():
    for p in made:
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)


def shell(block):
    for line in block.strip().splitlines():
        args = shlex.split(line.split("#")[0])
        if args and args[0] == "pe-bench":
            subprocess.run([binary] + args[1:], check=True, stdout=subprocess.DEVNULL)


clean()
try:
    # 1. the numpy block
    subprocess.run([binary, "export", "--checkpoint", "results/charlm/runs/charlm/rope/seed0/checkpoint.json",
                    "--out", "/tmp/rope"], check=True, stdout=subprocess.DEVNULL)
    run = subprocess.run([sys.executable, "-c", python_blocks[0]], capture_output=True, text=True)
    want = "rope (28, 128) (384, 128)"
    if run.returncode != 0 or run.stdout.strip() != want:
        print("interop_example: FAIL: the numpy example printed %r (stderr %r), expected %r" %
              (run.stdout, run.stderr[-300:], want))
        failed = True
    else:
        print("interop_example: the numpy example runs as typed and prints " + want)
    # 2. to PyTorch and back
    clean()
    try:
        import torch  # noqa: F401
    except ImportError:
        print("interop_example: the PyTorch example is skipped: python3-torch is not installed")
        sys.exit(1 if failed else 0)
    section = doc[doc.index("### From pe-bench to PyTorch and back"):]
    sh = re.findall(r"```sh\n(.*?)```", section, re.S)
    shell(sh[0])
    run = subprocess.run(["/usr/bin/python3", "-c", python_blocks[1]], capture_output=True, text=True)
    want = "torch.Size([1, 10, 28])"
    if run.returncode != 0 or run.stdout.strip() != want:
        print("interop_example: FAIL: the PyTorch example printed %r (stderr %r), expected %r" %
              (run.stdout, run.stderr[-300:], want))
        failed = True
    else:
        shell(sh[1])
        cp = json.load(open("/tmp/rope-tuned.json"))
        ev = json.load(open("/tmp/rope-tuned-eval.json"))
        ppl = ev["rows"][0]["perplexity"]
        if cp["training"].get("pytorch") != {"steps": 1, "lr": 1e-3} or len(ppl) != 3:
            print("interop_example: FAIL: the imported checkpoint or its evaluation is not as expected")
            failed = True
        else:
            print("interop_example: the PyTorch example runs as typed: one step in PyTorch, imported, read at "
                  "128/256/512: perplexity %s" % ", ".join("%.3f" % p for p in ppl))
finally:
    clean()
sys.exit(1 if failed else 0)
