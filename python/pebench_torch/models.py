"""The two models pe-bench trains, in PyTorch: the block stack (char LM, passkey) and the cue head
(tournament, filings, direction). Weights are nn.Parameters named as the export names them ('.' -> '__'). Each
model class registers the pe-bench tasks whose models it is (`@register_model("block_stack", tasks=...)`);
load_model picks the class by the task the export states (config.json pe_bench_task).

Coordinates are data (docs/architecture.md, "The batch model"): the block stack takes each token's
position ([T] shared by the batch, or [B, T]), its document ([B, T]; -1 a PAD token: invisible as a key,
sees no key, output 0, not scored) and the visibility (causal, bidirectional or prefix k; a layer's
window narrows it). A model is made for its visibility: `bidirectional=True` (some query sees a later
key) gives its schemes their encoder forms (SchemeConfig::bidirectional), and reading a model with the
other kind of visibility is refused, as pe-bench refuses it."""
import math

import torch

from .io import load_export
from .schemes import ages, batched, layer_plan, layer_schemes

_MODELS = {}  # task name -> model class


def register_model(kind, tasks):
    """Class decorator: the twin of pe-bench's model `kind`, which the tasks `tasks` train."""
    def add(cls):
        cls.kind = kind
        for t in tasks:
            if t in _MODELS:
                raise ValueError("task %r has two twin models" % t)
            _MODELS[t] = cls
        return cls
    return add


def model_class(task):
    """The twin model class of an export of `task`."""
    if task not in _MODELS:
        raise NotImplementedError("no twin model for pe-bench task %r (python/pebench_torch/models.py registers: %s)"
                                  % (task, ", ".join(sorted(_MODELS))))
    return _MODELS[task]


def visibility_of(visibility):
    """("causal", 0), ("bidirectional", 0) or ("prefix", k) of a forward's `visibility`: None or
    "causal" (a key n <= m), "bidirectional" (every key), ("prefix", k) (keys at positions n < k, or n <= m)."""
    if visibility in (None, "causal"):
        return "causal", 0
    if visibility == "bidirectional":
        return "bidirectional", 0
    if isinstance(visibility, (tuple, list)) and len(visibility) == 2 and visibility[0] == "prefix" \
            and int(visibility[1]) > 0:
        return "prefix", int(visibility[1])
    raise ValueError("visibility %r: \"causal\", \"bidirectional\" or (\"prefix\", k > 0)" % (visibility,))


def visible_keys(qpos, kpos, visibility=None, window=0, qdoc=None, kdoc=None):
    """Which key each query sees: [1 or B, Tq, T] booleans, from positions [Tq]/[T] or [B, Tq]/[B, T],
    visibility_of's visibility, a window W (> 0: keys with m - n >= W hidden) and documents [B, Tq],
    [B, T] (a key of the query's own document only; -1 PAD: seen by none, sees none)."""
    kind, k = visibility_of(visibility)
    age = ages(qpos, kpos)
    if kind == "causal":
        visible = age >= 0
    elif kind == "prefix":
        visible = (age >= 0) | (batched(kpos)[:, None, :] < k)
    else:
        visible = torch.ones_like(age, dtype=torch.bool)
    if window:
        visible = visible & (age < window)
    if qdoc is not None:
        visible = visible & (qdoc[:, :, None] == kdoc[:, None, :]) & (kdoc[:, None, :] >= 0)
    return visible


def mean_loss(logits, y, documents=None):
    """The mean next-token cross-entropy over the scored rows (as pe-bench scores them): a target
    y >= 0 and, with documents [B, T], not a PAD token (document -1)."""
    scored = y >= 0 if documents is None else (y >= 0) & (documents >= 0)
    return torch.nn.functional.cross_entropy(logits[scored], y[scored])


def frequency_plan_of(config):
    """The plan a checkpoint was fine-tuned under (config.json's frequency_plan), or None."""
    return config.get("frequency_plan")


class _Model(torch.nn.Module):
    """bidirectional: the model is made for a visibility that shows a query later keys (bidirectional,
    prefix): its schemes read later keys in their encoder forms; False (the default): causal."""

    def __init__(self, config, tensors, plan=None, bidirectional=False, rope_layout=None):
        super().__init__()
        self.config = config
        self.weights = torch.nn.ParameterDict({k.replace(".", "__"): torch.nn.Parameter(v.clone())
                                               for k, v in tensors.items()})
        self.H, self.dh, self.d = config["num_attention_heads"], config["head_dim"], config["hidden_size"]
        self.schemes = layer_schemes(config, self.p, plan if plan is not None else frequency_plan_of(config))
        self.bidirectional = bool(bidirectional)
        # the pairs RoPE turns: the export's rope_layout unless the caller reads it another way
        self.rope_layout = rope_layout or config.get("rope_layout", "interleaved")
        if self.rope_layout not in ("interleaved", "split-half"):
            raise ValueError("rope_layout %r: interleaved or split-half" % self.rope_layout)
        for s in self.schemes:
            s.bidirectional = self.bidirectional
            s.pair_layout = self.rope_layout

    def p(self, name):
        return self.weights[name.replace(".", "__")]

    def state_tensors(self):
        """{exported name: tensor}, for save_export."""
        return {k.replace("__", "."): v for k, v in self.weights.items()}

    def set_plan(self, plan):
        """Reads with another frequency plan (a map's): {"theta", "logit_scale"} or a rope_scaling
        dictionary with its lengths ({"rope_scaling", "original", "length"})."""
        for l, s in enumerate(self.schemes):
            if s.frequencies:
                s.set_plan(layer_plan(plan, l))

    def _check_visibility(self, visibility):
        """pe-bench's rule: a visibility that shows a query later keys needs a model made for it, and
        a model made for it is read with such a visibility."""
        if (visibility_of(visibility)[0] != "causal") != self.bidirectional:
            raise ValueError("this model was made for causal visibility: reading it with later keys visible needs "
                             "a model made for bidirectional or prefix visibility (bidirectional=True)"
                             if not self.bidirectional else
                             "this model was made for bidirectional or prefix visibility: read it with that visibility")

    def _embed(self, x, pos):
        h = self.p("tok_emb.weight")[x]
        e = self.schemes[0].embed(pos)  # [T, d] or [B, T, d]
        return h if e is None else h + e.to(h.dtype)

    def _attend(self, s, q, k, v, qpos, kpos, visibility=None, qdoc=None, kdoc=None):
        """One layer's heads: q [B, Tq, H, dh] at qpos, k, v [B, T, H, dh] at kpos -> [B, Tq, H, dh].
        Positions [Tq]/[T] or [B, Tq]/[B, T]; visibility, documents: visible_keys'. Hidden keys are a
        -inf mask; a query that sees no key (a PAD query) has probabilities and output 0."""
        q, k = s.rotate(q, qpos), s.rotate(k, kpos, key=True)
        scores = torch.einsum("bmhc,bnhc->bhmn", q, k) * (s.content_scale() / math.sqrt(self.dh))
        extra = s.score_terms(q, k, qpos, kpos, None)
        if extra is not None:
            scores = scores + extra
        visible = visible_keys(qpos, kpos, visibility, s.window, qdoc, kdoc)[:, None]  # [1 or B, 1, Tq, T]
        extra = s.context_terms(q, k, visible)
        if extra is not None:
            scores = scores + extra
        sees = visible.any(dim=-1, keepdim=True)
        a = torch.softmax(scores.masked_fill(~visible, float("-inf")).masked_fill(~sees, 0.0), dim=-1)
        a = a.masked_fill(~sees, 0.0)
        out = torch.einsum("bhmn,bnhc->bmhc", a, v)
        extra = s.value_term(a, qpos, kpos)
        return out if extra is None else out + extra


@register_model("block_stack", tasks=("charlm", "passkey"))
class BlockStack(_Model):
    """Embedding, residual attention blocks (fused qkv, proj, no bias, no MLP, no normalisation; causal
    unless made bidirectional), output tied to the embedding: logits = h tok_emb.weight^T, [B, T, vocab]."""

    def forward(self, x, positions=None, memory=None, documents=None, visibility=None):
        """x: tokens [B, T]. positions: [T] shared by the batch or [B, T] per sequence (default 0..T-1);
        documents: [B, T] (a query sees keys of its own document only; -1 a PAD token: its logits are
        those of a row that sees nothing, and mean_loss does not score it), or None: one document;
        visibility: visible_keys' ("causal" unless the model is bidirectional; each layer's window
        narrows it).
        memory: Transformer-XL's segment memory, one [B, M, d] tensor per block (the states entering
        it of the M tokens before the segment), or None. With a memory the segment stands at positions
        M .. M+T-1 and each block's keys and values run over [memory; segment] (shared positions, one
        document, causal). The states entering each block are left in self.block_inputs (the next
        segment's memory is their last rows)."""
        B, T = x.shape
        M = 0 if memory is None else memory[0].shape[1]
        self._check_visibility(visibility)
        if M and ((positions is not None and positions.dim() == 2) or documents is not None):
            raise ValueError("a segment memory sits at positions shared by the batch: per-token coordinates take none")
        pos = (torch.arange(T) + M) if positions is None else positions
        kpos = torch.cat([pos[:1] - M + torch.arange(M), pos]) if M else pos
        h = self._embed(x, pos)
        self.block_inputs = []
        for l, s in enumerate(self.schemes):
            self.block_inputs.append(h)
            w = self.p("blocks.%d.attn.qkv.weight" % l)
            q = (h @ w[:self.d].t()).reshape(B, T, self.H, self.dh)
            X = torch.cat([memory[l], h], dim=1) if M else h
            k, v = ((X @ w[i * self.d:(i + 1) * self.d].t()).reshape(B, M + T, self.H, self.dh) for i in (1, 2))
            o = self._attend(s, q, k, v, pos, kpos, visibility, documents, documents).reshape(B, T, self.d)
            h = h + o @ self.p("blocks.%d.attn.proj.weight" % l).t()
        return h @ self.p("tok_emb.weight").t()


@register_model("cue_head", tasks=("cue", "filings", "direction"))
class CueHead(_Model):
    """One head of width d: q from the last position (or every position), logits = z readout^T:
    [B, classes] (or [B, T, classes] with every_position)."""

    def forward(self, x, positions=None, every_position=False, query_rows=None):
        """query_rows: [B], each sequence's query row (its token and position), or None: the last row.
        A head made bidirectional sees every key, a causal one the keys up to its query."""
        B, T = x.shape
        visibility = "bidirectional" if self.bidirectional else None
        self._check_visibility(visibility)
        pos = torch.arange(T) if positions is None else positions
        h = self._embed(x, pos)
        qkv = h @ self.p("attn.qkv.weight").t()
        q, k, v = (t.reshape(B, T, 1, self.d) for t in qkv.split(self.d, dim=-1))
        qpos, kpos = (pos if every_position else pos[-1:]), pos
        if query_rows is not None:
            if every_position:
                raise ValueError("query_rows reads one row per sequence, not every position")
            rows = torch.as_tensor(query_rows)
            q = q[torch.arange(B), rows][:, None]
            qpos, kpos = pos[rows][:, None], pos.expand(B, T)
        elif not every_position:
            q = q[:, -1:]
        z = self._attend(self.schemes[0], q, k, v, qpos, kpos, visibility).reshape(B, -1, self.d)
        logits = z @ self.p("readout.weight").t()
        return logits if every_position else logits[:, 0]


def load_model(directory, plan=None, bidirectional=None, rope_layout=None):
    """The model of an export directory (the class registered for its task), read with `plan` if given,
    made for bidirectional or prefix visibility when `bidirectional` (_Model); None: as the checkpoint
    was made (its scheme section's "visibility": "bidirectional", else causal). rope_layout: the RoPE
    pairs to turn, "interleaved" or "split-half"; None: the export's config.json rope_layout (reading an
    export in the other layout is issue 50's fault 13)."""
    config, tensors = load_export(directory)
    if bidirectional is None:
        scheme = config.get("pe_bench_checkpoint", {}).get("scheme", {})
        bidirectional = scheme.get("visibility", "causal") == "bidirectional"
    return model_class(config["pe_bench_task"])(config, tensors, plan, bidirectional, rope_layout)
