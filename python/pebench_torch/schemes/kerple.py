"""`kerple` (Chi et al. 2022): a learned kernel of the distance d = |m - n| added to every score, per head
and layer: -r1 log(1 + r2 d) (kerple_kernel "log") or -r1 d^r2 ("power"), with r1 = exp(a) and r2 = exp(b)
(log) or 2 sigmoid(b) (power) from the tensor pos.layers.<l>.kerple [2, H] (row 0: a, row 1: b)."""
import torch

from .base import PositionScheme, ages, register


@register("kerple")
class Kerple(PositionScheme):
    reads = ("kerple_kernel",)

    def score_terms(self, q, k, qpos, kpos, layer):
        ab = self.p("pos.layers.0.kerple").to(q.dtype)  # [2, H]
        r1 = ab[0].exp()[None, :, None, None]
        d = ages(qpos, kpos).abs().to(q.dtype)[:, None]  # [1 or B, 1, Tq, T]
        if self.s["kerple_kernel"] == "power":
            r2 = (2 * torch.sigmoid(ab[1]))[None, :, None, None]
            # d^r2 with 0^r2 = 0 (and no gradient through log 0)
            safe = torch.where(d > 0, d, torch.ones_like(d))
            return torch.where(d > 0, -r1 * safe.pow(r2), torch.zeros_like(d * r1))
        r2 = ab[1].exp()[None, :, None, None]
        return -r1 * torch.log1p(r2 * d)
