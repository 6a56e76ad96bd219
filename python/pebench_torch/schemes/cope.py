"""`cope` (Golovneva et al. 2024): a key's contextual position p = the sum of the gates sigmoid(q.k / sqrt(dh))
of the visible keys from it on (clamped at P - 1), and the score term q.E[p] / sqrt(dh) interpolated between
the rows floor(p) and ceil(p). E: pos.layers.<l>.cope_e.weight [P, dh], shared by the layer's heads. The
count is written here as the authors' code writes it: every pair at once, a reversed cumulative sum."""
import math

import torch

from .base import PositionScheme, register


@register("cope")
class Cope(PositionScheme):
    reads = ("cope_positions",)

    def context_terms(self, q, k, visible):
        E = self.p("pos.layers.0.cope_e.weight").to(q.dtype)  # [P, dh]
        scale = 1.0 / math.sqrt(self.dh)
        gates = torch.sigmoid(torch.einsum("bmhc,bnhc->bhmn", q, k) * scale) * visible  # [B, H, Tq, T]
        pos = gates.flip(-1).cumsum(-1).flip(-1).clamp(max=self.s["cope_positions"] - 1)
        w = torch.einsum("bmhc,pc->bhmp", q, E) * scale  # [B, H, Tq, P]
        lo, hi = pos.floor(), pos.ceil()
        a = pos - lo
        return (1 - a) * w.gather(-1, lo.long()) + a * w.gather(-1, hi.long())
