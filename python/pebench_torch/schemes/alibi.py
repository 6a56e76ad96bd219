"""`alibi`: a linear penalty on the age m - n, one slope per head; its encoder form on |m - n| (symmetric)."""
import torch

from .base import PositionScheme, ages, register


def alibi_reference_slopes(H):
    """2^(-8h/H) for a power of two H; else the largest power of two P < H's, then every other of 2P's."""
    def powers(n):
        return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]
    if H & (H - 1) == 0:
        return powers(H)
    P = 1 << (H.bit_length() - 1)
    return powers(P) + powers(2 * P)[0::2][:H - P]


@register("alibi")
class Alibi(PositionScheme):
    reads = ("alibi_slopes",)

    def setup(self):
        self.slopes = torch.tensor(self.s["alibi_slopes"] or alibi_reference_slopes(self.H), dtype=torch.float32)

    def score_terms(self, q, k, qpos, kpos, layer):
        age = ages(qpos, kpos)
        if self.bidirectional:
            age = age.abs()
        return -(self.slopes.to(q.dtype)[None, :, None, None] * age[:, None].to(q.dtype))
