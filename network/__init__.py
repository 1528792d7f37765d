"""The network core: what the services that serve a network port share, with no bus in it.

The listening socket made before a service reports ready (``sockets``), which local user
is at the other end of a loopback connection (``peers``: the brain's and the Wyoming
server's trust), and the one reader of Wyoming frames within limits (``wyoming_wire``:
the Wyoming server and the satellites). Here, not in ``services/``, because a service
never imports another (``docs/architecture.md``).
"""
