"""`fire` (Li et al. 2023): a bias f_h(psi(|m - n|) / psi(max(L, m))) added to every score, psi(z) = log(1 + c z),
f an MLP per layer (1 -> W units, ReLU -> H outputs). Tensors per layer: pos.layers.<l>.fire_in [2, W] (w1, b1),
fire_out [W + 1, H] (W2, then b2), fire_scale [1, 2] (g, l): c = exp(g), L = fire_threshold exp(l);
fire_interpolate false divides every query by psi(L) (the ablation of progressive interpolation).
The MLP is evaluated as written, at every pair; pe-bench evaluates it as the piecewise-linear function it is
(schemes/fire.h), so the twin checks that too."""
import torch

from .base import PositionScheme, ages, batched, register


@register("fire")
class Fire(PositionScheme):
    reads = ("fire_width", "fire_threshold", "fire_interpolate")

    def score_terms(self, q, k, qpos, kpos, layer):
        dt = q.dtype
        w = self.p("pos.layers.0.fire_in").to(dt)  # [2, W]: w1, b1
        out = self.p("pos.layers.0.fire_out").to(dt)  # [W + 1, H]: W2, b2
        g, l = self.p("pos.layers.0.fire_scale").to(dt)[0]
        c, threshold = g.exp(), self.s["fire_threshold"] * l.exp()
        d = ages(qpos, kpos).abs().to(dt)  # [1 or B, Tq, T]
        n = batched(qpos).to(dt)[:, :, None]  # [1 or B, Tq, 1]: max(L, m), or L (the ablation)
        n = torch.maximum(n, threshold) if self.s["fire_interpolate"] else torch.full_like(n, 1) * threshold
        x = torch.log1p(c * d) / torch.log1p(c * n)
        hidden = torch.relu(x[..., None] * w[0] + w[1])  # [1 or B, Tq, T, W]
        return (hidden @ out[:-1] + out[-1]).permute(0, 3, 1, 2)  # [1 or B, H, Tq, T]
