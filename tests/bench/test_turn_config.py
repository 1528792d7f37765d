"""``bench/turn.py --wake``: every variant is measured as given and again in wake mode, in
turn, and the wake variant's config really puts the mic in wake mode."""

from __future__ import annotations

import tomllib

from bench.turn_config import WAKE, config_text, parse_variant, with_wake
from tests.helpers.service_stack import always_listening


def test_without_wake_the_variants_are_unchanged() -> None:
    variants = [parse_variant("before:dialogue.speculative=false"), parse_variant("after:")]
    assert with_wake(variants, False) == variants


def test_wake_follows_each_variant_with_its_wake_twin_keeping_its_changes() -> None:
    variants = [parse_variant("before:dialogue.speculative=false"), parse_variant("after:")]
    assert with_wake(variants, True) == [
        ("before", {"dialogue": {"speculative": False}}),
        ("before+wake", {"dialogue": {"speculative": False}, **WAKE}),
        ("after", {}),
        ("after+wake", WAKE),
    ]


def test_a_variant_own_listen_keys_stay_beside_wake_mode() -> None:
    ((_, changes), (_, waking)) = with_wake([parse_variant("x:listen.timeout=5")], True)
    assert changes == {"listen": {"timeout": 5}}
    assert waking["listen"] == {"timeout": 5, "mode": "wake", "follow_up": 1.0}


def test_the_wake_config_is_not_overridden_by_the_always_listening_default() -> None:
    """The assistant appends ``[listen] mode = "always"`` to a config without a listen table."""
    (_, plain), (_, waking) = with_wake([("run", {})], True)
    for changes, mode in ((plain, "always"), (waking, "wake")):
        text = config_text(0.5, changes)
        assert tomllib.loads(text + always_listening(text))["listen"]["mode"] == mode
