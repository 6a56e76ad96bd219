"""The positional schemes of the twin, one small class per scheme (one module each), in a registry
keyed by pe-bench's scheme names: `@register("rope")`. A scheme is built from the export: its settings
are the checkpoint's scheme block (config.json pe_bench_checkpoint.scheme, every declared setting
resolved); a hybrid layer's are its hybrid_layers entry over the declared defaults (hybrid.py).
The hooks each class may override are PositionScheme's (base.py)."""
from .base import PositionScheme, ages, batched, layer_plan, register, registered, scheme_class
from . import alibi, alibi_learned, cope, deberta, fire, hybrid, kerple, learned, none, rope, shaw  # noqa: F401 (register)
from . import sinusoidal, t5, tupe, txl, xpos  # noqa: F401 (register)

__all__ = ["PositionScheme", "ages", "batched", "layer_plan", "layer_schemes", "register", "registered", "scheme_class"]

# the checkpoint's scheme block holds the model's shape beside the settings
_SHAPE = ("name", "d_model", "d_head", "n_heads")


def layer_schemes(config, params, plan=None):
    """One scheme object per layer of the model an export's `config` describes; its settings are the
    checkpoint's scheme block, and the declared defaults (scheme_defaults) of any it lacks."""
    block = config["pe_bench_checkpoint"]["scheme"]
    settings = {k: v for k, v in block.items() if k not in _SHAPE}
    # a checkpoint written before a setting existed lacks it, and pe-bench reads it with the declared
    # default: the export's scheme_defaults (pe-bench's registry), never one restated here
    for k, v in config.get("scheme_defaults", {}).get(block["name"], {}).items():
        settings.setdefault(k, v)
    return scheme_class(block["name"]).for_model(config, settings, params, plan)
