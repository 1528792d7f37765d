"""weather.sh against a local OpenWeatherMap speaking the real shapes and errors."""

from __future__ import annotations

import json
import math
import os
import socket
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.examples import run_example
from tests.helpers.httpdouble import closed_port_url
from tests.helpers.owm import KEY, FakeOpenWeatherMap


@pytest.fixture(scope="module")
def owm() -> Iterator[FakeOpenWeatherMap]:
    with FakeOpenWeatherMap() as server:
        yield server


@pytest.fixture
def home(tmp_path: Path, owm: FakeOpenWeatherMap) -> dict[str, str]:
    """The environment of a user living in Rome, with an empty cache folder."""
    env_file = tmp_path / "weather.env"
    env_file.write_text(f"KEY={KEY}\nCITY=Rome\nCOUNTRY=IT\nUNITS=metric\n")
    owm.requests.clear()
    return {"WEATHER_ENV": str(env_file), "OWM_URL": owm.url, "XDG_CACHE_HOME": str(tmp_path)}


def c_round(x: float) -> int:
    """jq's round: halves away from zero (Python's round() rounds them to even)."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def fetch(owm: FakeOpenWeatherMap, endpoint: str, q: str, units: str = "metric") -> Any:
    url = f"{owm.url}/data/2.5/{endpoint}?q={urllib.parse.quote(q)}&appid={KEY}&units={units}"
    with urllib.request.urlopen(url, timeout=5) as answer:
        return json.load(answer)


def current_line(data: dict[str, Any], deg: str = "°C", speed: str = "m/s") -> str:
    main = data["main"]
    return (
        f"{data['name']}: {data['weather'][0]['description']}, {c_round(main['temp'])}{deg} "
        f"(min {c_round(main['temp_min'])}, max {c_round(main['temp_max'])}), "
        f"wind {data['wind']['speed']:g} {speed}"
    )


def forecast_line(data: dict[str, Any], ahead: int, what: str) -> str | None:
    offset = timedelta(seconds=data["city"]["timezone"])
    day = (datetime.now(UTC) + offset).date() + timedelta(days=ahead)
    steps = [
        s for s in data["list"] if (datetime.fromtimestamp(s["dt"], UTC) + offset).date() == day
    ]
    if not steps:
        return None
    seen: list[str] = []
    for step in steps:
        if step["weather"][0]["description"] not in seen:
            seen.append(step["weather"][0]["description"])
    low = c_round(min(s["main"]["temp_min"] for s in steps))
    high = c_round(max(s["main"]["temp_max"] for s in steps))
    wind = max(s["wind"]["speed"] for s in steps)
    return (
        f"{data['city']['name']} {what}: {', then '.join(seen[:3])}, {low} to {high}°C, "
        f"wind up to {wind:g} m/s"
    )


def write_cache(folder: str, data: dict[str, Any], age: float) -> Path:
    cache = Path(folder) / "udt" / "weather.json"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(data))
    then = time.time() - age
    os.utime(cache, (then, then))
    return cache


CACHED = {
    "name": "Cachetown",
    "weather": [{"id": 800, "main": "Clear", "description": "clear sky", "icon": "01d"}],
    "main": {"temp": 11.2, "temp_min": 9.8, "temp_max": 12.1, "humidity": 50},
    "wind": {"speed": 1.2},
    "cod": 200,
}


def test_home_now_reads_a_fresh_cache_without_network(
    home: dict[str, str], owm: FakeOpenWeatherMap
) -> None:
    write_cache(home["XDG_CACHE_HOME"], CACHED, age=60)
    result = run_example("weather.sh", "", "", **home)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Cachetown: clear sky, 11°C (min 10, max 12), wind 1.2 m/s"
    assert owm.requests == []


@pytest.mark.parametrize("cache", ["old", "broken", "absent"])
def test_home_now_asks_the_service_otherwise(
    home: dict[str, str], owm: FakeOpenWeatherMap, cache: str
) -> None:
    if cache == "old":
        write_cache(home["XDG_CACHE_HOME"], CACHED, age=31 * 60)
    elif cache == "broken":
        write_cache(home["XDG_CACHE_HOME"], CACHED, age=60).write_text("{not json")
    result = run_example("weather.sh", "", "now", **home)
    asked = list(owm.requests)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == current_line(fetch(owm, "weather", "Rome,IT"))
    assert asked == [("/data/2.5/weather", {"q": "Rome,IT", "appid": KEY, "units": "metric"})]
    assert result.stderr == ""


def test_another_place_now_never_reads_the_cache(
    home: dict[str, str], owm: FakeOpenWeatherMap
) -> None:
    write_cache(home["XDG_CACHE_HOME"], CACHED, age=60)
    result = run_example("weather.sh", "São Paulo", "", **home)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == current_line(fetch(owm, "weather", "São Paulo"))
    assert owm.requests[0][1]["q"] == "São Paulo"


@pytest.mark.parametrize(
    ("place", "when", "ahead"),
    [
        ("", "tomorrow", 1),
        ("Tokyo", "today", 0),
        ("Honolulu", "Tomorrow", 1),
        ("honolulu", "today", 0),
    ],
)
def test_forecast_is_filtered_to_the_day_at_the_place(
    home: dict[str, str], owm: FakeOpenWeatherMap, place: str, when: str, ahead: int
) -> None:
    result = run_example("weather.sh", place, when, **home)
    assert result.returncode == 0, result.stderr
    q = place or "Rome,IT"
    expected = forecast_line(fetch(owm, "forecast", q), ahead, when.lower())
    if expected is None:  # no 3-hour step of today is left: the current weather instead
        expected = current_line(fetch(owm, "weather", q))
    assert result.stdout.strip() == expected
    assert ("/data/2.5/forecast", {"q": q, "appid": KEY, "units": "metric"}) in owm.requests


def test_imperial_units(home: dict[str, str], owm: FakeOpenWeatherMap, tmp_path: Path) -> None:
    Path(home["WEATHER_ENV"]).write_text(f"KEY={KEY}\nCITY=Rome\nUNITS=imperial\n")
    result = run_example("weather.sh", "Tokyo", "now", **home)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == current_line(
        fetch(owm, "weather", "Tokyo", "imperial"), "°F", "mph"
    )


def one_line_error(result: Any) -> str:
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "jq:" not in lines[0] and "parse error" not in lines[0]
    return str(lines[0])


def test_bad_key(home: dict[str, str]) -> None:
    Path(home["WEATHER_ENV"]).write_text("KEY=wrong\nCITY=Rome\n")
    line = one_line_error(run_example("weather.sh", "", "", **home))
    assert line.startswith(
        "weather: OpenWeatherMap rejected the API key (HTTP 401: Invalid API key."
    )


def test_unknown_city(home: dict[str, str]) -> None:
    line = one_line_error(run_example("weather.sh", "Atlantis", "tomorrow", **home))
    assert (
        line
        == "weather: OpenWeatherMap does not know the place 'Atlantis' (HTTP 404: city not found)"
    )


def test_no_network(home: dict[str, str]) -> None:
    line = one_line_error(
        run_example("weather.sh", "Tokyo", "", **{**home, "OWM_URL": closed_port_url()})
    )
    assert line.startswith("weather: cannot reach OpenWeatherMap at http://127.0.0.1:")


def test_a_server_that_never_answers_times_out(home: dict[str, str]) -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)  # accepts connections in the kernel, never answers
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        line = one_line_error(
            run_example("weather.sh", "Tokyo", "", **{**home, "OWM_URL": url, "OWM_TIMEOUT": "1"})
        )
    assert "timed out" in line.lower()
    assert time.monotonic() - started < 10


@pytest.mark.parametrize(
    ("env", "args", "message"),
    [
        ({"WEATHER_ENV": ""}, ["Tokyo", ""], "no OpenWeatherMap key"),
        ({"WEATHER_ENV": "/nonexistent/weather.env"}, ["", ""], "cannot read the env file"),
        ({}, ["Rome", "next week"], "when must be now, today or tomorrow, not 'next week'"),
    ],
)
def test_configuration_mistakes(
    home: dict[str, str], env: dict[str, str], args: list[str], message: str
) -> None:
    line = one_line_error(run_example("weather.sh", *args, **{**home, **env}))
    assert message in line


def test_no_home_city(home: dict[str, str]) -> None:
    Path(home["WEATHER_ENV"]).write_text(f"KEY={KEY}\n")
    assert "no home city" in one_line_error(run_example("weather.sh", "", "", **home))
    Path(home["WEATHER_ENV"]).write_text(f"KEY={KEY}\nCITY=Rome\nUNITS=kelvin\n")
    assert "UNITS must be metric, imperial or standard" in one_line_error(
        run_example("weather.sh", "", "", **home)
    )
