"""``python -m services.brain.page.address``: where the page is, for ``./bootstrap run``."""

from __future__ import annotations

import sys

from services.brain.page.facts import page_address
from settings import ConfigError, load_config


def main() -> int:
    try:
        config, _ = load_config()
    except ConfigError as exc:  # the brain refuses to start too, and says why
        print(f"(none: the config is invalid: {exc})")
        return 0
    print(page_address(config.brain))
    return 0


if __name__ == "__main__":
    sys.exit(main())
