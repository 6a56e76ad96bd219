"""`none` (NoPE): no position; the causal mask is the only source of order."""
from .base import PositionScheme, register


@register("none")
class NoPE(PositionScheme):
    pass
