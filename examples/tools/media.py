#!/usr/bin/env python3
"""Control the desktop's media player over MPRIS: ``media.py ACTION [PLAYER]``.

ACTION is ``play``, ``pause``, ``toggle``, ``next``, ``previous`` or ``now`` (what is
playing). PLAYER is a part of a player's bus name (``spotify``, ``vlc``); empty: the
one playing now, else the first. Speaks D-Bus through ``busctl --user`` (systemd's
client, on every systemd desktop): the standard library only, no shell. Prints one
short line to say; a reason on stderr (exit 1) when no player answers.
"""

import json
import subprocess
import sys

PREFIX = "org.mpris.MediaPlayer2."
PATH = "/org/mpris/MediaPlayer2"
PLAYER = "org.mpris.MediaPlayer2.Player"
METHODS = {"play": "Play", "pause": "Pause", "toggle": "PlayPause", "next": "Next",
           "previous": "Previous"}
TIMEOUT = 5


class MediaError(Exception):
    pass


def busctl(*args):
    try:
        done = subprocess.run(["busctl", "--user", "--json=short", *args], capture_output=True,
                              text=True, timeout=TIMEOUT)
    except FileNotFoundError:
        raise MediaError("busctl is not installed (systemd)") from None
    except subprocess.TimeoutExpired:
        raise MediaError("the session bus did not answer in time") from None
    if done.returncode != 0:
        raise MediaError(done.stderr.strip() or f"busctl exit status {done.returncode}")
    return json.loads(done.stdout) if done.stdout.strip() else None


def players():
    found = busctl("list", "--acquired")
    names = [entry.get("name", "") for entry in found or []]
    return sorted(name for name in names if name.startswith(PREFIX))


def prop(player, name):
    value = busctl("get-property", player, PATH, PLAYER, name)
    return value.get("data") if isinstance(value, dict) else None


def choose(wanted):
    names = players()
    if wanted:
        names = [name for name in names if wanted.lower() in name[len(PREFIX):].lower()]
    if not names:
        raise MediaError(f"no media player{' like ' + repr(wanted) if wanted else ''} is running")
    playing = [name for name in names if prop(name, "PlaybackStatus") == "Playing"]
    return (playing or names)[0]


def now_playing(player):
    status = prop(player, "PlaybackStatus") or "Stopped"
    metadata = prop(player, "Metadata") or {}
    title = (metadata.get("xesam:title") or {}).get("data") or ""
    artists = (metadata.get("xesam:artist") or {}).get("data") or []
    who = f" by {', '.join(artists)}" if artists else ""
    app = player[len(PREFIX):].split(".")[0]
    if not title:
        return f"{app}: {status.lower()}"
    return f"{app}: {status.lower()}, {title}{who}"


def main(argv):
    if not argv or argv[0] not in (*METHODS, "now"):
        print(f"usage: media.py {'|'.join((*METHODS, 'now'))} [PLAYER]", file=sys.stderr)
        return 2
    action, wanted = argv[0], (argv[1] if len(argv) > 1 else "").strip()
    try:
        player = choose(wanted)
        if action != "now":
            busctl("call", player, PATH, PLAYER, METHODS[action])
        print(now_playing(player))
    except (MediaError, ValueError) as exc:
        print(f"media: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
