"""pe-bench's figures (scripts/plot.py is the entry point). load: the strict JSON reader and the
schema pieces the checks are written in; style: what the figures share; one module per family of
figures (cue, theory, charlm, filings, passkey, context_extension, rope_base, hybrids, txl_memory),
each holding its figures' checks and drawings; table: the one list of figures, read by cli for
--only, --help, the default list and the output names."""
