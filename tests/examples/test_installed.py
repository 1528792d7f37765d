"""The example tools copied as they are into a config folder, run by the real service."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from bus.client import Bus, RequestTimeout
from bus.messages import ToolCatalog, ToolCatalogRequest, ToolRequest, ToolResult
from tests.conftest import ConfigFolder
from tests.helpers.busrun import with_buses
from tests.helpers.examples import EXAMPLES, run_example
from tests.helpers.heartbeat import request, wait_ready
from tests.helpers.owm import KEY, FakeOpenWeatherMap
from tests.helpers.processes import Process
from tests.helpers.searxng import FakeSearxng
from tests.helpers.vdir import Vdir, event


async def call(bus: Bus, name: str, arguments: dict[str, object], call_id: str) -> ToolResult:
    return await request(
        bus,
        ToolRequest(id=call_id, name=name, arguments=json.dumps(arguments), turn="t"),
        ToolResult,
        timeout=30,
    )


def test_examples_work_from_a_config_folder(
    config_folder: ConfigFolder, broker: Process, log_dir: Path, tmp_path: Path
) -> None:
    tools = config_folder.path / "tools"
    tools.rmdir()
    shutil.copytree(EXAMPLES, tools)  # what a user does
    vdir = Vdir(tmp_path / "calendars")
    vdir.add_events("home", "dentist", event("d", "Dentist", "DTSTART:20300105T093000"))
    (tmp_path / "weather.env").write_text(f"KEY={KEY}\nCITY=Rome\nCOUNTRY=IT\nUNITS=metric\n")
    with FakeOpenWeatherMap() as owm, FakeSearxng() as searxng:
        env = {
            "CALENDAR_DIR": str(vdir.root),
            "WEATHER_ENV": str(tmp_path / "weather.env"),
            "OWM_URL": owm.url,
            "SEARXNG_URL": searxng.url,
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        }
        config_folder.write("[env]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in env.items()))
        proc = Process("services.tools", *config_folder.args(), log_dir=log_dir)
        try:

            async def body(bus: Bus) -> None:
                await wait_ready(bus, proc)
                # The same patience as a tool call: on a loaded machine (CI) the answer took
                # over 10 s once; the log says what the service was doing if it never comes.
                try:
                    catalog = await request(bus, ToolCatalogRequest(), ToolCatalog, 30)
                except RequestTimeout as exc:
                    raise AssertionError(f"{exc}\n{proc.output()}") from None
                by_name = {tool.name: tool for tool in catalog.tools}
                assert sorted(by_name) == ["add_event", "calendar", "media", "now",
                                           "now_playing", "remind", "search", "weather"]
                assert by_name["add_event"].modifies and not by_name["calendar"].modifies
                assert by_name["now"].announce == {} and by_name["calendar"].announce == {}
                assert "Checking the weather." in by_name["weather"].announce["en"]
                assert "Searching the web." in by_name["search"].announce["en"]

                now = await call(bus, "now", {}, "1")
                assert now.ok and now.content.count(",") == 1 and ":" in now.content
                dentist = await call(bus, "calendar", {"start": "2030-01-05", "days": 2}, "2")
                assert (dentist.ok, dentist.content) == (True, "2030-01-05 09:30 Dentist")
                empty = await call(bus, "calendar", {"start": "2030-02-01"}, "3")
                assert empty.content == "no events"
                home = await call(bus, "weather", {}, "4")
                assert home.ok and home.content.startswith("Rome: light rain, ")
                tokyo = await call(bus, "weather", {"place": "Tokyo", "when": "tomorrow"}, "5")
                assert tokyo.ok and tokyo.content.startswith("Tokyo tomorrow: ")
                atlantis = await call(bus, "weather", {"place": "Atlantis"}, "6")
                assert atlantis.content == (
                    "error: exit status 1: weather: OpenWeatherMap does not know the place "
                    "'Atlantis' (HTTP 404: city not found)"
                )
                found = await call(bus, "search", {"query": "x; rm -rf ~"}, "7")
                assert found.ok and found.content.splitlines()[0] == (
                    "Result 1 for x; rm -rf ~: Snippet 1 about x; rm -rf ~."
                )
                searxng.formats = ["html"]
                refused = await call(bus, "search", {"query": "anything"}, "8")
                assert not refused.ok and "search.formats" in refused.content

                lunch = {"title": "Lunch", "start": "2030-01-06T13:00", "minutes": 30}
                unasked = await call(bus, "add_event", lunch, "9")
                assert not unasked.ok and "only after the user's own yes" in unasked.content
                added = await request(bus, ToolRequest(
                    id="10", name="add_event", arguments=json.dumps(lunch), turn="t",
                    confirmed_by="Yes."), ToolResult, timeout=30)
                assert (added.ok, added.content) == (
                    True, "added to personal: 2030-01-06 13:00 Lunch (30 min)"
                )
                back = await call(bus, "calendar", {"start": "2030-01-06"}, "11")
                assert back.content == "2030-01-06 13:00 Lunch"

            with_buses(config_folder.endpoints, ["dialogue"], body)
        finally:
            proc.stop()
    direct = run_example("calendar.py", "2030-01-05", "2", CALENDAR_DIR=str(vdir.root))
    assert direct.stdout.strip() == "2030-01-05 09:30 Dentist\n2030-01-06 13:00 Lunch"
