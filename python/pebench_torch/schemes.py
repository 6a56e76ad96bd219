"""The positional schemes, from docs/schemes.md. A query at position m scores a key at n (age
r = m - n); every term below is computed for all (query, key) pairs at once and added to the scaled
content score c = content_scale <q, k> / sqrt(d_head) before the softmax."""
import math

import torch

from .rope_scaling import inverse_frequencies

# The settings a scheme takes when the checkpoint does not state them (a hybrid's layer schemes are
# built with the declared defaults).
DEFAULTS = {"base": 10000.0, "rotary_fraction": 1.0, "alibi_slopes": [], "t5_buckets": 32, "t5_max_distance": 128,
            "shaw_clip": 16, "deberta_clip": 16, "tupe_relative": False}


def sinusoidal_code(positions, d, base):
    """p(m)[2j] = sin(m theta_j), p(m)[2j+1] = cos(m theta_j), theta_j = base^(-2j/d); double, then float32."""
    theta = torch.tensor([base ** (-2.0 * j / d) for j in range(d // 2)], dtype=torch.float64)
    a = positions.double()[:, None] * theta[None, :]
    return torch.stack([torch.sin(a), torch.cos(a)], dim=-1).reshape(len(positions), d).float()


def alibi_reference_slopes(H):
    """2^(-8h/H) for a power of two H; else the largest power of two P < H's, then every other of 2P's."""
    def powers(n):
        return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]
    if H & (H - 1) == 0:
        return powers(H)
    P = 1 << (H.bit_length() - 1)
    return powers(P) + powers(2 * P)[0::2][:H - P]


def t5_bucket(r, buckets, max_distance):
    r = max(r, 0)
    exact = buckets // 2
    if r < exact:
        return r
    scaled = math.log(r / exact) / math.log(max_distance / exact) * (buckets - exact)
    return min(buckets - 1, exact + int(math.floor(scaled)))


class PositionScheme:
    """One scheme of one model: `params(name)` gives a tensor by its exported name. For a hybrid, one
    PositionScheme per layer, each built as a one-layer scheme whose tables are the layer's."""

    def __init__(self, name, settings, H, dh, d_model, params, layer_names=None, plan=None):
        self.name, self.H, self.dh, self.d = name, H, dh, d_model
        self.s = dict(DEFAULTS)
        self.s.update(settings)
        self._params = params
        self._rename = layer_names or (lambda n: n)
        self.window = 0
        self.theta, self.logit_scale = None, 1.0
        if name == "rope":
            planes = dh // 2
            rotating = int(round(self.s["rotary_fraction"] * planes))
            self.theta = torch.tensor([self.s["base"] ** (-2.0 * j / dh) if j < rotating else 0.0
                                       for j in range(planes)], dtype=torch.float64)
            if plan is not None:
                self.set_plan(plan)
        elif name not in ("none", "sinusoidal", "learned", "alibi", "t5", "shaw", "txl", "deberta", "tupe"):
            raise NotImplementedError("scheme %r" % name)
        if name == "alibi":
            slopes = self.s["alibi_slopes"] or alibi_reference_slopes(H)
            self.slopes = torch.tensor(slopes, dtype=torch.float32)

    def p(self, name):
        return self._params(self._rename(name))

    def set_plan(self, plan):
        """A frequency plan ({"theta": [...], "logit_scale": s}) or a Transformers dictionary
        ({"rope_scaling": {...}, "original": N, "length": n}); a distance warp is not implemented."""
        if self.name != "rope":
            raise ValueError("%s has no frequencies to rescale" % self.name)
        if plan.get("warp_factor"):
            raise NotImplementedError("the compress map (a distance warp) is not in the twin")
        if "rope_scaling" in plan:
            rotating = int((self.theta != 0).sum())
            theta, a = inverse_frequencies(plan["rope_scaling"], self.dh, plan.get("rope_theta", self.s["base"]),
                                           plan["original"], plan["length"], rotating)
            self.theta, self.logit_scale = torch.tensor(theta, dtype=torch.float64), a * a
        else:
            self.theta = torch.tensor(plan["theta"], dtype=torch.float64)
            self.logit_scale = float(plan.get("logit_scale", 1.0))

    # -- where it acts --------------------------------------------------------------------------
    def embed(self, pos):
        """The embedding state's term [T, d_model], or None."""
        if self.name == "sinusoidal":
            return sinusoidal_code(pos, self.d, self.s["base"])
        if self.name == "learned":
            return self.p("pos.table.weight")[pos]
        return None

    def rotate(self, x, pos):
        """RoPE on adjacent pairs (2j, 2j+1): (x, y) -> (x cos a - y sin a, x sin a + y cos a), a = m theta_j.
        x: [B, T, H, dh] at positions pos [T]."""
        if self.name != "rope":
            return x
        a = pos.double()[:, None] * self.theta[None, :]
        cos, sin = torch.cos(a).to(x.dtype)[None, :, None, :], torch.sin(a).to(x.dtype)[None, :, None, :]
        x0, x1 = x[..., 0::2], x[..., 1::2]
        return torch.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], dim=-1).reshape(x.shape)

    def content_scale(self):
        return {"rope": self.logit_scale, "deberta": 1 / math.sqrt(3), "tupe": 1 / math.sqrt(2)}.get(self.name, 1.0)

    def score_terms(self, q, k, qpos, kpos, layer):
        """The scheme's terms of the scores [B, H, Tq, T] (or None), q: [B, Tq, H, dh], k: [B, T, H, dh]."""
        H, dh = self.H, self.dh
        age = qpos[:, None] - kpos[None, :]  # [Tq, T]
        if self.name == "alibi":
            return -(self.slopes.to(q.dtype)[:, None, None] * age[None].to(q.dtype))[None]
        if self.name == "t5" or (self.name == "tupe" and self.s["tupe_relative"]):
            bucket = torch.tensor([[t5_bucket(int(r), self.s["t5_buckets"], self.s["t5_max_distance"]) for r in row]
                                   for row in age.tolist()])
            bias = self.p("pos.t5_bias.weight")[bucket].permute(2, 0, 1)[None]  # [1, H, Tq, T]
            if self.name == "t5":
                return bias
        if self.name == "tupe":
            pq = (self.p("pos.tupe_p.weight")[qpos] @ self.p("pos.layers.0.u_q.weight").t()).reshape(-1, H, dh)
            pk = (self.p("pos.tupe_p.weight")[kpos] @ self.p("pos.layers.0.u_k.weight").t()).reshape(-1, H, dh)
            term = torch.einsum("mhc,nhc->hmn", pq, pk)[None] / math.sqrt(2 * dh)
            return term + bias if self.s["tupe_relative"] else term
        if self.name == "shaw":
            K = self.s["shaw_clip"]
            u = (-age).clamp(-K, K) + K  # key minus query, clipped
            rk = self.p("pos.layers.0.shaw_rk.weight")[u]  # [Tq, T, dh]
            return torch.einsum("bmhc,mnc->bhmn", q, rk) / math.sqrt(dh)
        if self.name == "txl":
            rho = sinusoidal_code(age.reshape(-1), self.d, self.s["base"]).to(q.dtype)  # rho(-r): sines negated
            R = (rho @ self.p("pos.layers.0.w_r.weight").t()).reshape(age.shape[0], age.shape[1], H, dh)
            u, v = self.p("pos.txl_u"), self.p("pos.txl_v")  # [H, dh]
            return (torch.einsum("bmhc,mnhc->bhmn", q, R) + torch.einsum("hc,bnhc->bhn", u, k)[:, :, None, :]
                    + torch.einsum("hc,mnhc->hmn", v, R)[None]) / math.sqrt(dh)
        if self.name == "deberta":
            K = self.s["deberta_clip"]
            P = self.p("pos.deberta_p.weight")
            Kr = (P @ self.p("pos.layers.0.w_kr.weight").t()).reshape(-1, H, dh)
            Qr = (P @ self.p("pos.layers.0.w_qr.weight").t()).reshape(-1, H, dh)
            fwd, back = (age + K).clamp(0, 2 * K - 1), (-age + K).clamp(0, 2 * K - 1)  # delta(m,n), delta(n,m)
            return (torch.einsum("bmhc,mnhc->bhmn", q, Kr[fwd]) + torch.einsum("bnhc,mnhc->bhmn", k, Qr[back])) \
                / math.sqrt(3 * dh)
        return None

    def value_term(self, a, qpos, kpos):
        """The scheme's term of the heads' outputs [B, Tq, H, dh] (or None), a: [B, H, Tq, T]."""
        if self.name != "shaw":
            return None
        K = self.s["shaw_clip"]
        u = (kpos[None, :] - qpos[:, None]).clamp(-K, K) + K
        return torch.einsum("bhmn,mnc->bmhc", a, self.p("pos.layers.0.shaw_rv.weight")[u])


def layer_schemes(config, params, plan=None):
    """One PositionScheme per layer of the model `config` describes (a hybrid's layers each their own)."""
    sc = config["pe_bench_checkpoint"]["scheme"]
    H, dh, d, L = config["num_attention_heads"], config["head_dim"], config["hidden_size"], config["num_hidden_layers"]
    settings = {k: v for k, v in sc.items() if k not in ("name", "d_model", "d_head", "n_heads", "hybrid_layers")}
    if sc["name"] != "hybrid":
        out = []
        for l in range(L):
            def rename(n, l=l):
                return n.replace("pos.layers.0.", "pos.layers.%d." % l)
            out.append(PositionScheme(sc["name"], settings, H, dh, d, params, rename, plan))
        return out
    out = []
    for l, spec in enumerate(sc["hybrid_layers"]):
        name, window, own = parse_hybrid_layer(spec)
        if name in ("sinusoidal", "learned"):
            raise ValueError("a hybrid layer cannot act on the shared embedding state (%s)" % spec)

        def rename(n, l=l):  # the one-layer scheme's tables are the layer's: pos.X, pos.layers.0.X -> pos.layers.l.X
            return "pos.layers.%d.%s" % (l, n[len("pos.layers.0."):] if n.startswith("pos.layers.0.") else n[4:])
        s = PositionScheme(name, own, H, dh, d, params, rename, layer_plan(plan, l) if name == "rope" else None)
        s.window = window
        out.append(s)
    return out


def parse_hybrid_layer(spec):
    """"scheme[:window][:key=value]..." -> (scheme, window, {key: value}); values are numbers or
    true/false (pe-bench has checked the spelling before writing it)."""
    parts = spec.split(":")
    window, own = 0, {}
    for part in parts[1:]:
        if "=" not in part:
            window = int(part)
            continue
        key, _, text = part.partition("=")
        if text in ("true", "false"):
            own[key] = text == "true"
        else:
            try:
                own[key] = int(text)
            except ValueError:
                own[key] = float(text)
    return parts[0], window, own


def layer_plan(plan, l):
    """Layer l's part of a frequency plan: its own entry when the plan lists layers (a hybrid whose
    RoPE layers turn differently), else the plan itself."""
    if plan is None or "layers" not in plan:
        return plan
    return plan["layers"][l]
