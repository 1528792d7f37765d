"""Benchmarks: each module measures one part (``python -m bench.<part>``)."""
