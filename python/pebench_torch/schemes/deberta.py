"""`deberta`: disentangled content-to-position and position-to-content terms over a clipped index."""
import math

import torch

from .base import PositionScheme, ages, register


@register("deberta")
class Deberta(PositionScheme):
    reads = ("deberta_clip",)

    def content_scale(self):
        return 1 / math.sqrt(3)

    def score_terms(self, q, k, qpos, kpos, layer):
        H, dh, K = self.H, self.dh, self.s["deberta_clip"]
        age = ages(qpos, kpos)  # [1 or B, Tq, T]
        P = self.p("pos.deberta_p.weight")
        Kr = (P @ self.p("pos.layers.0.w_kr.weight").t()).reshape(-1, H, dh)
        Qr = (P @ self.p("pos.layers.0.w_qr.weight").t()).reshape(-1, H, dh)
        fwd, back = (age + K).clamp(0, 2 * K - 1), (-age + K).clamp(0, 2 * K - 1)  # delta(m,n), delta(n,m)
        return (torch.einsum("bmhc,bmnhc->bhmn", q, Kr[fwd]) + torch.einsum("bnhc,bmnhc->bhmn", k, Qr[back])) \
            / math.sqrt(3 * dh)
