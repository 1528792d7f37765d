"""Apply a tool run's resource limits to this process, then become the tool.

Run as ``python -I -S sandbox_exec.py CPU_S MEMORY_MB FILE_MB PROCESSES -- PROGRAM ARGS...``
(stdlib only, no project imports: it starts in a few milliseconds). The limits
are inherited by everything the tool starts. Exit status 127 or 126 with a
``sandbox:`` line on stderr means the program could not be started.
"""

import ctypes
import os
import resource
import signal
import sys

MIB = 1024 * 1024
CANNOT_START = "sandbox: cannot start"
PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Be killed when the executor dies (kill -9 too): a restarted executor cannot know
    about the runs of the one before. Processes the tool starts itself are not covered."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the run's timeout still applies while the executor lives


def cap(kind: int, wanted: int, hard_extra: int = 0) -> None:
    """Lower soft and hard limit to ``wanted`` (never above an existing hard limit)."""
    _, hard = resource.getrlimit(kind)
    new_hard = wanted + hard_extra
    if hard != resource.RLIM_INFINITY:
        new_hard = min(new_hard, hard)
    resource.setrlimit(kind, (min(wanted, new_hard), new_hard))


def user_tasks(uid: int) -> int:
    """Tasks (threads) of ``uid`` now: what RLIMIT_NPROC counts."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid == uid:
                count += len(os.listdir(f"/proc/{entry}/task"))
        except OSError:
            continue  # the process ended meanwhile
    return count


def main(argv: list[str]) -> int:
    if len(argv) < 7 or argv[5] != "--":
        print(
            "usage: sandbox_exec.py CPU_S MEMORY_MB FILE_MB PROCESSES -- PROGRAM ARGS...",
            file=sys.stderr,
        )
        return 2
    cpu_s, memory_mb, file_mb, processes = (int(value) for value in argv[1:5])
    program, args = argv[6], argv[6:]
    die_with_parent()
    cap(resource.RLIMIT_CPU, cpu_s, hard_extra=1)  # SIGXCPU first, SIGKILL one second later
    cap(resource.RLIMIT_AS, memory_mb * MIB)
    cap(resource.RLIMIT_FSIZE, file_mb * MIB)
    cap(resource.RLIMIT_CORE, 0)
    if os.getuid() != 0:  # root ignores RLIMIT_NPROC; the runner counts the group instead
        # RLIMIT_NPROC counts every task of the user, so allow what runs already plus ours.
        cap(resource.RLIMIT_NPROC, user_tasks(os.getuid()) + processes)
    # Python ignores SIGPIPE and SIGXFSZ for itself; an ignored signal stays ignored
    # across exec, so give the tool the defaults (killed when it passes the file limit).
    for signum in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(signum, signal.SIG_DFL)
    try:
        os.execv(program, args)
    except OSError as exc:
        print(f"{CANNOT_START} {program}: {exc.strerror}", file=sys.stderr)
        return 127 if isinstance(exc, FileNotFoundError) else 126
    return 0  # not reached: execv replaced this process


if __name__ == "__main__":
    sys.exit(main(sys.argv))
