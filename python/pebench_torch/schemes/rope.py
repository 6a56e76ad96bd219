"""`rope`: query and key planes rotated by position (adjacent pairs), with any frequency plan."""
import torch

from ..rope_scaling import inverse_frequencies
from .base import PositionScheme, batched, register


@register("rope")
class Rope(PositionScheme):
    reads = ("base", "rotary_fraction")
    frequencies = True

    def setup(self):
        planes = self.dh // 2
        rotating = int(round(self.s["rotary_fraction"] * planes))
        self.theta = torch.tensor([self.s["base"] ** (-2.0 * j / self.dh) if j < rotating else 0.0
                                   for j in range(planes)], dtype=torch.float64)
        self.logit_scale = 1.0

    def set_plan(self, plan):
        """A frequency plan ({"theta": [...], "logit_scale": s}) or a Transformers dictionary
        ({"rope_scaling": {...}, "original": N, "length": n}); a distance warp is not implemented."""
        if plan.get("warp_factor"):
            raise NotImplementedError("the compress map (a distance warp) is not in the twin")
        if "rope_scaling" in plan:
            rotating = int((self.theta != 0).sum())
            theta, a = inverse_frequencies(plan["rope_scaling"], self.dh, plan.get("rope_theta", self.s["base"]),
                                           plan["original"], plan["length"], rotating)
            self.theta, self.logit_scale = torch.tensor(theta, dtype=torch.float64), a * a
        else:
            self.theta = torch.tensor(plan["theta"], dtype=torch.float64)
            self.logit_scale = float(plan.get("logit_scale", 1.0))

    def rotate(self, x, pos, key=False):
        """(x, y) -> (x cos a - y sin a, x sin a + y cos a) on pair j, a = m theta_j. The pairs are the
        export's rope_layout (self.pair_layout): interleaved, channels (2j, 2j+1); split-half, channels
        (j, j + dh/2) (Transformers' rotate_half)."""
        a = batched(pos).double()[..., None] * self.theta  # [1 or B, T, planes]
        cos, sin = torch.cos(a).to(x.dtype)[:, :, None, :], torch.sin(a).to(x.dtype)[:, :, None, :]
        if self.pair_layout == "split-half":
            x0, x1 = x[..., :self.dh // 2], x[..., self.dh // 2:]
            return torch.cat([x0 * cos - x1 * sin, x0 * sin + x1 * cos], dim=-1)
        x0, x1 = x[..., 0::2], x[..., 1::2]
        return torch.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], dim=-1).reshape(x.shape)

    def content_scale(self):
        return self.logit_scale
