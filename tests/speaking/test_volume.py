"""Volume steps, clamping, the state file, and the control actions of a voice turn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.base.phrases import CANNOT_GO, cannot_go
from services.tts.control import apply_controls
from speaking.volume import Volume, VolumeStore, state_path

UP = {"type": "adjust_volume", "direction": "up"}
DOWN = {"type": "adjust_volume", "direction": "down"}


def test_ten_steps_up_from_one_reach_exactly_two_and_stop() -> None:
    volume = Volume(1.0)
    assert [volume.step("up") for _ in range(11)] == [True] * 10 + [False]
    assert volume.value == 2.0


def test_steps_down_stop_at_zero() -> None:
    volume = Volume(0.25)
    assert [volume.step("down") for _ in range(4)] == [True, True, True, False]
    assert volume.value == 0.0


def test_set_clamps_to_the_range() -> None:
    volume = Volume(1.0)
    assert volume.set(-3) and volume.value == 0.0
    assert volume.set(9) and volume.value == 2.0
    assert not volume.set(2.0)


def test_state_file_is_under_xdg_state_home(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path)}
    assert state_path(env) == tmp_path / "desktop-assistant" / "volume.json"
    assert state_path({}) == Path.home() / ".local/state/desktop-assistant/volume.json"


def test_a_change_is_saved_and_read_back_by_the_next_process(tmp_path: Path) -> None:
    store = VolumeStore(tmp_path / "deep" / "volume.json")
    first = Volume(1.0, store)
    assert first.value == 1.0 and not store.path.exists()  # the config's value, nothing saved
    first.step("down")
    assert json.loads(store.path.read_text()) == {"volume": 0.9}
    assert Volume(1.5, store).value == 0.9  # the saved value wins over the config
    assert [p.name for p in store.path.parent.iterdir()] == ["volume.json"]  # no temp left


@pytest.mark.parametrize("body", ["not json", '{"volume": "loud"}', '{"level": 1}', "[]"])
def test_a_broken_state_file_is_ignored(tmp_path: Path, body: str) -> None:
    store = VolumeStore(tmp_path / "volume.json")
    store.path.write_text(body)
    assert Volume(0.6, store).value == 0.6  # the config's value, not an exception
    Volume(0.6, store).step("up")
    assert json.loads(store.path.read_text()) == {"volume": 0.7}  # and the next step mends it


def test_a_step_that_changes_something_has_no_override() -> None:
    volume = Volume(1.0)
    assert apply_controls([UP], volume, "ja") == (True, None)
    assert volume.value == 1.1


@pytest.mark.parametrize("lang", ["ja", "en", "it"])
def test_clamping_overrides_with_the_phrase_of_the_turns_language(lang: str) -> None:
    assert apply_controls([UP], Volume(2.0), lang) == (False, CANNOT_GO[lang]["up"])
    assert apply_controls([DOWN], Volume(0.0), lang) == (False, CANNOT_GO[lang]["down"])


def test_the_japanese_phrases_are_exact_and_other_languages_get_english() -> None:
    assert cannot_go("up", "ja") == "これ以上大きくできません"
    assert cannot_go("down", "ja-JP") == "これ以上小さくできません"
    assert cannot_go("up", "fr") == CANNOT_GO["en"]["up"]


def test_any_clamped_step_of_a_turn_overrides_the_words() -> None:
    volume = Volume(1.9)
    assert apply_controls([UP, UP], volume, "en") == (True, CANNOT_GO["en"]["up"])
    assert volume.value == 2.0


def test_unknown_types_and_bad_directions_are_skipped() -> None:
    volume = Volume(1.0)
    actions = [{"type": "mute"}, {"type": "adjust_volume", "direction": 3}, "x", None, DOWN]
    assert apply_controls(actions, volume, "en") == (True, None)
    assert volume.value == 0.9  # only the one good step
