"""The registry and the base class of the twin's schemes. A query at position m scores a key at n (age
r = m - n); every term is computed for all (query, key) pairs at once and added to the scaled content
score c = content_scale <q, k> / sqrt(d_head) before the softmax (docs/schemes.md).

Positions are data (docs/architecture.md, "The batch model"): a hook's positions are [T], shared by
the batch, or [B, T], each sequence's own; its result then has a leading dimension of 1 or B (the
model broadcasts it). A scheme whose `bidirectional` is set (the model was made for a visibility that
shows a query later keys) reads ages m - n < 0 in its encoder form (docs/schemes.md, "Bidirectional
(encoder) forms")."""
_REGISTRY = {}


def register(name):
    """Class decorator: the twin of pe-bench's scheme `name`."""
    def add(cls):
        if name in _REGISTRY:
            raise ValueError("scheme %r registered twice" % name)
        cls.name = name
        _REGISTRY[name] = cls
        return cls
    return add


def registered():
    """The names of the schemes the twin has, in registration order."""
    return list(_REGISTRY)


def scheme_class(name):
    if name not in _REGISTRY:
        raise NotImplementedError("scheme %r has no twin (python/pebench_torch/schemes/ has: %s)"
                                  % (name, ", ".join(_REGISTRY)))
    return _REGISTRY[name]


def layer_plan(plan, l):
    """Layer l's part of a frequency plan: its own entry when the plan lists layers (a hybrid whose
    RoPE layers turn differently), else the plan itself."""
    if plan is None or "layers" not in plan:
        return plan
    return plan["layers"][l]


def batched(pos):
    """Positions [T] (shared by the batch) or [B, T] (per sequence) as [1, T] or [B, T]."""
    return pos if pos.dim() == 2 else pos[None]


def ages(qpos, kpos):
    """The age m - n of every (query, key) pair: [1 or B, Tq, T]."""
    return batched(qpos)[:, :, None] - batched(kpos)[:, None, :]


def _layer_rename(l):
    """A scheme's per-layer tables are written for layer 0 (pos.layers.0.X): layer l reads its own."""
    return lambda n: n.replace("pos.layers.0.", "pos.layers.%d." % l)


class PositionScheme:
    """One scheme of one layer. `settings` are the scheme's own (every key in `reads` must be there);
    `params(name)` gives a tensor by its exported name, `rename` maps the one-layer name to the
    model's. The hooks' defaults are "acts nowhere"; a scheme overrides the ones where it acts.

    reads:  the settings the twin uses; ignores: pe-bench settings the twin needs no value of (with
    the reason). bidirectional: the encoder forms (set by the model, SchemeConfig::bidirectional)."""
    name = None
    reads = ()
    ignores = {}
    frequencies = False  # RoPE-like: set_plan rescales it

    def __init__(self, settings, H, dh, d_model, params, rename=None, plan=None):
        self.H, self.dh, self.d = H, dh, d_model
        missing = [k for k in self.reads if k not in settings]
        if missing:
            raise ValueError("%s: the export's scheme settings lack %s (a checkpoint written before the "
                             "setting existed: pe-bench reads it with the declared default)"
                             % (self.name, ", ".join(missing)))
        self.s = {k: settings[k] for k in self.reads}
        self._params = params
        self._rename = rename or (lambda n: n)
        self.window = 0
        self.bidirectional = False
        self.pair_layout = "interleaved"  # how a scheme that turns query/key pairs finds them (rope_layout)
        self.setup()
        if plan is not None and self.frequencies:
            self.set_plan(plan)

    @classmethod
    def for_model(cls, config, settings, params, plan):
        """The scheme of every layer of the model (one object per layer, each reading its own tables)."""
        H, dh, d = config["num_attention_heads"], config["head_dim"], config["hidden_size"]
        return [cls(settings, H, dh, d, params, _layer_rename(l), plan)
                for l in range(config["num_hidden_layers"])]

    def setup(self):
        """What the scheme derives from its settings, once."""

    def p(self, name):
        return self._params(self._rename(name))

    def set_plan(self, plan):
        raise ValueError("%s has no frequencies to rescale" % self.name)

    def embed(self, pos):
        """The embedding state's term at positions pos [T] or [B, T]: [T, d_model] or [B, T, d_model], or None."""
        return None

    def rotate(self, x, pos, key=False):
        """The Q/K transform of x [B, T, H, dh] at positions pos [T] or [B, T]: x holds queries, or keys
        when `key` (xPos scales them apart)."""
        return x

    def content_scale(self):
        return 1.0

    def score_terms(self, q, k, qpos, kpos, layer):
        """The scheme's terms of the scores [1 or B, H, Tq, T] (or None), q: [B, Tq, H, dh], k: [B, T, H, dh],
        qpos: [Tq] or [B, Tq], kpos: [T] or [B, T]."""
        return None

    def context_terms(self, q, k, visible):
        """The scheme's terms of the scores that read the other visible keys of a row (CoPE's count), or None:
        q [B, Tq, H, dh], k [B, T, H, dh] (after rotate), visible [1 or B, 1, Tq, T] (bool)."""
        return None

    def value_term(self, a, qpos, kpos):
        """The scheme's term of the heads' outputs [B, Tq, H, dh] (or None), a: [B, H, Tq, T] (a PAD query's row 0)."""
        return None
