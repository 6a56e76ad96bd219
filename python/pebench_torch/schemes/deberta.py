"""`deberta`: disentangled content-to-position and position-to-content terms over a clipped index
(deberta_log_buckets: DeBERTa-v2's log buckets of the distance before the clip)."""
import math

import torch

from .base import PositionScheme, ages, register


def log_bucket(r, K, M):
    """DeBERTa-v2's make_log_bucket_position with bucket_size K and max_position M, on an integer tensor."""
    mid = K // 2
    a = r.abs()
    far = torch.ceil(torch.log(a.clamp(min=1).double() / mid) / math.log((M - 1) / mid) * (mid - 1)).long() + mid
    return torch.where(a <= mid, r, far * torch.sign(r))


@register("deberta")
class Deberta(PositionScheme):
    reads = ("deberta_clip", "deberta_log_buckets", "deberta_max_distance")

    def content_scale(self):
        return 1 / math.sqrt(3)

    def score_terms(self, q, k, qpos, kpos, layer):
        H, dh, K = self.H, self.dh, self.s["deberta_clip"]
        age = ages(qpos, kpos)  # [1 or B, Tq, T]
        if self.s["deberta_log_buckets"]:
            age = log_bucket(age, K, self.s["deberta_max_distance"])
        P = self.p("pos.deberta_p.weight")
        Kr = (P @ self.p("pos.layers.0.w_kr.weight").t()).reshape(-1, H, dh)
        Qr = (P @ self.p("pos.layers.0.w_qr.weight").t()).reshape(-1, H, dh)
        fwd, back = (age + K).clamp(0, 2 * K - 1), (-age + K).clamp(0, 2 * K - 1)  # delta(m,n), delta(n,m)
        return (torch.einsum("bmhc,bmnhc->bhmn", q, Kr[fwd]) + torch.einsum("bnhc,bmnhc->bhmn", k, Qr[back])) \
            / math.sqrt(3 * dh)
