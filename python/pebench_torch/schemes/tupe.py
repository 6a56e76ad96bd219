"""`tupe`: untied content and absolute-position scores (TUPE-A); tupe_relative adds T5's bias (TUPE-R)."""
import math

import torch

from .base import PositionScheme, ages, batched, register
from .codes import t5_bias


@register("tupe")
class Tupe(PositionScheme):
    reads = ("tupe_relative", "t5_buckets", "t5_max_distance")
    ignores = {"learned_rows": "the table's rows are its shape"}

    def content_scale(self):
        return 1 / math.sqrt(2)

    def score_terms(self, q, k, qpos, kpos, layer):
        H, dh = self.H, self.dh
        qpos, kpos = batched(qpos), batched(kpos)
        pq = (self.p("pos.tupe_p.weight")[qpos] @ self.p("pos.layers.0.u_q.weight").t()).reshape(*qpos.shape, H, dh)
        pk = (self.p("pos.tupe_p.weight")[kpos] @ self.p("pos.layers.0.u_k.weight").t()).reshape(*kpos.shape, H, dh)
        term = torch.einsum("bmhc,bnhc->bhmn", pq, pk) / math.sqrt(2 * dh)
        if not self.s["tupe_relative"]:
            return term
        return term + t5_bias(self.p("pos.t5_bias.weight"), ages(qpos, kpos), self.s["t5_buckets"],
                              self.s["t5_max_distance"], self.bidirectional)
