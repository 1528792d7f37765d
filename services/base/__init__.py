"""The shared service base: what every service may import beside the cores (the
``Service`` class, the runner, the bus names, the spoken apologies, the speech bridge of
the network doors). Everything else under ``services/`` is one service, one process, and
never imports another (``tests/test_architecture.py``)."""
