#!/usr/bin/env python3
"""Architecture checks over the sources (docs/architecture.md, "Layers"):

1. Every #include arrow points down: core -> schemes -> models / theory / harness -> tasks -> lab -> cli ->
   main.cpp. A file may include its own layer or any layer below it, never one above; and a task's
   folder includes no other task's folder except the dependencies listed below.
2. No task name appears outside its own folder (as a string literal, e.g. "cue"), and no map name is
   compared outside the map table (src/schemes/frequency_maps.cpp): a literal map name next to == or
   != appears nowhere else.

Usage: tests/architecture.py [repository root]; exit 0 when both hold, 1 with one line per finding.
"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
SRC = os.path.join(ROOT, "src")
RANK = {"core": 0, "schemes": 1, "models": 2, "theory": 2, "harness": 2, "tasks": 3, "lab": 3.5, "cli": 4}
# A task built on another task's pieces (the filings study trains and reads the tournament's head with
# the cue task's trainer and checkpoint code, and reads cue runs for its horizon table).
TASK_DEPENDENCIES = {("filings", "cue")}

def layer_of(rel):
    parts = rel.split("/")
    if len(parts) == 1:
        return "main", None
    task = parts[1] if parts[0] == "tasks" and len(parts) > 2 else None
    return parts[0], task

def sources():
    for d, _, files in os.walk(SRC):
        for f in sorted(files):
            if f.endswith((".h", ".cpp")):
                path = os.path.join(d, f)
                yield os.path.relpath(path, SRC), open(path, encoding="utf-8").read()

findings = []
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
for rel, text in sources():
    layer, task = layer_of(rel)
    rank = 5 if layer == "main" else RANK.get(layer)
    if rank is None:
        findings.append(f"{rel}: folder '{layer}' has no place in the layers {sorted(RANK)}")
        continue
    for target in include.findall(text):
        if not os.path.exists(os.path.join(SRC, target)):
            continue  # a generated header (build/generated)
        t_layer, t_task = layer_of(target)
        t_rank = 5 if t_layer == "main" else RANK.get(t_layer, 99)
        if t_rank > rank:
            findings.append(f"{rel}: includes {target}, a layer above ({layer} -> {t_layer})")
        if task and t_task and task != t_task and (task, t_task) not in TASK_DEPENDENCIES:
            findings.append(f"{rel}: the {task} task includes the {t_task} task's {target}")

# the registered names: tasks from their entries, maps from the map table
tasks = set()
for rel, text in sources():
    if rel.startswith("tasks/") and rel.endswith("/entry.cpp"):
        tasks.update(re.findall(r'std::string name\(\) const override \{ return "([a-z_]+)"; \}', text))
maps_src = open(os.path.join(SRC, "schemes/frequency_maps.cpp"), encoding="utf-8").read()
maps = set(re.findall(r'entry\(\s*"([a-z0-9_\-]+)"', maps_src)) | \
    set(re.findall(r'\.name = (?:[a-z_]+\.spelling = )?"([a-z0-9_\-]+)"', maps_src))
if len(tasks) < 3 or len(maps) < 4:
    findings.append(f"could not read the registries (tasks {sorted(tasks)}, maps {sorted(maps)})")
# a task's name as a string anywhere outside its folder (or a folder that depends on it)
for rel, text in sources():
    layer, task = layer_of(rel)
    for name in tasks:
        if task == name or (task, name) in TASK_DEPENDENCIES:
            continue
        for m in re.finditer(r'"' + name + r'"', text):
            line = text.count("\n", 0, m.start()) + 1
            findings.append(f"{rel}:{line}: names the task \"{name}\" outside src/tasks/{name}/")
compare = re.compile(r'(==|!=)\s*"([a-z0-9_\-]+)"|"([a-z0-9_\-]+)"\s*(==|!=)')
for rel, text in sources():
    layer, task = layer_of(rel)
    for m in compare.finditer(text):
        name = m.group(2) or m.group(3)
        line = text.count("\n", 0, m.start()) + 1
        if name in tasks and task != name:
            findings.append(f"{rel}:{line}: compares with the task name \"{name}\" outside src/tasks/{name}/")
        if name in maps and rel != "schemes/frequency_maps.cpp" and not (layer == "schemes" and name == "none"):
            findings.append(f"{rel}:{line}: compares with the map name \"{name}\" outside the map table")

for f in findings:
    print("architecture:", f)
print(f"architecture: {len(findings)} finding(s) over the sources of {len(tasks)} tasks and {len(maps)} maps")
sys.exit(1 if findings else 0)
