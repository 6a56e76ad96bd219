"""The figures of `pe-bench analyze theory` (theory.json): wavelength_census and log_ruler."""
from .load import DataError, List, Map, Num, Obj, Str
from .style import SIZE, plt


def census_kappa(k):
    """The key of kappa k in the census's factor tables ("4" for 4.0)."""
    return str(k).rstrip("0").rstrip(".") if isinstance(k, float) else str(k)


def census_factor(plane, m, kappa, k):
    f = plane["factors"][m]
    return f.get(kappa, f.get(str(k)))


def check_theory(t):
    """What wavelength_census and log_ruler read of theory.json (each section may be absent)."""
    Obj({"wavelength_census?": Obj({
        "planes": List(Obj({"plane": Num(), "wavelength": Num(above=0), "factors": Map(Map(Num(above=0)))}),
                       nonempty=True),
        "train_len": Num(above=0), "d": Num(integer=True), "base": Num(),
        "kappas": List(Num(above=0), nonempty=True), "maps": List(Str())}),
        "log_ruler?": Obj({"rows": List(Obj({"delta": Num(above=0), "limit": Num(), "line": Num(),
                                             "by_d": List(Obj({"d": Num(integer=True), "ratio": Num()}))}),
                                        nonempty=True),
                           "quantity": Str(), "base": Num()})}).check(t, "")
    if "wavelength_census" in t:
        w = t["wavelength_census"]
        k = w["kappas"][-1]
        for j, p in enumerate(w["planes"]):
            for m in w["maps"]:
                where = "wavelength_census.planes[%d].factors" % j
                if m not in p["factors"]:
                    raise DataError('%s has no "%s" (a map listed in wavelength_census.maps)' % (where, m))
                if census_factor(p, m, census_kappa(k), k) is None:
                    raise DataError('%s.%s has no factor for kappa %s (the last of wavelength_census.kappas)'
                                    % (where, m, census_kappa(k)))
    if "log_ruler" in t:
        rows = t["log_ruler"]["rows"]
        for i, row in enumerate(rows[1:], 1):
            if len(row["by_d"]) != len(rows[0]["by_d"]):
                raise DataError("log_ruler.rows[%d].by_d has %d entries, expected %d (as rows[0].by_d)"
                                % (i, len(row["by_d"]), len(rows[0]["by_d"])))


def fig_census(t):
    if "wavelength_census" not in t:
        return "no wavelength_census"
    w = t["wavelength_census"]
    planes = w["planes"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=SIZE)
    j = [p["plane"] for p in planes]
    ax1.semilogy(j, [p["wavelength"] for p in planes], "o-", label="wavelength 2 pi / theta_j")
    ax1.axhline(w["train_len"], color="grey", ls=":", label="training length L = %d" % w["train_len"])
    ax1.set_xlabel("plane j")
    ax1.set_ylabel("wavelength (tokens, log scale)")
    ax1.set_title("RoPE planes, d = %d, base %g" % (w["d"], w["base"]), fontsize=10)
    ax1.legend(fontsize=7)
    ax1.grid(alpha=0.3)
    kappa = str(w["kappas"][-1]).rstrip("0").rstrip(".") if isinstance(w["kappas"][-1], float) else str(w["kappas"][-1])
    for m in w["maps"]:
        ys = []
        for p in planes:
            ys.append(census_factor(p, m, kappa, w["kappas"][-1]))
        ax2.plot(j, ys, "o-", label=m)
    ax2.set_yscale("log", base=2)
    ax2.set_xlabel("plane j")
    ax2.set_ylabel("factor theta'_j / theta_j (log2 scale)")
    ax2.set_title("each map's factor per plane at kappa = %s" % kappa, fontsize=10)
    ax2.legend(fontsize=7)
    ax2.grid(alpha=0.3)
    fig.suptitle("The wavelength census: which planes turn within training, and what each map does to them")
    fig.tight_layout()
    return fig


def fig_log_ruler(t):
    if "log_ruler" not in t:
        return "no log_ruler"
    lr = t["log_ruler"]
    rows = lr["rows"]
    deltas = [r["delta"] for r in rows]
    fig, ax = plt.subplots(figsize=SIZE)
    for k, d in enumerate([b["d"] for b in rows[0]["by_d"]]):
        ax.plot(deltas, [r["by_d"][k]["ratio"] for r in rows], "o-", ms=4, label="d = %d" % d)
    ax.plot(deltas, [r["limit"] for r in rows], "k--", lw=1.5, label="limit d -> infinity")
    ax.plot(deltas, [r["line"] for r in rows], ":", color="grey", lw=2, label="straight line in log offset")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("offset delta (tokens, log2 scale)")
    ax.set_ylabel(lr["quantity"])
    ax.set_title("The logarithmic ruler: RoPE's mean kernel against offset (base %g)" % lr["base"])
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig
