"""`txl`: Transformer-XL's four-term relative score over a projected sinusoidal code of the age."""
import math

import torch

from .base import PositionScheme, register
from .codes import sinusoidal_code


@register("txl")
class TransformerXL(PositionScheme):
    reads = ("base",)

    def score_terms(self, q, k, qpos, kpos, layer):
        H, dh = self.H, self.dh
        age = qpos[:, None] - kpos[None, :]
        rho = sinusoidal_code(age.reshape(-1), self.d, self.s["base"]).to(q.dtype)  # rho(-r): sines negated
        R = (rho @ self.p("pos.layers.0.w_r.weight").t()).reshape(age.shape[0], age.shape[1], H, dh)
        u, v = self.p("pos.txl_u"), self.p("pos.txl_v")  # [H, dh]
        return (torch.einsum("bmhc,mnhc->bhmn", q, R) + torch.einsum("hc,bnhc->bhn", u, k)[:, :, None, :]
                + torch.einsum("hc,mnhc->hmn", v, R)[None]) / math.sqrt(dh)
