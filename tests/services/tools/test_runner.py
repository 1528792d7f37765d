"""The runner with real processes: argv substitution, every failure a result, the sandbox."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from services.tools.runner import Outcome, Runner
from tests.services.tools.helpers import (
    ARGV_PRINTER,
    PYTHON,
    alive,
    kill_if_alive,
    make_runner,
    read_pid,
    wait_dead,
    write_program,
    write_tool,
)


def run(runner: Runner, name: str, arguments: str = "{}") -> Outcome:
    return asyncio.run(runner.run(name, arguments))


@pytest.fixture
def config(tmp_path: Path) -> Path:
    (tmp_path / "tools").mkdir()
    return tmp_path


# -- arguments ------------------------------------------------------------------


def test_each_value_stays_one_argument(config: Path) -> None:
    write_program(config, "argv.py", ARGV_PRINTER)
    write_tool(
        config,
        "echo",
        ["argv.py", "{a}", "--flag={b}", "{c}{d}", "{missing}", "{e}", "{f}", "{a}"],
        params={
            "a": "string",
            "b": "string",
            "c": "integer",
            "d": "number",
            "e": "boolean",
            "f": "string",
            "missing": "string",
        },
    )
    values = {
        "a": "x; rm -rf ~",
        "b": "$(touch /tmp/pwned) `id` {a} \\1 \n two lines",
        "c": 3,
        "d": 2.5,
        "e": False,
        "f": None,
        "unknown": "ignored",
    }
    outcome = run(make_runner(config), "echo", json.dumps(values))
    assert outcome.ok, outcome.content
    assert json.loads(outcome.content) == [
        "x; rm -rf ~",
        "--flag=$(touch /tmp/pwned) `id` {a} \\1 \n two lines",
        "32.5",
        "",
        "false",
        "",
        "x; rm -rf ~",
    ]
    assert not Path("/tmp/pwned").exists()


@pytest.mark.parametrize("arguments", ["", "  ", "{}"])
def test_no_arguments_means_empty_values(config: Path, arguments: str) -> None:
    write_program(config, "argv.py", ARGV_PRINTER)
    write_tool(config, "echo", ["argv.py", "{a}"], params={"a": "string"})
    assert run(make_runner(config), "echo", arguments).content == '[""]'


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ('{"a": ', "error: arguments are not valid JSON: Expecting value at character 6"),
        ("{'a': 1}", "error: arguments are not valid JSON: Expecting property name"),
        ('["a"]', "error: arguments must be a JSON object, not an array"),
        ('"a"', "error: arguments must be a JSON object, not a string"),
        ('{"a": "nul\\u0000byte"}', "error: argument 'a' contains a NUL character"),
    ],
)
def test_bad_arguments_are_errors(config: Path, arguments: str, reason: str) -> None:
    write_tool(config, "echo", ["echo", "{a}"], params={"a": "string"})
    outcome = run(make_runner(config), "echo", arguments)
    assert not outcome.ok
    assert outcome.content.startswith(reason)


def test_an_argument_too_long_for_exec_is_an_error(config: Path) -> None:
    write_tool(config, "echo", ["echo", "{a}"], params={"a": "string"})
    outcome = run(make_runner(config), "echo", json.dumps({"a": "x" * 300_000}))
    assert outcome.content == "error: cannot start 'echo': Argument list too long"


def test_unknown_tool(config: Path) -> None:
    write_tool(config, "now", ["date"])
    outcome = run(make_runner(config), "weather", '{"place": "Rome"}')
    assert (outcome.ok, outcome.content) == (False, "error: unknown tool 'weather' (known: now)")


# -- finding and starting the program ---------------------------------------------


def test_tools_folder_comes_before_path(config: Path) -> None:
    write_program(config, "date", "#!/bin/sh\necho local date\n")
    write_tool(config, "shadowed", ["date"])
    write_tool(config, "from_path", ["uname"])
    runner = make_runner(config)
    assert run(runner, "shadowed").content == "local date"
    assert (
        run(runner, "from_path").content
        == subprocess.run(["uname"], capture_output=True, text=True).stdout.strip()
    )


def test_path_from_env_table_is_searched(config: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "hello-tool").write_text("#!/bin/sh\necho hello from bin\n")
    (bin_dir / "hello-tool").chmod(0o755)
    write_tool(config, "hello", ["hello-tool"])
    assert run(make_runner(config), "hello").content.startswith("error: cannot start 'hello-tool'")
    runner = make_runner(config, env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert run(runner, "hello").content == "hello from bin"


def test_a_relative_path_is_taken_from_the_tools_folder(config: Path) -> None:
    write_program(config, "bin/helper.sh", "#!/bin/sh\necho helper\n")
    write_tool(config, "helper", ["bin/helper.sh"])
    write_tool(config, "absolute", [shutil.which("true") or "/bin/true"])
    runner = make_runner(config)
    assert run(runner, "helper").content == "helper"
    assert run(runner, "absolute").ok


@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        ("missing", "error: cannot start 'no-such-program': no executable file in tools/ or PATH"),
        ("not_executable", "error: cannot start 'script.sh': no executable file in tools/ or PATH"),
        ("bad_interpreter", "error: cannot start "),
        ("relative_missing", "error: cannot start 'sub/none.sh': no executable file in tools/"),
    ],
)
def test_failure_to_start_is_an_error(config: Path, setup: str, reason: str) -> None:
    if setup == "missing":
        write_tool(config, "t", ["no-such-program"])
    elif setup == "not_executable":
        write_program(config, "script.sh", "#!/bin/sh\necho hi\n", mode=0o644)
        write_tool(config, "t", ["script.sh"])
    elif setup == "bad_interpreter":
        write_program(config, "script.sh", "#!/nonexistent/interpreter\n")
        write_tool(config, "t", ["script.sh"])
    else:
        write_tool(config, "t", ["sub/none.sh"])
    outcome = run(make_runner(config), "t")
    assert not outcome.ok
    assert outcome.content.startswith(reason), outcome.content
    if setup == "bad_interpreter":
        assert "script.sh: No such file or directory" in outcome.content


# -- environment, output ------------------------------------------------------------


def test_env_table_reaches_the_tool_with_our_own_environment(config: Path) -> None:
    write_tool(config, "env", ["sh", "-c", 'printf "%s|%s|%s" "$GREETING" "$HOME" "$TMPDIR"'])
    outcome = run(make_runner(config, env={"GREETING": "hello world; $(id)"}), "env")
    greeting, home, tmpdir = outcome.content.split("|")
    assert greeting == "hello world; $(id)"  # not a secret: the model may read it
    assert home == os.environ["HOME"]
    assert tmpdir.startswith(os.path.join(os.environ.get("TMPDIR", "/tmp"), "da-tool-"))
    assert not Path(tmpdir).exists()  # each run's scratch folder is removed afterwards


def test_stdout_is_stripped_and_cut_to_2000_characters(config: Path) -> None:
    write_tool(config, "long", [PYTHON, "-c", "print('\\n  ' + 'é' * 1500 + 'x' * 1500 + '  \\n')"])
    write_tool(config, "short", ["printf", "  \\n  hello  \\n\\n"])
    runner = make_runner(config)
    long = run(runner, "long")
    assert long.ok and long.content == "é" * 1500 + "x" * 500
    assert run(runner, "short").content == "hello"


def test_stdin_is_empty(config: Path) -> None:
    write_tool(config, "cat", ["cat"])
    outcome = run(make_runner(config), "cat")
    assert (outcome.ok, outcome.content) == (True, "")


def test_non_zero_exit_gives_stderr_last_line(config: Path) -> None:
    write_tool(
        config, "fails", ["sh", "-c", "echo partial; echo first >&2; echo 'the reason' >&2; exit 3"]
    )
    write_tool(config, "quiet", ["sh", "-c", "exit 4"])
    runner = make_runner(config)
    assert run(runner, "fails") == Outcome(
        "error: exit status 3: the reason", False, pytest.approx(0, abs=5)
    )
    assert run(runner, "quiet").content == "error: exit status 4"


def test_timeout(config: Path) -> None:
    write_tool(
        config, "slow", ["sh", "-c", "echo working on it >&2; sleep 60"], extra="timeout = 0.5"
    )
    outcome = run(make_runner(config), "slow")
    assert outcome.content == "error: timed out after 0.5 s: working on it"
    assert not outcome.ok and outcome.duration < 5


def test_killed_by_a_signal(config: Path) -> None:
    write_tool(config, "segv", ["sh", "-c", "kill -SEGV $$"])
    assert run(make_runner(config), "segv").content == "error: killed by SIGSEGV"


# -- the sandbox ----------------------------------------------------------------------


def test_own_session_and_process_group(config: Path) -> None:
    write_tool(
        config, "ids", [PYTHON, "-c", "import os; print(os.getsid(0), os.getpgrp(), os.getpid())"]
    )
    sid, pgid, pid = map(int, run(make_runner(config), "ids").content.split())
    assert sid == pgid == pid
    assert sid != os.getsid(0)


def test_grandchild_is_killed_on_timeout(config: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    write_tool(
        config,
        "spawner",
        ["sh", "-c", f"sleep 300 & echo $! > {pidfile}; sleep 300"],
        extra="timeout = 1",
    )
    outcome = run(make_runner(config), "spawner")
    grandchild = read_pid(pidfile)
    try:
        assert outcome.content == "error: timed out after 1 s"
        assert wait_dead(grandchild), "the grandchild outlived its call"
    finally:
        kill_if_alive(grandchild)


def test_nothing_outlives_a_successful_call(config: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "left.pid"
    write_tool(
        config,
        "leaves",
        ["sh", "-c", f"(sleep 300 >/dev/null 2>&1 &  echo $! > {pidfile}); echo done"],
    )
    outcome = run(make_runner(config), "leaves")
    left = read_pid(pidfile)
    try:
        assert outcome.content == "done"
        assert wait_dead(left), "a process of the call's group outlived it"
    finally:
        kill_if_alive(left)


def test_a_process_that_leaves_the_group_does_not_hang_the_call(
    config: Path, tmp_path: Path
) -> None:
    """Documented limit: setsid escapes the group; the call still returns with its output."""
    pidfile = tmp_path / "escaped.pid"
    write_tool(
        config,
        "escapes",
        [
            "sh",
            "-c",
            f"setsid sh -c 'echo $$ > {pidfile}; exec sleep 300' & "
            f"while [ ! -s {pidfile} ]; do sleep 0.01; done; echo out",
        ],
    )
    outcome = run(make_runner(config), "escapes")
    escaped = read_pid(pidfile)
    try:
        assert outcome.content == "out"
        assert outcome.duration < 10
    finally:
        kill_if_alive(escaped)


def test_cancelling_a_call_kills_its_group(config: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "tool.pid"
    write_tool(
        config, "long", ["sh", "-c", f"echo $$ > {pidfile}; sleep 300"], extra="timeout = 60"
    )
    runner = make_runner(config)

    async def body() -> int:
        task = asyncio.ensure_future(runner.run("long", "{}"))
        pid = await asyncio.to_thread(read_pid, pidfile)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return pid

    pid = asyncio.run(body())
    assert wait_dead(pid)


def test_output_cap_stops_the_tool(config: Path) -> None:
    write_tool(
        config, "flood", ["yes", "spam"], extra="timeout = 30\n[limits]\noutput_bytes = 10000"
    )
    outcome = run(make_runner(config, output_bytes=1_000_000), "flood")
    assert outcome.content == "error: output passed 10000 bytes, the tool was stopped"
    assert outcome.duration < 30


def test_memory_limit_stops_a_runaway_allocation(config: Path) -> None:
    grab = [PYTHON, "-c", "x = bytearray(400 * 1024 * 1024); print('got it')"]
    write_tool(config, "greedy", grab)
    write_tool(config, "allowed", grab, extra="[limits]\nmemory_mb = 2048")
    runner = make_runner(config, memory_mb=128)
    assert run(runner, "greedy").content == "error: exit status 1: MemoryError"
    assert run(runner, "allowed").content == "got it"


def test_cpu_limit(config: Path) -> None:
    write_tool(
        config,
        "spin",
        [PYTHON, "-c", "while True: pass"],
        extra="timeout = 60\n[limits]\ncpu_seconds = 1",
    )
    outcome = run(make_runner(config), "spin")
    assert outcome.content == "error: killed by SIGXCPU: it used its 1 s of CPU time"


def test_file_size_limit(config: Path) -> None:
    write_tool(
        config,
        "writer",
        ["dd", "if=/dev/zero", "of=big", "bs=1M", "count=3"],
        extra="[limits]\nfile_size_mb = 1",
    )
    outcome = run(make_runner(config), "writer")
    assert outcome.content == "error: killed by SIGXFSZ: it wrote a file larger than 1 MiB"


def test_process_limit_stops_a_fork_spree(config: Path, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    write_tool(
        config,
        "forks",
        ["sh", "-c", f"for i in $(seq 40); do sleep 300 & echo $! >> {pids}; done; wait"],
        extra="timeout = 30\n[limits]\nprocesses = 10",
    )
    outcome = run(make_runner(config), "forks")
    started = [int(line) for line in pids.read_text().split()] if pids.exists() else []
    try:
        assert outcome.content == "error: started more than 10 processes, the tool was stopped"
        assert all(wait_dead(pid) for pid in started)
    finally:
        for pid in started:
            kill_if_alive(pid)


def test_process_limit_binds_a_normal_user_through_rlimit_nproc() -> None:
    """RLIMIT_NPROC (set by the sandbox wrapper) does not bind root: check it as nobody."""
    from services.tools.process import WRAPPER

    as_nobody = (
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
    )
    script = "for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.3 & done; wait"
    # nobody may not read the checkout (a clone in a 0700 folder): a readable copy.
    folder = Path(tempfile.mkdtemp(prefix="da-nproc-"))
    folder.chmod(0o755)
    wrapper = shutil.copy(WRAPPER, folder / "sandbox_exec.py")
    os.chmod(wrapper, 0o644)
    try:
        done = subprocess.run(
            [*as_nobody, PYTHON, "-I", "-S", wrapper, "10", "256", "1", "4", "--",
             "/bin/sh", "-c", script],
            capture_output=True, text=True, timeout=30,
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert done.returncode != 0
    assert "fork" in done.stderr.lower(), done.stderr
    assert alive(os.getpid())
