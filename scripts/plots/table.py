"""The one table of figures. Each entry names a figure (its files: NAME.png and NAME.svg under --out),
the function that draws it, the check of what it reads, where its input is (an option, or a file
beside that option's file), how that input is made again, and its line of --help. --only, --help, the
default list (every figure, in table order) and the output names all read this table; adding a figure
is one function in its family's module and one entry here (a new kind of input: one entry in OPTIONS).
"""
import os

from . import (attention_diagnostics, charlm, context_extension, cue, direction, exercises, failures, filings, hybrids,
               logn, packing, passkey, probes, random_positions, rope_base, theory, txl_memory)
from .load import load


class Option:
    """A command-line option naming an input: --NAME (dashes for underscores) with its default; folder:
    the value is a folder, and a figure's file is inside it rather than beside it."""

    def __init__(self, name, default, help=None, folder=False):
        self.name, self.default, self.help, self.folder = name, default, help, folder

    @property
    def flag(self):
        return "--" + self.name.replace("_", "-")


OPTIONS = [
    Option("tournament", "results/tournament-10seeds/results.json"),
    Option("geometry", None, "default: geometry.json beside --tournament"),
    Option("theory", "results/theory.json"),
    Option("charlm", "results/charlm/results.json"),
    Option("filings", "results/filings/results.json"),
    Option("passkey", "results/passkey/results.json"),
    Option("context_extension", "results/context-extension",
           "the folder of make context-extension (results.json, passkey.json, tournament.json, attention.json)",
           folder=True),
    Option("rope_base", "results/rope-base/summary.json",
           "scripts/rope_base_summary.py's summary.json (scripts/rope-base.sh)"),
    Option("hybrids", "results/hybrids/summary.json", "scripts/hybrids_summary.py's summary.json (scripts/hybrids.sh)"),
    Option("txl_memory", "results/txl-memory/summary.json",
           "scripts/txl_memory_summary.py's summary.json (scripts/txl-memory.sh)"),
    Option("packing", "results/packing/summary.json",
           "scripts/packing_summary.py's summary.json (scripts/packing.sh)"),
    Option("packing_charlm", "results/packing/summary-charlm.json",
           "scripts/packing_charlm_summary.py's summary-charlm.json (scripts/packing.sh)"),
    Option("direction", "results/direction",
           "the folder of the direction experiments (before/results.json, nearest/results.json)", folder=True),
    Option("failures", "results/failures/results.json", "pe-bench failures' results.json (make failures)"),
    Option("logn", "results/logn", "the folder of experiments/logn/ (tournament/, passkey/, charlm/ results.json)",
           folder=True),
    Option("schemes_summary", "results/schemes/summary.json",
           "scripts/schemes_summary.py's summary.json (make schemes-table)"),
    Option("probes", "results", "the folder holding the probes' results (needles/, order/, distractors/, "
           "declarations/ results.json)", folder=True),
    Option("attention_diagnostics", "results/attention-diagnostics/summary.json",
           "scripts/attention_diagnostics_summary.py's summary.json (scripts/attention-diagnostics.sh)"),
    Option("exercises", "results/exercises", "the folder of pe-bench exercise's answers (3.json, 4.json, 7.json, 13.1.json)",
           folder=True),
]
OPTION = {o.name: o for o in OPTIONS}


class Figure:
    """One figure: draw(data) returns a matplotlib figure, or a string saying why there is none;
    check(data) raises DataError on what draw could not read; the input is the file of option
    `option`, or `file` beside it (inside it for a folder option), read by `read`."""

    def __init__(self, name, draw, check, option, maker, help, file=None, read=load):
        self.name, self.draw, self.check, self.option, self.maker = name, draw, check, option, maker
        self.help, self.file, self.read = help, file, read

    def input(self, args):
        """The path of its input under the parsed options."""
        value = getattr(args, self.option)
        if self.file is None:
            return value
        return os.path.join(value if OPTION[self.option].folder else os.path.dirname(value), self.file)

    def where(self):
        """Its input in words, for --help."""
        flag = OPTION[self.option].flag
        if self.file is None:
            return flag
        return "%s %s %s" % (self.file, "in" if OPTION[self.option].folder else "beside", flag)

    def replaced(self, **fields):
        """A copy with some fields replaced (tests swap a check or a drawing)."""
        copy = Figure(self.name, self.draw, self.check, self.option, self.maker, self.help, self.file, self.read)
        for k, v in fields.items():
            setattr(copy, k, v)
        return copy


RUN, CONTEXT_EXTENSION = "pe-bench run", "make context-extension"
TABLE = [
    Figure("tournament", cue.fig_tournament, cue.check_cue_results, "tournament", RUN,
           "accuracy against length, every scheme: mean, each seed, 95% interval, published"),
    Figure("rescaling", cue.fig_rescaling, cue.check_cue_results, "tournament", RUN,
           "RoPE read plainly and with each context-extension map, same style"),
    Figure("rope_score_by_age", cue.fig_rope_score, cue.check_geometry, "geometry", "pe-bench analyze",
           "each RoPE head's score for a marked key against its age; the dive and rebound"),
    Figure("wavelength_census", theory.fig_census, theory.check_theory, "theory", "pe-bench analyze theory",
           "RoPE's wavelength per plane, and each map's per-plane factor"),
    Figure("log_ruler", theory.fig_log_ruler, theory.check_theory, "theory", "pe-bench analyze theory",
           "the RoPE kernel at d = 64, 512, 8192 beside its limit and the straight line"),
    Figure("charlm_perplexity", charlm.fig_charlm_perplexity, charlm.check_charlm_perplexity, "charlm", RUN,
           "character-LM perplexity against context, every scheme and RoPE reading"),
    Figure("charlm_position", charlm.fig_charlm_position, charlm.check_charlm_position, "charlm", RUN,
           "character-LM loss by position at the longest context, training length marked"),
    Figure("filings_accuracy", filings.fig_filings_accuracy, filings.check_filings_results, "filings", RUN,
           "filings readers on all queries and on the far ones: mean, each seed, interval, published"),
    Figure("filings_document", filings.fig_filings_document, filings.check_document, "filings", RUN,
           "one held-out filing: every reader's answer at every position, coloured by company, the true "
           "answer on top", file="document.json"),
    Figure("filings_lab", filings.fig_filings_document, filings.check_document, "filings", RUN,
           "the laboratory's filing (209 tokens, Fenwick Logistics named last at token 64), drawn the same way",
           file="lab_filing.json"),
    Figure("passkey_accuracy", passkey.fig_passkey_accuracy, passkey.check_passkey_results, "passkey", RUN,
           "passkey retrieval: whole-passkey accuracy against length, every reader: mean, each seed, 95% "
           "interval, the training length marked"),
    Figure("passkey_heatmaps", passkey.fig_passkey_heatmaps, passkey.check_passkey_results, "passkey", RUN,
           "passkey retrieval: one heatmap per reader, length x depth, the training length marked"),
    Figure("passkey_training", passkey.fig_passkey_training, passkey.check_passkey_runs, "passkey", RUN,
           "passkey retrieval: every run's answer loss against step (each run's metrics.jsonl), one panel "
           "per scheme", file="runs/passkey", read=passkey.load_passkey_runs),
    Figure("context_extension_perplexity", context_extension.fig_context_extension_perplexity,
           charlm.check_charlm_perplexity, "context_extension", CONTEXT_EXTENSION,
           "the char LM's RoPE models read at 128-2048 by every context-extension reader: plain, each map, "
           "cached decoding; fine-tuned", file="results.json"),
    Figure("context_extension_passkey", passkey.fig_passkey_heatmaps, passkey.check_passkey_results,
           "context_extension", CONTEXT_EXTENSION, "passkey heatmaps (length x depth) per reader",
           file="passkey.json"),
    Figure("context_extension_tournament", context_extension.fig_context_extension_tournament,
           cue.check_cue_results, "context_extension", CONTEXT_EXTENSION,
           "the tournament's RoPE heads read with every map", file="tournament.json"),
    Figure("context_extension_attention", context_extension.fig_context_extension_attention,
           context_extension.check_attention, "context_extension", CONTEXT_EXTENSION,
           "entropy / ln n, sink mass, mass beyond the training length against context, one line per reader, "
           "from pe-bench analyze attention", file="attention.json"),
    Figure("context_extension_tournament_attention", context_extension.fig_context_extension_attention,
           context_extension.check_attention, "context_extension", CONTEXT_EXTENSION,
           "the same for the tournament's heads", file="tournament-attention.json"),
    Figure("rope_base", rope_base.fig_rope_base, rope_base.check_rope_base, "rope_base", "make rope-base",
           "RoPE retrained with bases 100 to 10^6: perplexity against context, turns per plane over the "
           "training offsets, and a base change at fine-tuning against PI and the code YaRN"),
    Figure("hybrids", hybrids.fig_hybrids, hybrids.check_hybrids, "hybrids", "make hybrids",
           "local-RoPE / global-NoPE stacks at 1:1, 3:1, 5:1 against all-RoPE and all-NoPE of the same depth: "
           "char-LM perplexity and passkey accuracy against length, one panel per task and depth"),
    Figure("hybrids_passkey_depth", hybrids.fig_hybrids_passkey_depth, hybrids.check_hybrids, "hybrids",
           "make hybrids", "the same stacks' passkey accuracy by length and depth, one heatmap per stack and reader"),
    Figure("txl_memory", txl_memory.fig_txl_memory, txl_memory.check_txl_memory, "txl_memory", "make txl-memory",
           "Transformer-XL trained with its segment memory, read plainly and in segments with it, against the "
           "memory-less txl, ALiBi and RoPE: perplexity against context"),
    Figure("packing", packing.fig_packing, packing.check_packing, "packing", "make packing",
           "passkey models trained under four packing policies and on whole windows: single-document accuracy "
           "against length, one panel per scheme, and the packed windows read as trained and across documents"),
    Figure("packing_charlm", packing.fig_packing_charlm, packing.check_packing_charlm, "packing_charlm",
           "make packing", "char LMs trained on The Time Machine's paragraphs under four packing policies: perplexity "
           "against context on the running text and paragraph by paragraph, one panel per scheme, and the loss by "
           "position inside a paragraph"),
    Figure("direction_accuracy", direction.fig_direction_accuracy, direction.check_direction, "direction", RUN,
           "direction task: accuracy against length per scheme, one panel per rule (before, nearest), the bag "
           "and unsigned-distance readers dashed", read=direction.load_direction),
    Figure("direction_score_by_offset", direction.fig_direction_score_by_offset, direction.check_direction,
           "direction", RUN, "direction heads: score of a marked key against its signed offset from the query, "
           "one panel per scheme, both rules", read=direction.load_direction),
    Figure("failures", failures.fig_failures, failures.check_failures, "failures", "make failures",
           "the failure lab: each fault's damage against length beside the correct models, and the fault x "
           "invariant matrix of the doctor's verdicts"),
    Figure("logn", logn.fig_logn, logn.check_logn, "logn", "pe-bench run experiments/logn/*.json",
           "log-length scaling: every scheme at its task's longest read, plain and with logn, one panel per task",
           read=logn.load_logn),
    Figure("random_positions", random_positions.fig_random_positions, random_positions.check_random_positions,
           "schemes_summary", "make random-positions-tournament random-positions random-positions-charlm schemes-table",
           "randomised positions: tournament and passkey accuracy and char-LM perplexity against length per scheme, "
           "positions "
           "drawn from [0, L) (solid) against 0..n-1 (dashed)"),
    Figure("probes", probes.fig_probes, probes.check_probes, "probes", "make probes",
           "the probes (multi-needle, order, distractors, code): accuracy against length per reader, and each "
           "scheme by cell at 4x the training length", read=probes.load_probes),
    Figure("attention_diagnostics", attention_diagnostics.fig_attention_diagnostics,
           attention_diagnostics.check_attention_diagnostics, "attention_diagnostics",
           "scripts/attention-diagnostics.sh", "attention beyond RoPE: mass past the training length and entropy "
           "by layer type (NoPE, ALiBi, RoPE, hybrids' local and global layers), and ALiBi's heads against their "
           "bias alone"),
    Figure("exercises", exercises.fig_exercises, exercises.check_exercises, "exercises", "make exercises",
           "the chapter's exercises: columns 6-9 of the sinusoidal code, the code beside binary counting, a learned "
           "table's row cosines, the rotated pair plane, and the head that prefers offset -1 read at 8x its training "
           "length through each map",
           read=exercises.load_exercises),
]
FIGURES = {f.name: f for f in TABLE}
NAMES = [f.name for f in TABLE]
