"""The command line of scripts/plot.py: its options, --only and --help from the table (table.py);
every input read and checked before anything is drawn; each figure written whole or not at all; one
line on stderr for any error."""
import argparse
import errno
import os
import sys
import textwrap
import warnings

from .load import ABSENT, DataError
from .style import DPI, plt
from .table import FIGURES, NAMES, OPTIONS

EXIT_USAGE, EXIT_DATA, EXIT_OUTPUT, EXIT_INTERRUPTED = 2, 4, 5, 130
EXIT_NO_MATPLOTLIB = 3  # scripts/plot.py says so before importing this package
ABOUT = "Figures from pe-bench's results files, as PNG and SVG (headless matplotlib)."
RULES = """\
A figure whose input file is absent, or holds nothing it draws, is skipped with a note. Every input
file is read and checked before anything is drawn: a file that is not strict JSON (truncated, NaN) or
lacks what a figure reads (a missing key, a wrong type, a value out of range, lists of different
lengths) ends the run with one line on stderr, `plot.py: FILE: what is wrong; how to fix it`, naming
the place in the file, and nothing is written. Each figure's PNG and SVG are rendered into temporary
files beside them and renamed into place only when both are whole, so a failed write (a full disk)
leaves the old figures and no temporary file. Needs Debian's python3-matplotlib (/usr/bin/python3)."""
EXIT_CODES = """\
Exit codes:
  0    every figure asked for was drawn, or skipped with a note
  2    usage: an unknown option or figure name
  3    this python3 has no matplotlib (the line says what to install or which python3 to run)
  4    an input file that cannot be read or is not what its figures need (the line names it)
  5    an output that cannot be written (disk full, no permission); no partial or temporary file is left
  130  interrupted (SIGINT or SIGTERM); temporary files are removed
"""


def figure_list():
    """--help's list of figures, one entry per figure of the table: name, what it shows, its input and
    how that is made again."""
    lines = []
    for f in FIGURES.values():
        text = "%s (%s; %s)" % (f.help, f.where(), f.maker)
        first = "  %-17s " % f.name if len(f.name) <= 17 else "  %s  " % f.name
        lines += textwrap.wrap(text, 108, initial_indent=first, subsequent_indent=" " * 20, break_on_hyphens=False)
    return "\n".join(lines)


def description():
    return ("%s\n`make plots` runs it on the committed results. Figures (NAME.png and NAME.svg under --out):\n%s\n\n%s"
            % (ABOUT, figure_list(), RULES))


class OutputError(Exception):
    """A figure file that cannot be written: path and the system's reason."""

    def __init__(self, path, err):
        super().__init__(path)
        self.path, self.reason = path, err.strerror or str(err)
        self.full = err.errno in (errno.ENOSPC, errno.EDQUOT)


def save(fig, out, name):
    """out/NAME.png and out/NAME.svg: both are rendered into temporary files in out (same file system)
    and renamed over the old ones only when both are whole. On any failure, an interruption included,
    the temporary files are removed and the old figures stay; a failed write raises OutputError."""
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        raise OutputError(out, e) from None
    if not getattr(fig, "pe_laid_out", False):  # a figure that placed its own axes keeps them
        fig.tight_layout()
    done, target = [], out
    try:
        for ext in ("png", "svg"):
            target = os.path.join(out, name + "." + ext)
            tmp = os.path.join(out, ".%s.tmp.%d.%s" % (name, os.getpid(), ext))
            done.append((tmp, target))
            with open(tmp, "wb") as f:
                fig.savefig(f, dpi=DPI, format=ext, metadata={"Date": None} if ext == "svg" else {"Software": None})
                f.flush()
                os.fsync(f.fileno())
        for tmp, target in done:
            os.replace(tmp, target)  # whole or absent
    except BaseException as e:
        for tmp, _ in done:
            try:
                os.remove(tmp)
            except OSError:
                pass
        if isinstance(e, OSError):
            raise OutputError(target, e) from None
        raise
    print("wrote %s/%s.png and .svg" % (out, name))


def say(path, what, fix):
    """The one line of an error, on stderr."""
    line = "plot.py: %s: %s; %s" % (path, what, fix)
    print(" ".join(line.split()), file=sys.stderr)  # one line, whatever an exception's text holds


def data_fix(name):
    return ("regenerate it with %s (the format: docs/results-format.md), or leave %s out with --only"
            % (FIGURES[name].maker, name))


def unexpected(e):
    text = " ".join(str(e).split())
    return "%s%s" % (type(e).__name__, ": " + text[:200] if text else "")


def one_line_warning(message, category, filename, lineno, line=None):
    return "plot.py: warning: %s\n" % " ".join(str(message).split())


def main(argv=None):
    """Draws the figures; returns the exit code (EXIT_CODES)."""
    warnings.formatwarning = one_line_warning  # matplotlib's warnings, if any, as one line each
    p = argparse.ArgumentParser(prog="plot.py", description=description(), epilog=EXIT_CODES,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    for o in OPTIONS:
        p.add_argument(o.flag, default=o.default, help=o.help or "default: %s" % o.default)
    p.add_argument("--out", default="results/figures", help="default: results/figures")
    p.add_argument("--only", default=None,
                   help="comma-separated figure names (default: every figure): " + ", ".join(NAMES))
    a = p.parse_args(argv)
    # an empty value is not "not given": `--only ''` once redrew every figure, `--out ''` would write into
    # the working directory; refuse it by name, as pe-bench does
    for dest, value in sorted(vars(a).items()):
        if value is not None and not value.strip():
            print("plot.py: --%s: an empty value; give one, or leave the option out for its default"
                  % dest.replace("_", "-"), file=sys.stderr)
            return EXIT_USAGE
    if a.geometry is None:
        a.geometry = os.path.join(os.path.dirname(a.tournament), "geometry.json")
    names = a.only.split(",") if a.only is not None else NAMES
    for n in names:
        if not n:
            print("plot.py: --only: an empty figure name in '%s' (known: %s)" % (a.only, ", ".join(NAMES)),
                  file=sys.stderr)
            return EXIT_USAGE
        if n not in FIGURES:
            print("plot.py: unknown figure '%s' (known: %s)" % (n, ", ".join(NAMES)), file=sys.stderr)
            return EXIT_USAGE
    plt.rcParams["svg.hashsalt"] = "pe-bench"  # the same SVG bytes from the same results
    # every input read and checked first: a bad one ends the run before anything is written
    loaded, plan = {}, []
    for n in names:
        figure = FIGURES[n]
        path = figure.input(a)
        try:
            if path not in loaded:
                loaded[path] = figure.read(path)
            data = loaded[path]
            if data is not ABSENT:
                figure.check(data)
        except DataError as e:
            say(path, e, data_fix(n))
            return EXIT_DATA
        except Exception as e:  # a shape no check foresaw: still one line naming the file
            say(path, "cannot be read for figure %s (%s)" % (n, unexpected(e)), data_fix(n))
            return EXIT_DATA
        plan.append((n, path, data))
    for n, path, data in plan:
        if data is ABSENT:
            print("skipped %s: its input file %s is absent" % (n, path))
            continue
        before = set(plt.get_fignums())
        try:
            fig = FIGURES[n].draw(data)
            if isinstance(fig, str):
                print("skipped %s: %s has %s" % (n, path, fig))
                continue
            save(fig, a.out, n)
        except OutputError as e:
            say(e.path, "cannot be written (%s)" % e.reason,
                "free some space, or choose another --out" if e.full else "choose another --out")
            return EXIT_OUTPUT
        except DataError as e:
            say(path, e, data_fix(n))
            return EXIT_DATA
        except Exception as e:  # the last resort: drawing failed on values no check foresaw
            say(path, "figure %s cannot be drawn from it (%s)" % (n, unexpected(e)), data_fix(n))
            return EXIT_DATA
        finally:  # every figure this one opened, drawn or not
            for num in set(plt.get_fignums()) - before:
                plt.close(num)
    return 0
