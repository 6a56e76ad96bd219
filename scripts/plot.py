#!/usr/bin/python3
"""Figures from pe-bench's results files, as PNG and SVG: the entry point of scripts/plots/ (the
figures, their table and the command line). `scripts/plot.py --help` lists every figure and option;
`make plots` runs it on the committed results. Needs Debian's python3-matplotlib: run it with
/usr/bin/python3 (the shebang), not a python3 of its own such as pyenv's."""
import importlib
import os
import signal
import sys

sys.dont_write_bytecode = True  # the package leaves no __pycache__ in the source tree


def interrupted(signum, frame):
    raise KeyboardInterrupt


def matplotlib_missing():
    """One line saying what this python3 lacks and how to get it; None when matplotlib imports."""
    try:
        importlib.import_module("matplotlib")
    except ImportError as e:
        return ("plot.py: this python3 (%s) cannot import matplotlib (%s); run /usr/bin/python3 scripts/plot.py "
                "with Debian's python3-matplotlib (apt-get install python3-matplotlib, or scripts/install-deps.sh)"
                % (sys.executable, e))
    return None


if __name__ == "__main__":
    missing = matplotlib_missing()
    if missing:
        print(missing, file=sys.stderr)
        sys.exit(3)  # plots/cli.py: EXIT_NO_MATPLOTLIB
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from plots import cli
    signal.signal(signal.SIGTERM, interrupted)  # SIGTERM too removes the temporary files in flight
    try:
        sys.exit(cli.main())
    except KeyboardInterrupt:
        print("plot.py: interrupted; no temporary file is left", file=sys.stderr)
        sys.exit(cli.EXIT_INTERRUPTED)
