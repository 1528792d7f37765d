"""A question's refusals as HTTP errors, the same for every route that asks."""

from __future__ import annotations

from collections.abc import Awaitable

from starlette.exceptions import HTTPException

from services.brain.answers import Answer, Busy, Conflict, NoAnswer, TooLong, Unavailable


async def answered(asking: Awaitable[Answer]) -> Answer:
    """The answer ``asking`` gets, or the HTTP error that says why there is none."""
    try:
        return await asking
    except Conflict as exc:
        raise HTTPException(409, str(exc)) from None
    except TooLong as exc:
        raise HTTPException(413, str(exc)) from None
    except Busy as exc:
        raise HTTPException(429, str(exc), {"Retry-After": "1"}) from None
    except Unavailable as exc:
        raise HTTPException(503, str(exc)) from None
    except NoAnswer as exc:
        raise HTTPException(504, str(exc)) from None
