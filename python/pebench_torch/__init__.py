"""A PyTorch twin of pe-bench's models, written from docs/schemes.md, that loads a `pe-bench export`
(docs/interop.md). Work in progress (issue 28): the block stack (char LM, passkey model) with the
published five schemes (none, sinusoidal, learned, rope with any frequency plan, alibi)."""
import json
import math
import os
import struct

import numpy as np
import torch


def load_export(directory):
    """(config, {torch name: float32 tensor}) of an export; numpy reads the safetensors file."""
    raw = open(os.path.join(directory, "model.safetensors"), "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    tensors = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        if spec["dtype"] != "F32":
            raise ValueError("tensor %r has dtype %s; pe-bench exports F32" % (name, spec["dtype"]))
        s, e = spec["data_offsets"]
        tensors[name] = torch.from_numpy(np.frombuffer(raw[8 + n + s:8 + n + e], "<f4").reshape(spec["shape"]).copy())
    return json.load(open(os.path.join(directory, "config.json"))), tensors


def frequencies(config):
    """theta_j per plane of a head: the frequency plan's when the checkpoint has one, else base^(-2j/d)."""
    plan = config.get("frequency_plan")
    if plan and plan.get("theta"):
        return torch.tensor(plan["theta"], dtype=torch.float64)
    d = config["head_dim"]
    base = config.get("rope_theta", 10000.0)
    return torch.tensor([base ** (-2.0 * j / d) for j in range(d // 2)], dtype=torch.float64)


def sinusoidal_code(positions, d, base):
    """p(m)[2j] = sin(m theta_j), p(m)[2j+1] = cos(m theta_j), in double, then float32."""
    theta = torch.tensor([base ** (-2.0 * j / d) for j in range(d // 2)], dtype=torch.float64)
    a = positions.double()[:, None] * theta[None, :]
    p = torch.stack([torch.sin(a), torch.cos(a)], dim=-1).reshape(len(positions), d)
    return p.float()


def rotate(x, positions, theta):
    """RoPE on adjacent pairs: (x, y) -> (x cos a - y sin a, x sin a + y cos a), a = m theta_j. x: [B, T, H, dh]."""
    a = positions.double()[:, None] * theta[None, :]
    cos, sin = torch.cos(a).float()[None, :, None, :], torch.sin(a).float()[None, :, None, :]
    x0, x1 = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = x0 * cos - x1 * sin
    out[..., 1::2] = x0 * sin + x1 * cos
    return out


def alibi_slopes(config):
    s = config["pe_bench_checkpoint"]["scheme"]
    slopes = s.get("alibi_slopes") or []
    if slopes:
        return torch.tensor(slopes, dtype=torch.float32)
    H = config["num_attention_heads"]
    return torch.tensor([2.0 ** (-8.0 * h / H) for h in range(1, H + 1)], dtype=torch.float32)


class BlockStack(torch.nn.Module):
    """The char LM / passkey model: embedding, residual causal attention blocks (fused qkv, proj, no
    bias, no MLP, no normalisation), output tied to the embedding."""

    def __init__(self, config, tensors):
        super().__init__()
        self.config = config
        self.scheme = config["position_scheme"]
        if self.scheme not in ("none", "sinusoidal", "learned", "rope", "alibi"):
            raise NotImplementedError("the twin does not have %s yet" % self.scheme)
        self.H, self.dh, self.d = config["num_attention_heads"], config["head_dim"], config["hidden_size"]
        self.L = config["num_hidden_layers"]
        self.params = torch.nn.ParameterDict({k.replace(".", "__"): torch.nn.Parameter(v) for k, v in tensors.items()})
        self.theta = frequencies(config) if self.scheme == "rope" else None
        self.slopes = alibi_slopes(config) if self.scheme == "alibi" else None
        plan = config.get("frequency_plan") or {}
        self.logit_scale = float(plan.get("logit_scale", 1.0))

    def p(self, name):
        return self.params[name.replace(".", "__")]

    def forward(self, x, positions=None):
        B, T = x.shape
        pos = torch.arange(T) if positions is None else positions
        h = self.p("tok_emb.weight")[x]
        if self.scheme == "sinusoidal":
            h = h + sinusoidal_code(pos, self.d, self.config.get("rope_theta", 10000.0))[None]
        elif self.scheme == "learned":
            h = h + self.p("pos.table.weight")[pos][None]
        mask = pos[:, None] >= pos[None, :]
        for l in range(self.L):
            qkv = h @ self.p("blocks.%d.attn.qkv.weight" % l).t()
            q, k, v = (t.reshape(B, T, self.H, self.dh) for t in qkv.split(self.d, dim=-1))
            if self.scheme == "rope":
                q, k = rotate(q, pos, self.theta), rotate(k, pos, self.theta)
            s = torch.einsum("bmhc,bnhc->bhmn", q, k) * (self.logit_scale / math.sqrt(self.dh))
            if self.scheme == "alibi":
                age = (pos[:, None] - pos[None, :]).float()
                s = s - self.slopes[None, :, None, None] * age[None, None]
            s = s.masked_fill(~mask[None, None], float("-inf"))
            a = torch.softmax(s, dim=-1)
            o = torch.einsum("bhmn,bnhc->bmhc", a, v).reshape(B, T, self.d)
            h = h + o @ self.p("blocks.%d.attn.proj.weight" % l).t()
        return h @ self.p("tok_emb.weight").t()
