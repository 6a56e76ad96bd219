"""RoPE frequencies from a Transformers rope_scaling dictionary, written from the formulas in
docs/schemes.md ("The practitioners' maps"), independently of pe-bench's C++: a check batch read under
a map states both pe-bench's per-plane theta and the dictionary, and the twin can take either."""
import math


def _ramp(x, lo, hi):
    return min(max((x - lo) / (hi - lo), 0.0), 1.0)


def inverse_frequencies(scaling, dim, base, original, length, rotating=None):
    """(theta_j for j < dim/2, attention factor a) of a head of width `dim` and rope base `base` under
    the dictionary `scaling` (None: plain RoPE), original length `original`, for a pass of `length`
    tokens. Planes from `rotating` on do not turn (pe-bench's partial RoPE): theta 0."""
    planes = dim // 2
    rotating = planes if rotating is None else rotating
    theta = [base ** (-2.0 * j / dim) for j in range(planes)]
    a = 1.0
    kind = (scaling or {}).get("rope_type", (scaling or {}).get("type", "default"))
    s = scaling or {}
    f = s.get("factor")
    N = s.get("original_max_position_embeddings", original)
    if kind == "default":
        pass
    elif kind == "linear":
        theta = [t / f for t in theta]
    elif kind == "dynamic":
        n = max(length, N)
        b = base * (f * n / N - f + 1) ** (dim / (dim - 2))
        theta = [b ** (-2.0 * j / dim) for j in range(planes)]
    elif kind == "yarn":
        def c(r):  # the plane index at which a plane turns r times over N
            return dim * math.log(N / (2 * math.pi * r)) / (2 * math.log(base))
        lo, hi = c(s.get("beta_fast", 32.0)), c(s.get("beta_slow", 1.0))
        if s.get("truncate", True):
            lo, hi = math.floor(lo), math.ceil(hi)
        lo, hi = max(lo, 0), min(hi, dim - 1)
        if lo == hi:
            hi += 0.001
        theta = [t * (_ramp(j, lo, hi) / f + (1 - _ramp(j, lo, hi))) for j, t in enumerate(theta)]

        def m(x, k):
            return 0.1 * k * math.log(x) + 1 if x > 1 else 1.0
        if "attention_factor" in s:
            a = s["attention_factor"]
        elif s.get("mscale") and s.get("mscale_all_dim"):
            a = m(f, s["mscale"]) / m(f, s["mscale_all_dim"])
        else:
            a = m(f, 1.0)
    elif kind == "llama3":
        low, high = s["low_freq_factor"], s["high_freq_factor"]
        out = []
        for t in theta:
            g = _ramp(N / (2 * math.pi / t), low, high)
            out.append(t * (g + (1 - g) / f))
        theta = out
    elif kind == "longrope":
        factors = s["long_factor"] if length > N else s["short_factor"]
        theta = [t / x for t, x in zip(theta, factors)]
        f = f or 1.0
        a = s.get("attention_factor", math.sqrt(1 + math.log(f) / math.log(N)) if f > 1 else 1.0)
    else:
        raise NotImplementedError("rope_type %r" % kind)
    return [t if j < rotating else 0.0 for j, t in enumerate(theta)], a
