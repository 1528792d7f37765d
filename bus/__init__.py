"""The bus: the message contract and the plumbing every process shares."""

__version__ = "0.1.0"
