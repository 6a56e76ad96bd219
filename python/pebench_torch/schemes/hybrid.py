"""`hybrid`: each layer its own scheme, window and settings (hybrid_layers entries
"scheme[:window][:key=value]..."). A layer's scheme is a one-layer scheme whose tables are the
layer's; its settings are its entry's over the scheme's declared defaults (DECLARED_DEFAULTS)."""
from .base import PositionScheme, layer_plan, register, scheme_class


def parse_hybrid_layer(spec):
    """"scheme[:window][:key=value]..." -> (scheme, window, {key: value}); values are numbers or
    true/false (pe-bench has checked the spelling before writing it)."""
    parts = spec.split(":")
    window, own = 0, {}
    for part in parts[1:]:
        if "=" not in part:
            window = int(part)
            continue
        key, _, text = part.partition("=")
        if text in ("true", "false"):
            own[key] = text == "true"
        else:
            try:
                own[key] = int(text)
            except ValueError:
                own[key] = float(text)
    return parts[0], window, own


# The registry's declared defaults of the settings a layer's entry may leave out. The export states only
# the entries (hybrid_layers), so this is the twin's one copy of them; tests/twin_check.py compares it
# with pe-bench's key table (`pe-bench run --help`) and fails on any difference.
DECLARED_DEFAULTS = {"sinusoidal": {"base": 10000.0}, "rope": {"base": 10000.0, "rotary_fraction": 1.0},
                     "alibi": {"alibi_slopes": []}, "t5": {"t5_buckets": 32, "t5_max_distance": 128},
                     "shaw": {"shaw_clip": 16}, "txl": {"base": 10000.0}, "deberta": {"deberta_clip": 16},
                     "tupe": {"tupe_relative": False, "t5_buckets": 32, "t5_max_distance": 128}}


@register("hybrid")
class Hybrid(PositionScheme):
    ignores = {"hybrid_layers": "read by for_model: it builds the layers' own schemes"}

    @classmethod
    def for_model(cls, config, settings, params, plan):
        H, dh, d = config["num_attention_heads"], config["head_dim"], config["hidden_size"]
        out = []
        for l, spec in enumerate(settings["hybrid_layers"]):
            name, window, own = parse_hybrid_layer(spec)
            layer_cls = scheme_class(name)
            if layer_cls.embed is not PositionScheme.embed:
                raise ValueError("a hybrid layer cannot act on the shared embedding state (%s)" % spec)

            # the one-layer scheme's tables are the layer's: pos.X, pos.layers.0.X -> pos.layers.l.X
            def rename(n, l=l):
                return "pos.layers.%d.%s" % (l, n[len("pos.layers.0."):] if n.startswith("pos.layers.0.") else n[4:])
            s = layer_cls(dict(DECLARED_DEFAULTS.get(name, {}), **own), H, dh, d, params, rename,
                          layer_plan(plan, l) if layer_cls.frequencies else None)
            s.window = window
            out.append(s)
        return out
