#!/usr/bin/python3
"""The batch modes of the PyTorch twin (python/pebench_torch; docs/architecture.md, "The batch model"),
for every scheme the twin registers, on a small 2-layer block stack with random float64 weights (no
pe-bench binary needed). Invariants, each printed with the max abs difference it measured:
  1 packed:  two documents per sequence, positions restarting per document or running on across
             them: each document's rows have the logits it gets alone at the same positions;
  2 padded:  PAD rows (document -1) left or right, positions counted over content or over storage:
             the content rows have the logits of the unpadded sequence at the same positions, the mean
             loss over non-PAD rows is the content's, a PAD row's attention output is 0 in every block
             (its logits are its embedding's), and logits and gradients stay finite;
  3 order:   a causal model's row t does not change when a later token changes; a bidirectional
             model's does; with prefix k, a row inside the prefix changes when a later prefix token
             changes and not when the token at k changes; a model read with the other kind of
             visibility is refused;
  4 encoder: alibi's encoder bias is -slope_h |m - n| (symmetric); t5's (and TUPE-R's relative term,
             and a hybrid's t5 layer's) uses the two-sided buckets.
1 and 2 run under causal, bidirectional and prefix visibility (the last two on a model made with
bidirectional=True, its schemes in their encoder forms). Equal means within EXACT; changes, more than CHANGED.
Exit 0 when every invariant holds, 1 otherwise, 77 (one line) without python3-torch.
Usage: tests/twin_modes.py"""
import math
import os
import sys

try:
    import torch
except ImportError:
    print("twin_modes: skipped: python3-torch is not installed (scripts/install-deps.sh installs it)")
    sys.exit(77)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from pebench_torch import BlockStack, mean_loss  # noqa: E402
from pebench_torch.schemes import registered  # noqa: E402
from pebench_torch.schemes.alibi import alibi_reference_slopes  # noqa: E402
from pebench_torch.schemes.codes import t5_bidirectional_bucket, t5_bucket  # noqa: E402

EXACT, CHANGED = 1e-12, 1e-6
V, D, H, L = 11, 16, 2, 2
DH = D // H
torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)

# The settings of each scheme here (small clips, so that clipping happens) and its tables: (name, shape),
# "pos.X" one for the model, "pos.layers.{l}.X" one per layer (a hybrid layer's are all its layer's).
SETTINGS = {"none": {}, "sinusoidal": {"base": 10000.0, "sinusoidal_layout": "interleaved", "sinusoidal_scale": 1.0}, "learned": {"learned_rows": 64},
            "rope": {"base": 10000.0, "rotary_fraction": 1.0}, "alibi": {"alibi_slopes": []},
            "t5": {"t5_buckets": 32, "t5_max_distance": 128}, "shaw": {"shaw_clip": 4, "shaw_values": True, "shaw_per_head": False},
            "txl": {"base": 10000.0},
            "deberta": {"deberta_clip": 4, "deberta_log_buckets": False, "deberta_max_distance": 64},
            "tupe": {"tupe_relative": True, "learned_rows": 64, "t5_buckets": 32, "t5_max_distance": 128},
            "kerple": {"kerple_kernel": "log"}, "alibi-learned": {},
            "fire": {"fire_width": 8, "fire_threshold": 4.5, "fire_interpolate": True},
            "xpos": {"base": 10000.0, "xpos_zeta_offset": 0.4, "xpos_scale_base": 8.0},
            "cope": {"cope_positions": 6},
            "hybrid": {"hybrid_layers": ["rope:4", "t5"]}}
TABLES = {"learned": [("pos.table.weight", (64, D))], "t5": [("pos.t5_bias.weight", (32, H))],
          "shaw": [("pos.layers.{l}.shaw_rk.weight", (9, DH)), ("pos.layers.{l}.shaw_rv.weight", (9, DH))],
          "txl": [("pos.layers.{l}.w_r.weight", (H * DH, D)), ("pos.txl_u", (H, DH)), ("pos.txl_v", (H, DH))],
          "deberta": [("pos.deberta_p.weight", (8, D)), ("pos.layers.{l}.w_kr.weight", (H * DH, D)),
                      ("pos.layers.{l}.w_qr.weight", (H * DH, D))],
          "tupe": [("pos.tupe_p.weight", (64, D)), ("pos.layers.{l}.u_q.weight", (H * DH, D)),
                   ("pos.layers.{l}.u_k.weight", (H * DH, D)), ("pos.t5_bias.weight", (32, H))],
          "kerple": [("pos.layers.{l}.kerple", (2, H))],
          "alibi-learned": [("pos.layers.{l}.alibi_slope", (1, H))],
          "fire": [("pos.layers.{l}.fire_in", (2, 8)), ("pos.layers.{l}.fire_out", (9, H)),
                   ("pos.layers.{l}.fire_scale", (1, 2))],
          "cope": [("pos.layers.{l}.cope_e.weight", (6, DH))]}


def model(scheme, bidirectional=False):
    """A random 2-layer block stack of `scheme` (the same weights for either form)."""
    torch.manual_seed(1)
    t = {"tok_emb.weight": torch.randn(V, D)}
    for l in range(L):
        t["blocks.%d.attn.qkv.weight" % l] = torch.randn(3 * D, D) / math.sqrt(D)
        t["blocks.%d.attn.proj.weight" % l] = torch.randn(D, D) / math.sqrt(D)
    layers = [s.split(":")[0] for s in SETTINGS["hybrid"]["hybrid_layers"]] if scheme == "hybrid" else [scheme] * L
    for l, name in enumerate(layers):
        for n, shape in TABLES.get(name, []):
            if scheme == "hybrid":
                n = "pos.layers.%d.%s" % (l, n.split(".", 3)[-1] if n.startswith("pos.layers.") else n[4:])
            t[n.format(l=l)] = torch.randn(*shape) * 0.5
    config = {"num_attention_heads": H, "head_dim": DH, "hidden_size": D, "num_hidden_layers": L,
              "scheme_defaults": SETTINGS,
              "pe_bench_checkpoint": {"scheme": dict(SETTINGS[scheme], name=scheme, d_model=D, d_head=DH, n_heads=H)}}
    return BlockStack(config, t, bidirectional=bidirectional)


def ar(a, n):
    return torch.arange(a, a + n)


def readings(scheme):
    """(model, visibility) of the three visibilities."""
    encoder = model(scheme, bidirectional=True)
    return [(model(scheme), "causal"), (encoder, "bidirectional"), (encoder, ("prefix", 3))]


def packed(scheme):
    """Invariant 1: the max |packed - alone| over the documents' rows."""
    worst = 0.0
    torch.manual_seed(2)
    x = torch.randint(0, V, (2, 10))
    lengths = [(4, 6), (7, 3)]
    docs = torch.tensor([[0] * a + [1] * b for a, b in lengths])
    for m, vis in readings(scheme):
        for reset in (True, False):
            pos = torch.stack([torch.cat([ar(0, a), ar(0, b)]) if reset else ar(0, 10) for a, b in lengths])
            out = m(x, positions=pos, documents=docs, visibility=vis)
            for i, (a, b) in enumerate(lengths):
                for lo, hi in ((0, a), (a, a + b)):
                    alone = m(x[i:i + 1, lo:hi], positions=pos[i, lo:hi], visibility=vis)
                    worst = max(worst, (out[i, lo:hi] - alone[0]).abs().max().item())
    return worst <= EXACT, "max |packed - alone| %.1e (reset and running positions, 3 visibilities)" % worst


def padded(scheme):
    """Invariant 2: the max |padded - unpadded| over the content rows, and |loss difference|."""
    worst = loss_diff = pad_out = 0.0
    finite = True
    torch.manual_seed(3)
    T, C = 9, 6  # storage rows, content rows of sequence 0 (sequence 1 is unpadded)
    x, y = torch.randint(0, V, (2, T)), torch.randint(0, V, (2, T))
    for m, vis in readings(scheme):
        for left in (True, False):
            for storage in (True, False):
                rows = ar(T - C, C) if left else ar(0, C)  # the content's storage rows in sequence 0
                docs = torch.zeros(2, T, dtype=torch.long)
                docs[0] = -1
                docs[0, rows] = 0
                pos = torch.stack([ar(0, T), ar(0, T)])
                if not storage:
                    pos[0] = 0
                    pos[0, rows] = ar(0, C)
                m.zero_grad()
                out = m(x, positions=pos, documents=docs, visibility=vis)
                states = [h.detach() for h in m.block_inputs]
                loss = mean_loss(out, y, docs)
                loss.backward()
                finite = finite and bool(out.isfinite().all()) and all(p.grad.isfinite().all() for p in m.parameters())
                with torch.no_grad():
                    alone = m(x[:1, rows], positions=pos[0, rows], visibility=vis)[0]
                    whole = m(x[1:], positions=pos[1], visibility=vis)[0]
                    worst = max(worst, (out[0, rows] - alone).abs().max().item(), (out[1] - whole).abs().max().item())
                    content = torch.nn.functional.cross_entropy(torch.cat([alone, whole]),
                                                                torch.cat([y[0, rows], y[1]]))
                    loss_diff = max(loss_diff, abs(loss.item() - content.item()))
                    pads = docs[0] < 0  # each block leaves a PAD row's state as its embedding
                    h0 = states[0][0, pads]
                    pad_out = max([pad_out, (out[0, pads] - h0 @ m.p("tok_emb.weight").t()).abs().max().item()]
                                  + [(h[0, pads] - h0).abs().max().item() for h in states])
    ok = worst <= EXACT and loss_diff <= EXACT and pad_out <= EXACT and finite
    return ok, "max |padded - unpadded| %.1e, |loss - content loss| %.1e, PAD rows' attention output %.1e, " \
               "finite %s (left/right x content/storage, 3 visibilities)" % (worst, loss_diff, pad_out, finite)


def order(scheme):
    """Invariant 3: a later token's effect on earlier rows under each visibility."""
    torch.manual_seed(4)
    x = torch.randint(0, V, (2, 10))

    def change(m, vis, t, rows):
        """Per row of `rows`, the max |logit change| when token t changes."""
        x2 = x.clone()
        x2[:, t] = (x2[:, t] + 1) % V
        return (m(x, visibility=vis) - m(x2, visibility=vis))[:, rows].abs().amax(dim=(0, 2))
    causal, encoder = model(scheme), model(scheme, bidirectional=True)
    later = change(causal, "causal", 6, slice(0, 6)).max().item()  # rows 0..5, token 6
    seen = change(encoder, "bidirectional", 6, slice(0, 6)).min().item()
    in_prefix = change(encoder, ("prefix", 5), 3, slice(0, 3)).min().item()  # rows 0..2, prefix token 3
    past_prefix = change(encoder, ("prefix", 5), 5, slice(0, 5)).max().item()  # rows 0..4, the token at k
    refused = 0
    for m, vis in ((causal, "bidirectional"), (causal, ("prefix", 2)), (encoder, "causal")):
        try:
            m(x, visibility=vis)
        except ValueError:
            refused += 1
    ok = later <= EXACT and seen > CHANGED and in_prefix > CHANGED and past_prefix <= EXACT and refused == 3
    return ok, "causal: later token moves rows by %.1e; bidirectional: every row moves >= %.1e; prefix 5: rows in " \
               "it move >= %.1e on a later prefix token, %.1e on the token at 5; %d/3 mismatched " \
               "visibilities refused" % (later, seen, in_prefix, past_prefix, refused)


def buckets(age, bidirectional):
    """The t5 bucket of each age [B, Tq, T] (32 buckets, max_distance 128)."""
    bucket = t5_bidirectional_bucket if bidirectional else t5_bucket
    return torch.tensor([[[bucket(int(r), 32, 128) for r in row] for row in a] for a in age.tolist()])


def encoder_bias(scheme):
    """Invariant 4: the encoder form's bias values (alibi; t5, TUPE-R's relative term, hybrid's t5 layer)."""
    pos = torch.stack([ar(0, 12), ar(5, 12)])  # per-sequence positions
    age = pos[:, :, None] - pos[:, None, :]
    layer = 1 if scheme == "hybrid" else 0
    s = model(scheme, bidirectional=True).schemes[layer]
    q = torch.zeros(2, 12, H, DH)
    got = s.score_terms(q, q, pos, pos, 0)
    if scheme == "alibi":
        slopes = torch.tensor(alibi_reference_slopes(H))
        want = -slopes[None, :, None, None] * age.abs()[:, None]
        diff = max((got - want).abs().max().item(), (got - got.transpose(2, 3)).abs().max().item())
        return diff <= EXACT, "max |bias + slope |m - n|| and |bias - bias^T| %.1e" % diff
    cases = {5: 5, -5: 21, 20: 10, -20: 26, 100: 15, -100: 31}
    wrong = [r for r, b in cases.items() if t5_bidirectional_bucket(r, 32, 128) != b]
    table = s.p("pos.t5_bias.weight")

    def bias(bidirectional):
        return table[buckets(age, bidirectional)].permute(0, 3, 1, 2)
    if scheme == "tupe":  # the absolute term is the causal form's: take its relative term away
        got = got - model(scheme).schemes[0].score_terms(q, q, pos, pos, 0) + bias(False)
    diff = (got - bias(True)).abs().max().item()
    return not wrong and diff <= EXACT, "buckets of ages %s: %s; max |bias - table[bucket]| %.1e" % (
        list(cases), "ok" if not wrong else "wrong at %s" % wrong, diff)


failures = 0
for scheme in registered():
    if scheme not in SETTINGS:
        print("twin_modes: FAIL: scheme %r has no settings and tables in tests/twin_modes.py" % scheme)
        failures += 1
        continue
    checks = [("1 packed", packed), ("2 padded", padded), ("3 order", order)]
    if scheme in ("alibi", "t5", "tupe", "hybrid"):
        checks.append(("4 encoder", encoder_bias))
    for label, check in checks:
        ok, text = check(scheme)
        failures += not ok
        print("twin_modes: %-10s %-9s %s%s" % (scheme, label, text, "" if ok else "  FAIL"))
sys.exit(1 if failures else 0)
