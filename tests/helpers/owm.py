"""A local OpenWeatherMap: ``/data/2.5/weather`` and ``/data/2.5/forecast`` over real HTTP.

The answers have the real service's shapes (``cod`` a number in weather and a
string in forecast, 3-hourly ``list`` steps, ``city.timezone`` in seconds) and
its error answers: 401 for a bad key, 404 for an unknown city, 400 without q.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from tests.helpers.httpdouble import Answer, HttpDouble, json_answer

KEY = "0123456789abcdef0123456789abcdef"
BAD_KEY_MESSAGE = (
    "Invalid API key. Please see https://openweathermap.org/faq#error401 for more info."
)
DESCRIPTIONS = ["clear sky", "few clouds", "light rain", "overcast clouds"]
STEP_OFFSETS = [-3.0, -4.0, -2.5, 1.0, 4.0, 5.5, 3.0, 0.0]
"""Temperature change by 3-hour step of the UTC day, added to a city's base temperature."""


@dataclass(frozen=True)
class City:
    id: int
    name: str
    country: str
    timezone: int
    """Offset from UTC in seconds, as OpenWeatherMap gives it."""
    lat: float
    lon: float
    base_c: float
    """Base temperature in degrees Celsius."""


CITIES = {
    "rome": City(3169070, "Rome", "IT", 7200, 41.8947, 12.4839, 18.0),
    "tokyo": City(1850147, "Tokyo", "JP", 32400, 35.6895, 139.6917, 21.0),
    "honolulu": City(5856195, "Honolulu", "US", -36000, 21.3069, -157.8583, 27.0),
    "são paulo": City(3448439, "São Paulo", "BR", -10800, -23.5475, -46.6361, 24.0),
}


def convert(celsius: float, units: str) -> float:
    if units == "metric":
        return round(celsius, 2)
    if units == "imperial":
        return round(celsius * 9 / 5 + 32, 2)
    return round(celsius + 273.15, 2)


def wind(metres_per_second: float, units: str) -> float:
    """As OpenWeatherMap sends it: two decimals at most (1.5 + 3 * 0.7 is 3.5999999999999996
    in floats, a value the real service never sends)."""
    speed = metres_per_second * 2.23694 if units == "imperial" else metres_per_second
    return round(speed, 2)


class FakeOpenWeatherMap(HttpDouble):
    def __init__(self, key: str = KEY) -> None:
        self.key = key
        super().__init__({"/data/2.5/weather": self.weather, "/data/2.5/forecast": self.forecast})

    def _city(self, query: dict[str, str]) -> City | Answer:
        if query.get("appid") != self.key:
            return json_answer(401, {"cod": 401, "message": BAD_KEY_MESSAGE})
        if not query.get("q"):
            return json_answer(400, {"cod": "400", "message": "Nothing to geocode"})
        name, _, country = query["q"].partition(",")
        city = CITIES.get(name.strip().lower())
        if city is None or (country.strip() and country.strip().upper() != city.country):
            return json_answer(404, {"cod": "404", "message": "city not found"})
        return city

    def weather(self, query: dict[str, str]) -> Answer:
        city = self._city(query)
        if not isinstance(city, City):
            return city
        return json_answer(200, current(city, query.get("units", "standard"), time.time()))

    def forecast(self, query: dict[str, str]) -> Answer:
        city = self._city(query)
        if not isinstance(city, City):
            return city
        return json_answer(200, forecast(city, query.get("units", "standard"), time.time()))


def current(city: City, units: str, now: float) -> dict[str, Any]:
    temp = city.base_c + 1.3
    return {
        "coord": {"lon": city.lon, "lat": city.lat},
        "weather": [{"id": 500, "main": "Rain", "description": "light rain", "icon": "10d"}],
        "base": "stations",
        "main": {
            "temp": convert(temp, units),
            "feels_like": convert(temp - 0.4, units),
            "temp_min": convert(temp - 2.2, units),
            "temp_max": convert(temp + 1.6, units),
            "pressure": 1012,
            "humidity": 72,
            "sea_level": 1012,
            "grnd_level": 1003,
        },
        "visibility": 10000,
        "wind": {"speed": wind(3.1, units), "deg": 200, "gust": wind(5.2, units)},
        "rain": {"1h": 0.4},
        "clouds": {"all": 75},
        "dt": int(now),
        "sys": {
            "type": 2,
            "id": 2037790,
            "country": city.country,
            "sunrise": int(now) - 30000,
            "sunset": int(now) + 10000,
        },
        "timezone": city.timezone,
        "id": city.id,
        "name": city.name,
        "cod": 200,
    }


def forecast(city: City, units: str, now: float) -> dict[str, Any]:
    """40 three-hour steps from the next step boundary (UTC), as the free API gives."""
    first = (int(now) // 10800 + 1) * 10800
    steps = []
    for i in range(40):
        dt = first + i * 10800
        slot = (dt // 10800) % 8
        temp = city.base_c + STEP_OFFSETS[slot] + (i // 8) * 0.7
        description = DESCRIPTIONS[(i // 3) % len(DESCRIPTIONS)]
        steps.append(
            {
                "dt": dt,
                "main": {
                    "temp": convert(temp, units),
                    "feels_like": convert(temp - 0.5, units),
                    "temp_min": convert(temp - 0.6, units),
                    "temp_max": convert(temp + 0.4, units),
                    "pressure": 1015,
                    "sea_level": 1015,
                    "grnd_level": 1006,
                    "humidity": 60,
                    "temp_kf": 0.5,
                },
                "weather": [
                    {"id": 800, "main": "Clouds", "description": description, "icon": "01d"}
                ],
                "clouds": {"all": 20},
                "wind": {"speed": wind(1.5 + (i % 5) * 0.7, units), "deg": 210, "gust": 3.0},
                "visibility": 10000,
                "pop": 0.2,
                "sys": {"pod": "d"},
                "dt_txt": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(dt)),
            }
        )
    return {
        "cod": "200",
        "message": 0,
        "cnt": len(steps),
        "list": steps,
        "city": {
            "id": city.id,
            "name": city.name,
            "coord": {"lat": city.lat, "lon": city.lon},
            "country": city.country,
            "population": 1000000,
            "timezone": city.timezone,
            "sunrise": int(now) - 30000,
            "sunset": int(now) + 10000,
        },
    }
