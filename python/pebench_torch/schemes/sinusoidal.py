"""`sinusoidal`: the fixed sin/cos code added to the token embedding, a p(m): a = sinusoidal_scale, and the
code interleaved (p[2j] = sin, p[2j+1] = cos of plane j) or, sinusoidal_layout "concatenated", every sine then
every cosine (p[j], p[d/2 + j])."""
import torch

from .base import PositionScheme, register
from .codes import sinusoidal_code


@register("sinusoidal")
class Sinusoidal(PositionScheme):
    reads = ("base", "sinusoidal_layout", "sinusoidal_scale")

    def embed(self, pos):
        code = sinusoidal_code(pos, self.d, self.s["base"], scale=self.s["sinusoidal_scale"])
        if self.s["sinusoidal_layout"] == "concatenated":
            code = torch.cat([code[..., 0::2], code[..., 1::2]], dim=-1)
        return code
