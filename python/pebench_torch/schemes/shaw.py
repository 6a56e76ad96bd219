"""`shaw`: relative key and value vectors per clipped offset (Shaw et al.), a pair of tables per layer
(shaw_values false: the key vectors only; shaw_per_head: a pair per head, the layer's tensor [H (2K+1), dh]
holding head h's rows h (2K+1) .. (h+1)(2K+1) - 1)."""
import math

import torch

from .base import PositionScheme, ages, register


@register("shaw")
class Shaw(PositionScheme):
    reads = ("shaw_clip", "shaw_values", "shaw_per_head")

    def _index(self, qpos, kpos):
        K = self.s["shaw_clip"]
        return (-ages(qpos, kpos)).clamp(-K, K) + K  # key minus query, clipped: [1 or B, Tq, T]

    def _rows(self, name, qpos, kpos):
        """The table's row of every pair: [1 or B, Tq, T, dh] shared by the heads, or [1 or B, H, Tq, T, dh]."""
        table, index = self.p(name), self._index(qpos, kpos)
        if not self.s["shaw_per_head"]:
            return table[index]
        return table.reshape(self.H, -1, self.dh)[:, index].permute(1, 0, 2, 3, 4)

    def score_terms(self, q, k, qpos, kpos, layer):
        rk = self._rows("pos.layers.0.shaw_rk.weight", qpos, kpos)
        if self.s["shaw_per_head"]:
            return torch.einsum("bmhc,bhmnc->bhmn", q, rk) / math.sqrt(self.dh)
        return torch.einsum("bmhc,bmnc->bhmn", q, rk) / math.sqrt(self.dh)

    def value_term(self, a, qpos, kpos):
        if not self.s["shaw_values"]:
            return None
        rv = self._rows("pos.layers.0.shaw_rv.weight", qpos, kpos)
        if self.s["shaw_per_head"]:
            return torch.einsum("bhmn,bhmnc->bmhc", a, rv)
        return torch.einsum("bhmn,bmnc->bmhc", a, rv)
