"""`t5`: a learned scalar bias per head and log-spaced age bucket (causal; or two-sided, the encoder form)."""
from .base import PositionScheme, ages, register
from .codes import t5_bias


@register("t5")
class T5(PositionScheme):
    reads = ("t5_buckets", "t5_max_distance")

    def score_terms(self, q, k, qpos, kpos, layer):
        return t5_bias(self.p("pos.t5_bias.weight"), ages(qpos, kpos), self.s["t5_buckets"],
                       self.s["t5_max_distance"], self.bidirectional)
