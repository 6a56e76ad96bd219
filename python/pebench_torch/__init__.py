"""A PyTorch twin of pe-bench's models, written from docs/schemes.md, that loads a `pe-bench export`
(docs/interop.md): the block stack (the char LM, the passkey model) and the cue head (the tournament,
the filings head), every scheme (none, sinusoidal, learned, rope with any frequency plan, alibi, t5,
shaw, txl, deberta, tupe, hybrid), read with the checkpoint's frequency plan or a map's (a plan's
per-plane theta and logit scale, or a Transformers rope_scaling dictionary). python3-torch and numpy
only. Each scheme is one class in schemes/ under @register(name); each model class is registered for
the tasks whose model it is (@register_model), and load_model picks it by the export's pe_bench_task.

    from pebench_torch import load_model
    model = load_model("/tmp/rope")          # a directory `pe-bench export` wrote
    logits = model(tokens)                    # tokens: LongTensor [B, T] at positions 0..T-1
    logits = model(tokens, positions=pos, documents=docs)  # pos, docs: [B, T]; docs -1 a PAD token
    loss = mean_loss(logits, targets, docs)   # over the scored rows (PAD rows are not)

A model made with bidirectional=True (load_model(..., bidirectional=True); by default, as its
checkpoint was made: a cue head trained with visibility: bidirectional) is read with
visibility="bidirectional" or ("prefix", k), its schemes in their encoder forms (models.py). A cue
head reads at its last row, or at each sequence's own row: model(tokens, query_rows=rows), rows [B].
"""
from .io import load_export, save_export
from .models import BlockStack, CueHead, load_model, mean_loss, model_class, register_model
from .schemes import PositionScheme, register, registered
from .rope_scaling import inverse_frequencies

__all__ = ["load_export", "save_export", "BlockStack", "CueHead", "load_model", "mean_loss", "model_class",
           "register_model", "PositionScheme", "register", "registered", "inverse_frequencies"]
