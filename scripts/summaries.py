"""What the study summaries share (scripts/charlm_draws_summary.py, hybrids_summary.py,
rope_base_summary.py, txl_memory_summary.py): summary.json and summary.md written as one set, the
Markdown table rows and the cells they repeat, and the one-line failure.
Imported by those scripts from their own folder; needs nothing outside Python's standard library."""
import json
import os
import sys


def fail(script, message, code=1):
    """Ends the run with one line on stderr, `script: message`."""
    print("%s: %s" % (script, message), file=sys.stderr)
    sys.exit(code)


def write_set(folder, summary, lines, report=True, stem="summary"):
    """folder/summary.json (summary, indented by 1) and folder/summary.md (the Markdown lines) as one set:
    both are written to temporaries beside them and renamed into place only when both are whole, so a
    failed write leaves the old pair and no temporary. report: say so on stdout. stem: another name
    than summary for the pair."""
    texts = [(stem + ".json", json.dumps(summary, indent=1) + "\n"), (stem + ".md", "\n".join(lines) + "\n")]
    done = []
    try:
        for name, text in texts:
            tmp = os.path.join(folder, ".%s.tmp.%d" % (name, os.getpid()))
            done.append((tmp, os.path.join(folder, name)))
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)
        for tmp, target in done:
            os.replace(tmp, target)
    except BaseException:
        for tmp, _ in done:
            try:
                os.remove(tmp)
            except OSError:
                pass
        raise
    if report:
        print("wrote %s/%s.json and %s.md" % (folder, stem, stem))


def load_json(script, path):
    """The JSON file at path; one line naming it (fail) when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(script, "cannot read %s (%s)" % (path, e))


def policy_results(script, folder, prefix, policies, what):
    """({policy: results} of folder/<prefix><policy>/results.json for those that exist, [policies not yet
    run], {policy: path}); fail, naming `what`, when none exists."""
    found, missing, paths = {}, [], {}
    for p in policies:
        path = os.path.join(folder, prefix + p, "results.json")
        if os.path.exists(path):
            found[p], paths[p] = load_json(script, path), path
        else:
            missing.append(p)
    if not found:
        fail(script, "no %s under %s: run scripts/packing.sh first" % (what, folder))
    return found, missing, paths


def mean_pm(m, h, digits=2):
    """A mean ± the half-width of its 95% interval; a dash for a missing mean."""
    return "—" if m is None else "%.*f ± %.*f" % (digits, m, digits, h or 0.0)


def mean_interval(m, lo, hi, digits):
    """A proportion: the mean [its 95% interval] (pe-bench's, on the logit scale: docs/results-format.md);
    the mean alone without one; a dash for a missing mean."""
    if m is None:
        return "—"
    if lo is None:
        return "%.*f" % (digits, m)
    return "%.*f [%.*f, %.*f]" % (digits, m, digits, lo, digits, hi)


def row(cells):
    """One Markdown table row."""
    return "| %s |" % " | ".join(str(c) for c in cells)


def head(columns):
    """A Markdown table's header row and its rule."""
    return [row(columns), "|" + "---|" * len(columns)]
