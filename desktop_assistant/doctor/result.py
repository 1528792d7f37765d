"""One line of the doctor's table."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    warning: bool = False
    """A concern that does not make the doctor fail (e.g. plain TCP allowed on purpose)."""

    @property
    def status(self) -> str:
        if not self.ok:
            return "FAIL"
        return "WARN" if self.warning else "ok"


def render_table(checks: list[Check]) -> str:
    width = max(len(c.name) for c in checks)
    lines = []
    for check in checks:
        lines.append(f"{check.status:4}  {check.name:<{width}}  {check.detail}")
        if check.fix and (not check.ok or check.warning):
            lines.append(f"{'':4}  {'':<{width}}  fix: {check.fix}")
    return "\n".join(lines)
