"""The two models pe-bench trains, in PyTorch: the block stack (char LM, passkey) and the cue head
(tournament, filings). Weights are nn.Parameters named as the export names them ('.' -> '__'). Each
model class registers the pe-bench tasks whose models it is (`@register_model("block_stack", tasks=...)`);
load_model picks the class by the task the export states (config.json pe_bench_task)."""
import math

import torch

from .io import load_export
from .schemes import layer_plan, layer_schemes

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


def frequency_plan_of(config):
    """The plan a checkpoint was fine-tuned under (config.json's frequency_plan), or None."""
    return config.get("frequency_plan")


class _Model(torch.nn.Module):
    def __init__(self, config, tensors, plan=None):
        super().__init__()
        self.config = config
        self.weights = torch.nn.ParameterDict({k.replace(".", "__"): torch.nn.Parameter(v.clone())
                                               for k, v in tensors.items()})
        self.H, self.dh, self.d = config["num_attention_heads"], config["head_dim"], config["hidden_size"]
        self.schemes = layer_schemes(config, self.p, plan if plan is not None else frequency_plan_of(config))

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

    def _embed(self, x, pos):
        h = self.p("tok_emb.weight")[x]
        e = self.schemes[0].embed(pos)
        return h if e is None else h + e.to(h.dtype)[None]

    def _attend(self, s, q, k, v, qpos, kpos):
        """One layer's heads: q [B, Tq, H, dh] at qpos, k, v [B, T, H, dh] at kpos -> [B, Tq, H, dh]."""
        q, k = s.rotate(q, qpos), s.rotate(k, kpos)
        scores = torch.einsum("bmhc,bnhc->bhmn", q, k) * (s.content_scale() / math.sqrt(self.dh))
        extra = s.score_terms(q, k, qpos, kpos, None)
        if extra is not None:
            scores = scores + extra
        age = qpos[:, None] - kpos[None, :]
        visible = age >= 0
        if s.window:
            visible = visible & (age < s.window)
        a = torch.softmax(scores.masked_fill(~visible[None, None], float("-inf")), dim=-1)
        out = torch.einsum("bhmn,bnhc->bmhc", a, v)
        extra = s.value_term(a, qpos, kpos)
        return out if extra is None else out + extra


@register_model("block_stack", tasks=("charlm", "passkey"))
class BlockStack(_Model):
    """Embedding, residual causal attention blocks (fused qkv, proj, no bias, no MLP, no normalisation),
    output tied to the embedding: logits = h tok_emb.weight^T, [B, T, vocab]."""

    def forward(self, x, positions=None, memory=None):
        """memory: Transformer-XL's segment memory, one [B, M, d] tensor per block (the states entering
        it of the M tokens before the segment), or None. With a memory the segment stands at positions
        M .. M+T-1 and each block's keys and values run over [memory; segment]. The states entering
        each block are left in self.block_inputs (the next segment's memory is their last rows)."""
        B, T = x.shape
        M = 0 if memory is None else memory[0].shape[1]
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
            o = self._attend(s, q, k, v, pos, kpos).reshape(B, T, self.d)
            h = h + o @ self.p("blocks.%d.attn.proj.weight" % l).t()
        return h @ self.p("tok_emb.weight").t()


@register_model("cue_head", tasks=("cue", "filings"))
class CueHead(_Model):
    """One head of width d: q from the last position (or every position), logits = z readout^T:
    [B, classes] (or [B, T, classes] with every_position)."""

    def forward(self, x, positions=None, every_position=False):
        B, T = x.shape
        pos = torch.arange(T) if positions is None else positions
        h = self._embed(x, pos)
        qkv = h @ self.p("attn.qkv.weight").t()
        q, k, v = (t.reshape(B, T, 1, self.d) for t in qkv.split(self.d, dim=-1))
        qpos = pos if every_position else pos[-1:]
        if not every_position:
            q = q[:, -1:]
        z = self._attend(self.schemes[0], q, k, v, qpos, pos).reshape(B, -1, self.d)
        logits = z @ self.p("readout.weight").t()
        return logits if every_position else logits[:, 0]


def load_model(directory, plan=None):
    """The model of an export directory (the class registered for its task), read with `plan` if given."""
    config, tensors = load_export(directory)
    return model_class(config["pe_bench_task"])(config, tensors, plan)
