"""`alibi-learned`: ALiBi with its slopes trained, -slope |m - n| per head and layer, slope = exp(a) from the
tensor pos.layers.<l>.alibi_slope [1, H] (KERPLE's family with the kernel -r1 d)."""
from .base import PositionScheme, ages, register


@register("alibi-learned")
class AlibiLearned(PositionScheme):
    reads = ()

    def score_terms(self, q, k, qpos, kpos, layer):
        slope = self.p("pos.layers.0.alibi_slope").to(q.dtype)[0].exp()[None, :, None, None]  # [1, H, 1, 1]
        return -slope * ages(qpos, kpos).abs().to(q.dtype)[:, None]
