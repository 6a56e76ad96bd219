"""`learned`: a trained position table added to the token embedding."""
from .base import PositionScheme, register


@register("learned")
class Learned(PositionScheme):
    ignores = {"learned_rows": "the table's rows are its shape"}

    def embed(self, pos):
        return self.p("pos.table.weight")[pos]
