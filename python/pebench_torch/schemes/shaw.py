"""`shaw`: relative key and value vectors per clipped offset (Shaw et al.), a pair of tables per layer
(shaw_values false: the key vectors only)."""
import math

import torch

from .base import PositionScheme, ages, register


@register("shaw")
class Shaw(PositionScheme):
    reads = ("shaw_clip", "shaw_values")

    def _index(self, qpos, kpos):
        K = self.s["shaw_clip"]
        return (-ages(qpos, kpos)).clamp(-K, K) + K  # key minus query, clipped: [1 or B, Tq, T]

    def score_terms(self, q, k, qpos, kpos, layer):
        rk = self.p("pos.layers.0.shaw_rk.weight")[self._index(qpos, kpos)]  # [1 or B, Tq, T, dh]
        return torch.einsum("bmhc,bmnc->bhmn", q, rk) / math.sqrt(self.dh)

    def value_term(self, a, qpos, kpos):
        if not self.s["shaw_values"]:
            return None
        return torch.einsum("bhmn,bmnc->bmhc", a, self.p("pos.layers.0.shaw_rv.weight")[self._index(qpos, kpos)])
