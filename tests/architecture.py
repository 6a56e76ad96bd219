#!/usr/bin/env python3
"""Architecture checks over the sources (docs/architecture.md, "Layers"):

1. Every #include arrow points down: core -> schemes -> models / theory -> harness -> exercises -> tasks -> lab -> cli ->
   main.cpp. A file may include its own layer or any layer below it, never one above; and a task's
   folder includes no other task's folder except the dependencies listed below.
2. No call goes up at link level either: a free function of namespace pe defined only in a layer above
   (or in another task's folder) is neither called nor declared in a file below it. The harness reaches
   the tasks through the table they register (harness/task_registry.h), never by a function's name.
3. No task name appears outside its own folder (as a string literal, e.g. "cue"), and no map name is
   compared outside the map table (src/schemes/frequency_maps.cpp): a literal map name next to == or
   != appears nowhere else.
4. The layout .clang-format gives (run `make format`): in src/, tests/ and bench/, no line past 120
   columns outside a raw string literal, and every block of #include lines sorted as clang-format
   sorts it (the file's own header first, then <...h>, then other <...>, then "...", each by name).

Usage: tests/architecture.py [repository root]; exit 0 when all hold, 1 with one line per finding.
       tests/architecture.py --self-test [repository root]: plants an upward include, a call from the
       harness into a task's function, a long line and an unsorted include block in a copy of src/ and
       fails unless the check reports each.
"""
import os
import re
import shutil
import sys
import tempfile

RANK = {"core": 0, "schemes": 1, "models": 2, "theory": 2, "harness": 3, "exercises": 3.5, "tasks": 4, "lab": 4.5, "cli": 5,
        "main": 6}
# A task built on another task's pieces (the filings study trains and reads the tournament's head with
# the cue task's trainer and checkpoint code, and reads cue runs for its horizon table).
TASK_DEPENDENCIES = {("filings", "cue"), ("direction", "cue")}


def layer_of(rel):
    parts = rel.split("/")
    if len(parts) == 1:
        return "main", None
    task = parts[1] if parts[0] == "tasks" and len(parts) > 2 else None
    return parts[0], task


def sources(src):
    for d, _, files in sorted(os.walk(src)):
        for f in sorted(files):
            if f.endswith((".h", ".cpp")):
                path = os.path.join(d, f)
                yield os.path.relpath(path, src), open(path, encoding="utf-8").read()


# ---- the code without comments, literals and preprocessor lines (same length, same line breaks)

def blank(m):
    return re.sub(r"[^\n]", " ", m.group(0))


CODE_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|R"([^(\s]*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|'
                        r"'(?:\\.|[^'\\\n])*'|^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.S | re.M)


def code_only(text):
    return CODE_NOISE.sub(blank, text)


# ---- free functions: where each is defined, and the names each file calls or declares

KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "catch", "decltype", "alignof", "static_assert",
            "throw", "new", "delete", "case", "else", "do", "co_return", "noexcept", "operator", "defined",
            "alignas", "typeid", "static_cast", "const_cast", "reinterpret_cast", "dynamic_cast", "requires"}
IDENT_BEFORE_PAREN = re.compile(r"([A-Za-z_]\w*)\s*(<[^()]*>)?\s*$")


def top_level_paren(header):
    """Index of the first '(' of `header` outside <...> nesting, or -1."""
    depth = 0
    for i, c in enumerate(header):
        if c == "<":
            depth += 1
        elif c == ">" and depth:
            depth -= 1
        elif c == "(" and depth == 0:
            return i
    return -1


def function_name(header):
    """(name, qualified) of the function a declaration/definition header names, or (None, False)."""
    p = top_level_paren(header)
    if p < 0 or "=" in re.sub(r"\([^()]*\)", "", header[:p]):
        return None, False
    m = IDENT_BEFORE_PAREN.search(header[:p])
    if not m or m.group(1) in KEYWORDS or "operator" in header[:p]:
        return None, False
    return m.group(1), header[:m.start(1)].rstrip().endswith("::")


CLASS_HEADER = re.compile(r"(template\s*<.*>\s*)?(typedef\s+)?(class|struct|union|enum)\b", re.S)


class Scan:
    """One file's free-function definitions (external and file-local), member names, and call sites."""

    def __init__(self, text):
        code = code_only(text)
        self.defined = set()  # free functions of namespace pe with external linkage
        self.local = set(re.findall(r"\b([A-Za-z_]\w*)\s*=\s*\[", code))  # file-local names; lambdas
        self.members = set()  # member functions declared or defined here
        stack = []  # scope kinds: ("ns", name) | ("class",) | ("block",)
        scopes = []  # (offset of a brace, the kind of scope after it)
        start = 0
        for i, c in enumerate(code):
            if c not in "{};":
                continue
            header = code[start:i].strip()
            start = i + 1
            in_class = bool(stack) and stack[-1] == ("class",)
            if c == ";":
                self._header(header, stack, in_class, False)
                continue
            if c == "}":
                if stack:
                    stack.pop()
            elif re.match(r"(?:inline\s+)?namespace\b", header):
                name = re.sub(r"(?:inline\s+)?namespace\b", "", header).strip()
                stack += [("ns", part) for part in (name.split("::") if name else [""])]
            elif re.match(r"extern\s*$", header):  # extern "C" (its literal blanked)
                stack.append(("ns", "extern"))
            elif CLASS_HEADER.match(header) and top_level_paren(header) < 0:
                stack.append(("class",))
            else:
                self._header(header, stack, in_class, True)
                stack.append(("block",))
            scopes.append((i, stack[-1][0] if stack else "ns"))
        self.calls = self._calls(code, scopes)  # (name, offset) of `name(`: a call or a declaration

    def _header(self, header, stack, in_class, body):
        if not in_class and not all(s[0] == "ns" for s in stack):
            return  # a statement in a function body
        name, qualified = function_name(header)
        if not name:
            return
        if in_class or qualified:
            self.members.add(name)
        elif body:
            in_pe = ("ns", "pe") in stack
            if ("ns", "") in stack or re.match(r"static\b", header) or not in_pe:
                self.local.add(name)
            else:
                self.defined.add(name)

    @staticmethod
    def _calls(code, scopes):
        # skipped: a name in a class body (a member's declaration), a member access (`.name(`, `->name(`,
        # `Type::name(`) and, in a function body, `Type name(...)` (a variable)
        calls = []
        k, kind = 0, "ns"
        for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", code):
            while k < len(scopes) and scopes[k][0] < m.start():
                kind = scopes[k][1]
                k += 1
            name = m.group(1)
            if name in KEYWORDS or kind == "class":
                continue
            before = code[max(0, m.start() - 200):m.start()].rstrip()
            if before.endswith(".") or before.endswith("->"):
                continue
            if before.endswith("::"):
                q = re.search(r"(\w+)\s*::$", before)
                if not q or q.group(1) != "pe":
                    continue
                before = before[:q.start()].rstrip()
            prev = re.search(r"([A-Za-z_]\w*|>)$", before)
            if kind == "block" and prev and prev.group(1) not in KEYWORDS:
                continue
            calls.append((name, m.start()))
        return calls


def place_reaches(caller, target):
    """Whether a file at `caller` = (rank, task) may use a definition at `target` = (rank, task)."""
    (rank, task), (t_rank, t_task) = caller, target
    if t_rank < rank:
        return True
    if t_rank > rank:
        return False
    return task is None or t_task is None or task == t_task or (task, t_task) in TASK_DEPENDENCIES


# ---- layout: line length and sorted include blocks, as .clang-format (clang-format 14) leaves them

MAX_COLUMNS = 120
INCLUDE_LINE = re.compile(r'^\s*#\s*include\s*([<"][^>"]+[>"])')
RAW_STRING = re.compile(r'R"([^(\s]*)\(.*?\)\1"', re.S)


def include_key(rel, name, first_block):
    """clang-format's order within a block (Google's categories): the file's own header (in the file's
    first block only), <x.h>, <x>, "x"."""
    stem = os.path.splitext(os.path.basename(rel))[0]
    if first_block and name.startswith('"') and os.path.splitext(os.path.basename(name[1:-1]))[0] == stem:
        return (0, name)
    if name.startswith("<"):
        return (1 if name.endswith('.h>') and not name.startswith("<ext/") else 2, name)
    return (3, name)


def layout(rel, text):
    findings = []
    raw = [(m.start(), m.end()) for m in RAW_STRING.finditer(text)]
    offset = 0
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        end = offset + len(line)
        if len(line) > MAX_COLUMNS and not any(a < end and offset < b for a, b in raw):
            findings.append(f"{rel}:{number}: {len(line)} columns (at most {MAX_COLUMNS}; `make format`)")
        offset = end + 1
    block, first = [], True
    for number, line in enumerate(lines + [""], 1):
        m = INCLUDE_LINE.match(line)
        if m:
            block.append((number, m.group(1)))
            continue
        if not block:
            continue
        names = [name for _, name in block]
        if names != sorted(names, key=lambda n: include_key(rel, n, first)):
            findings.append(f"{rel}:{block[0][0]}: the #include block is not sorted (`make format`)")
        block, first = [], False
    return findings


def layout_files(root):
    for top in ("src", "tests", "bench"):
        for rel, text in sources(os.path.join(root, top)):
            yield f"{top}/{rel}", text


def check(root):
    src = os.path.join(root, "src")
    findings = []
    for rel, text in layout_files(root):
        findings += layout(rel, text)
    files = list(sources(src))
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    for rel, text in files:
        layer, task = layer_of(rel)
        rank = RANK.get(layer)
        if rank is None:
            findings.append(f"{rel}: folder '{layer}' has no place in the layers {sorted(RANK)}")
            continue
        for target in include.findall(text):
            if not os.path.exists(os.path.join(src, target)):
                continue  # a generated header (build/generated)
            t_layer, t_task = layer_of(target)
            t_rank = RANK.get(t_layer, 99)
            if t_rank > rank:
                findings.append(f"{rel}: includes {target}, a layer above ({layer} -> {t_layer})")
            if task and t_task and task != t_task and (task, t_task) not in TASK_DEPENDENCIES:
                findings.append(f"{rel}: the {task} task includes the {t_task} task's {target}")

    # link-level arrows: every free function's places of definition, then each file's calls
    scans = {rel: Scan(text) for rel, text in files if layer_of(rel)[0] in RANK}
    defined_at = {}
    for rel, s in scans.items():
        layer, task = layer_of(rel)
        for name in s.defined:
            defined_at.setdefault(name, {}).setdefault((RANK[layer], task), rel)
    texts = dict(files)
    for rel, s in scans.items():
        layer, task = layer_of(rel)
        here = (RANK[layer], task)
        text = texts[rel]
        reported = set()
        for name, offset in s.calls:
            places = defined_at.get(name)
            if not places or name in s.defined or name in s.local or name in s.members or name in reported:
                continue
            if any(place_reaches(here, p) for p in places):
                continue
            reported.add(name)
            where = sorted(places.values())[0]
            line = text.count("\n", 0, offset) + 1
            findings.append(f"{rel}:{line}: calls or declares {name}(), defined only above it (in {where})")

    # the registered names: tasks from their entries, maps from the map table
    tasks = set()
    for rel, text in files:
        if rel.startswith("tasks/") and rel.endswith("/entry.cpp"):
            tasks.update(re.findall(r'std::string name\(\) const override \{ return "([a-z_]+)"; \}', text))
        # a probe (harness/probe_task.h) names itself in its ProbeKind, in its own folder
        if rel.startswith("tasks/") and rel.count("/") == 2:
            folder = rel.split("/")[1]
            if re.search(r'\.name = "' + folder + '";', text):
                tasks.add(folder)
    maps_src = open(os.path.join(src, "schemes/frequency_maps.cpp"), encoding="utf-8").read()
    maps = set(re.findall(r'entry\(\s*"([a-z0-9_\-]+)"', maps_src)) | \
        set(re.findall(r'\.name = (?:[a-z_]+\.spelling = )?"([a-z0-9_\-]+)"', maps_src))
    if len(tasks) < 3 or len(maps) < 4:
        findings.append(f"could not read the registries (tasks {sorted(tasks)}, maps {sorted(maps)})")
    # a task's name as a string anywhere outside its folder (or a folder that depends on it)
    for rel, text in files:
        layer, task = layer_of(rel)
        for name in sorted(tasks):
            if task == name or (task, name) in TASK_DEPENDENCIES:
                continue
            for m in re.finditer(r'"' + name + r'"', text):
                line = text.count("\n", 0, m.start()) + 1
                findings.append(f"{rel}:{line}: names the task \"{name}\" outside src/tasks/{name}/")
    compare = re.compile(r'(==|!=)\s*"([a-z0-9_\-]+)"|"([a-z0-9_\-]+)"\s*(==|!=)')
    for rel, text in files:
        layer, task = layer_of(rel)
        for m in compare.finditer(text):
            name = m.group(2) or m.group(3)
            line = text.count("\n", 0, m.start()) + 1
            if name in tasks and task != name:
                findings.append(f"{rel}:{line}: compares with the task name \"{name}\" outside src/tasks/{name}/")
            if name in maps and rel != "schemes/frequency_maps.cpp" and not (layer == "schemes" and name == "none"):
                findings.append(f"{rel}:{line}: compares with the map name \"{name}\" outside the map table")
    summary = f"{len(findings)} finding(s) over the sources of {len(tasks)} tasks and {len(maps)} maps"
    return findings, summary, defined_at


def self_test(root):
    """The check fails on an upward include, a call from the harness into a task by name, a long line and
    an unsorted include block."""
    with tempfile.TemporaryDirectory(prefix="pe-architecture-") as tmp:
        shutil.copytree(os.path.join(root, "src"), os.path.join(tmp, "src"))
        before, _, defined_at = check(tmp)
        # a free function only the tasks define (a task's entry point, e.g. cue_task)
        task_functions = sorted(n for n, places in defined_at.items()
                                if all(r == RANK["tasks"] for r, _ in places))
        if not task_functions:
            return ["self-test: found no free function defined in src/tasks/ to call"]
        name = "cue_task" if "cue_task" in task_functions else task_functions[0]
        with open(os.path.join(tmp, "src/models/block_stack.cpp"), "a", encoding="utf-8") as f:
            f.write('\n#include "harness/run.h"\n')
        with open(os.path.join(tmp, "src/harness/run.cpp"), "a", encoding="utf-8") as f:
            f.write(f"\nnamespace pe {{\n\nconst Task& {name}();\n\nvoid planted() {{ {name}().name(); }}\n\n"
                    "}  // namespace pe\n")
        # and what is not a call up: a member of that name, reached through an object or a class
        with open(os.path.join(tmp, "src/harness/run_dir.cpp"), "a", encoding="utf-8") as f:
            f.write(f"\nnamespace pe {{\n\nstruct Planted {{\n  int {name}(int) const;\n}};\n\n"
                    f"int planted(const Planted& p) {{ return p.{name}(1) + Planted::{name}(2); }}\n\n"
                    "}  // namespace pe\n")
        # and a line past the limit and an unsorted include block
        with open(os.path.join(tmp, "src/core/errors.h"), "a", encoding="utf-8") as f:
            f.write("\n#include <vector>\n#include <string>\n\n// " + "x" * MAX_COLUMNS + "\n")
        after, _, _ = check(tmp)
        new = [f for f in after if f not in before]
        expected = {"upward include": lambda f: f.startswith("models/block_stack.cpp: includes harness/run.h"),
                    f"call into the tasks ({name})": lambda f: f.startswith("harness/run.cpp:") and f"{name}()" in f,
                    "long line": lambda f: f.startswith("src/core/errors.h:") and "columns" in f,
                    "unsorted include block": lambda f: f.startswith("src/core/errors.h:") and "not sorted" in f}
        problems = [f"self-test: the planted {what} was not reported" for what, hit in expected.items()
                    if not any(hit(f) for f in new)]
        problems += [f"self-test: a member call was reported: {f}" for f in new if f.startswith("harness/run_dir.cpp")]
        for f in new:
            print("architecture: self-test: reported as planted:", f)
        return problems


def main(argv):
    test = "--self-test" in argv
    args = [a for a in argv if a != "--self-test"]
    root = args[0] if args else os.getcwd()
    if test:
        problems = self_test(root)
        for p in problems:
            print("architecture:", p)
        print(f"architecture: self-test {'failed' if problems else 'passed'}")
        return 1 if problems else 0
    findings, summary, _ = check(root)
    for f in findings:
        print("architecture:", f)
    print("architecture:", summary)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
