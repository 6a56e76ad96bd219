"""`txl`: Transformer-XL's four-term relative score over a projected sinusoidal code of the age."""
import math

import torch

from .base import PositionScheme, ages, register
from .codes import sinusoidal_code


@register("txl")
class TransformerXL(PositionScheme):
    reads = ("base",)

    def score_terms(self, q, k, qpos, kpos, layer):
        H, dh = self.H, self.dh
        age = ages(qpos, kpos)  # [1 or B, Tq, T]
        rho = sinusoidal_code(age, self.d, self.s["base"]).to(q.dtype)  # rho(-r): sines negated
        R = (rho @ self.p("pos.layers.0.w_r.weight").t()).reshape(*age.shape, H, dh)
        u, v = self.p("pos.txl_u"), self.p("pos.txl_v")  # [H, dh]
        return (torch.einsum("bmhc,bmnhc->bhmn", q, R) + torch.einsum("hc,bnhc->bhn", u, k)[:, :, None, :]
                + torch.einsum("hc,bmnhc->bhmn", v, R)) / math.sqrt(dh)
