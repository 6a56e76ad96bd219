"""`hybrid`: each layer its own scheme, window and settings (hybrid_layers entries
"scheme[:window][:key=value]..."). A layer's scheme is a one-layer scheme whose tables are the
layer's; its settings are its entry's over the scheme's declared defaults, which the export states
(config.json's scheme_defaults, written from pe-bench's registry: none restated here)."""
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


@register("hybrid")
class Hybrid(PositionScheme):
    ignores = {"hybrid_layers": "read by for_model: it builds the layers' own schemes"}

    @classmethod
    def for_model(cls, config, settings, params, plan):
        H, dh, d = config["num_attention_heads"], config["head_dim"], config["hidden_size"]
        if "scheme_defaults" not in config:
            raise ValueError("hybrid: the export has no scheme_defaults (the registry's declared defaults a layer's "
                             "entry leaves out); export the checkpoint again with this pe-bench")
        defaults = config["scheme_defaults"]
        out = []
        for l, spec in enumerate(settings["hybrid_layers"]):
            name, window, own = parse_hybrid_layer(spec)
            layer_cls = scheme_class(name)
            if layer_cls.embed is not PositionScheme.embed:
                raise ValueError("a hybrid layer cannot act on the shared embedding state (%s)" % spec)

            # the one-layer scheme's tables are the layer's: pos.X, pos.layers.0.X -> pos.layers.l.X
            def rename(n, l=l):
                return "pos.layers.%d.%s" % (l, n[len("pos.layers.0."):] if n.startswith("pos.layers.0.") else n[4:])
            s = layer_cls(dict(defaults.get(name, {}), **own), H, dh, d, params, rename,
                          layer_plan(plan, l) if layer_cls.frequencies else None)
            s.window = window
            out.append(s)
        return out
