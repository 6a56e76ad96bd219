"""`sinusoidal`: the fixed sin/cos code added to the token embedding."""
from .base import PositionScheme, register
from .codes import sinusoidal_code


@register("sinusoidal")
class Sinusoidal(PositionScheme):
    reads = ("base",)

    def embed(self, pos):
        return sinusoidal_code(pos, self.d, self.s["base"])
