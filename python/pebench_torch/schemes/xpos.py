"""`xpos` (Sun et al. 2022): RoPE's turn (adjacent pairs, theta_j = base^(-2j/dh)) with plane j of a query at
position m scaled by zeta_j^(m/B) and of a key at n by zeta_j^(-n/B), zeta_j = (2j/dh + g) / (1 + g)
(g = xpos_zeta_offset, B = xpos_scale_base, resolved in the checkpoint). Written from the formula, as
torchscale's XPOS scales cos and sin, without its centring of positions (the scores read m - n alone)."""
import torch

from .base import batched, register
from .rope import Rope


@register("xpos")
class Xpos(Rope):
    reads = ("base", "xpos_zeta_offset", "xpos_scale_base")
    frequencies = False

    def setup(self):
        planes = self.dh // 2
        self.theta = torch.tensor([self.s["base"] ** (-2.0 * j / self.dh) for j in range(planes)],
                                  dtype=torch.float64)
        g = self.s["xpos_zeta_offset"]
        self.zeta = torch.tensor([(2.0 * j / self.dh + g) / (1.0 + g) for j in range(planes)], dtype=torch.float64)
        self.logit_scale = 1.0

    def rotate(self, x, pos, key=False):
        turned = super().rotate(x, pos)
        e = batched(pos).double()[..., None] / self.s["xpos_scale_base"]  # [1 or B, T, 1]
        scale = self.zeta ** (-e if key else e)  # [1 or B, T, planes]
        # each plane's two channels: (2j, 2j+1) interleaved, (j, j + dh/2) split-half (Rope.rotate's pairs)
        scale = torch.cat([scale, scale], -1) if self.pair_layout == "split-half" else scale.repeat_interleave(2, -1)
        scale = scale.to(x.dtype)[:, :, None, :]
        return turned * scale
