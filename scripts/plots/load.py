"""Reading and checking the input files: one strict JSON reader and the schema pieces every figure's
check is written in. A file that is not strict JSON, or lacks what a figure reads, raises DataError
naming the place; nothing here draws, so this module needs no matplotlib."""
import json
import math
import os


class DataError(Exception):
    """An input file that is not what a figure reads; the text says what is wrong and where."""


def describe(v):
    """A JSON value in a few words, for messages."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "the boolean %s" % ("true" if v else "false")
    if isinstance(v, (int, float)):
        s = repr(v)
        return "the number " + (s if len(s) <= 24 else s[:20] + "...")
    if isinstance(v, str):
        s = json.dumps(v)
        return "the string " + (s if len(s) <= 32 else s[:28] + '..."')
    if isinstance(v, list):
        return "a list of %d" % len(v) if v else "an empty list"
    return "an object" if v else "an empty object"


def at(path):
    return path or "the top level"


def bound(x):
    return "%d" % x if float(x).is_integer() and abs(x) < 1e15 else "%g" % x


class Num:
    """A number (never a boolean); integer: a JSON integer; lo/hi: inclusive bounds; above: exclusive."""

    def __init__(self, lo=None, hi=None, above=None, integer=False, null=False):
        self.lo, self.hi, self.above, self.integer, self.null = lo, hi, above, integer, null

    def expected(self):
        s = "an integer" if self.integer else "a number"
        if self.above is not None:
            s += " above %s" % bound(self.above)
        if self.lo is not None and self.hi is not None:
            s += " from %s to %s" % (bound(self.lo), bound(self.hi))
        elif self.lo is not None:
            s += " of at least %s" % bound(self.lo)
        elif self.hi is not None:
            s += " of at most %s" % bound(self.hi)
        return s + (" or null" if self.null else "")

    def check(self, v, path):
        if v is None and self.null:
            return
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and (isinstance(v, int) or not self.integer)
        if ok:
            try:
                x = float(v)
            except OverflowError:
                ok = False
            else:
                ok = (math.isfinite(x) and (self.lo is None or x >= self.lo) and (self.hi is None or x <= self.hi)
                      and (self.above is None or x > self.above))
        if not ok:
            raise DataError("%s is %s, expected %s" % (at(path), describe(v), self.expected()))


class Str:
    def check(self, v, path):
        if not isinstance(v, str):
            raise DataError("%s is %s, expected a string" % (at(path), describe(v)))


class Bool:
    def check(self, v, path):
        if not isinstance(v, bool):
            raise DataError("%s is %s, expected true or false" % (at(path), describe(v)))


class Any:
    def check(self, v, path):
        pass


class List:
    """A list of items; n: its exact length (why: what the length must match); most: at most that many."""

    def __init__(self, item, n=None, why="", nonempty=False, most=None, null=False):
        self.item, self.n, self.why, self.nonempty, self.most, self.null = item, n, why, nonempty, most, null

    def check(self, v, path):
        if v is None and self.null:
            return
        if not isinstance(v, list):
            raise DataError("%s is %s, expected a list" % (at(path), describe(v)))
        if self.n is not None and len(v) != self.n:
            raise DataError("%s has %d entries, expected %d%s" % (at(path), len(v), self.n, self.why))
        if self.nonempty and not v:
            raise DataError("%s is an empty list, expected at least one entry" % at(path))
        if self.most is not None and len(v) > self.most:
            raise DataError("%s has %d entries, at most %d can be drawn" % (at(path), len(v), self.most))
        for i, x in enumerate(v):
            self.item.check(x, "%s[%d]" % (path, i))


class Obj:
    """An object with these keys (a key ending in '?' may be absent); other keys are ignored."""

    def __init__(self, fields, null=False):
        self.fields, self.null = fields, null

    def check(self, v, path):
        if v is None and self.null:
            return
        if not isinstance(v, dict):
            raise DataError("%s is %s, expected an object" % (at(path), describe(v)))
        for key, schema in self.fields.items():
            optional = key.endswith("?")
            key = key.rstrip("?")
            if key not in v:
                if optional:
                    continue
                raise DataError('%s has no key "%s"' % (at(path), key))
            schema.check(v[key], "%s.%s" % (path, key) if path else key)


class Map:
    """An object whose every value follows one schema (keys are names: schemes, maps, kappas)."""

    def __init__(self, value):
        self.value = value

    def check(self, v, path):
        if not isinstance(v, dict):
            raise DataError("%s is %s, expected an object" % (at(path), describe(v)))
        for key, x in v.items():
            self.value.check(x, "%s.%s" % (path, key) if path else key)


class Unreadable:
    """A value strict JSON does not hold (NaN, Infinity, a number beyond a double), kept in place while
    parsing so that the error can name where it is."""

    def __init__(self, what):
        self.what = what


def find_unreadable(v, path=""):
    if isinstance(v, Unreadable):
        return path, v
    items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
    for k, x in items:
        found = find_unreadable(x, ("%s.%s" % (path, k) if path else k) if isinstance(k, str) else "%s[%d]" % (path, k))
        if found:
            return found
    return None


ABSENT = object()  # load's answer for a file that does not exist
MAX_READ_BYTES = 1 << 30  # the bound on one file, as pe-bench's (core/files.h, kMaxReadBytes)


def load(path):
    """The JSON value in path, or ABSENT when there is no such file. Strict JSON only: NaN, Infinity,
    numbers beyond a double and text that is not UTF-8 JSON are refused (DataError, naming the place)."""
    if not path or not os.path.exists(path):
        return ABSENT
    if os.path.isdir(path):
        raise DataError("a directory, not a file") from None
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_READ_BYTES + 1)  # bounded, as pe-bench's readers are: /dev/zero has no end
    except OSError as e:
        raise DataError("cannot be read: %s" % (e.strerror or e)) from None
    if len(raw) > MAX_READ_BYTES:
        raise DataError("holds more than %d MiB, more than a results file can" % (MAX_READ_BYTES >> 20)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DataError("not UTF-8 text (byte %d of %d)" % (e.start, len(raw))) from None
    if not text.strip():
        raise DataError("an empty file") from None
    odd = []

    def unreadable(what):
        odd.append(what)
        return Unreadable(what)

    def constant(name):
        return unreadable("%s, which is not a JSON number (pe-bench writes null for a missing value)" % name)

    def number(text):
        x = float(text)
        return x if math.isfinite(x) else unreadable("the number %s, beyond the range of a double" % text[:24])

    def unique_keys(pairs):  # a key twice in one object: the last would silently win
        seen = {}
        for k, v in pairs:
            if k in seen:
                unreadable("an object with the key %r twice" % k)
            seen[k] = v
        return seen

    def integer(text):
        return int(text) if len(text) <= 4000 else unreadable("an integer of %d digits" % len(text.lstrip("-")))

    try:
        v = json.loads(text, parse_constant=constant, parse_float=number, parse_int=integer,
                       object_pairs_hook=unique_keys)
    except json.JSONDecodeError as e:
        cut = e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string")
        raise DataError("not valid JSON: %s at line %d column %d%s" % (e.msg.removesuffix(" at"), e.lineno, e.colno,
                                                                      ", perhaps cut short" if cut else "")) from None
    except RecursionError:
        raise DataError("JSON nested too deep to read") from None
    if odd:
        found = find_unreadable(v)
        where, what = found if found else ("", Unreadable(odd[0]))
        raise DataError("%s is %s" % (at(where), what.what))
    return v


def load_each(folder, names, file_of=lambda name: os.path.join(name, "results.json")):
    """{name: results} for the names whose file_of(name) (by default <name>/results.json) is in the folder
    (a folder of experiments read together: the direction rules, experiments/logn/'s tasks; the exercises'
    answers); ABSENT when none is."""
    found = {}
    for name in names:
        path = os.path.join(folder, file_of(name))
        try:
            r = load(path)
        except DataError as e:
            raise DataError("%s: %s" % (path, e)) from None
        if r is not ABSENT:
            found[name] = r
    return found or ABSENT


LENGTH = Num(lo=1, hi=2 ** 31, integer=True)
LENGTHS = List(LENGTH, nonempty=True)
ACCURACY = Num(lo=0, hi=1, null=True)
HALF_WIDTH = Num(lo=0, hi=1e6, null=True)  # a 95% interval's half-width: never negative
