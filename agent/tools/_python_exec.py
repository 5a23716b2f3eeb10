"""Run Python in a separate, limited process: CPU, wall time, memory, output size, no network,
no child processes, writes only inside a throwaway working directory.

Layers, each enough for the common escape on its own:
- resource limits set in the child before the code runs (CPU, address space, file size, files);
- an audit hook in the child that refuses process creation, sockets, ctypes and writes outside
  the working directory (Python's audit events fire below any pure-Python trick);
- a network namespace with no interfaces (`unshare -n`) where the host allows it;
- a wall-clock timeout after which the whole process group is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass

from pydantic import BaseModel, Field

from schemas.errors import ToolError

from ._base import Tool

_BOOTSTRAP = r'''
import os, resource, sys
cpu_s, mem_bytes, file_bytes = (int(x) for x in sys.argv[1:4])
resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))
resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))
resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
code = sys.stdin.read()
home = os.path.realpath(os.getcwd())
DENY = ("os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
        "subprocess.", "socket.", "ctypes.", "os.kill", "os.killpg", "os.setuid", "os.chroot",
        "pty.", "resource.setrlimit", "sys.addaudithook", "os.add_dll_directory", "mmap.")
BLOCKED_MODULES = {"ctypes", "_ctypes", "_posixsubprocess", "multiprocessing", "_socket", "socket"}
def hook(event, args):
    if event.startswith(DENY):
        raise PermissionError(f"{event} is not allowed in the sandbox")
    if event == "import" and args[0].split(".")[0] in BLOCKED_MODULES:
        raise ImportError(f"module {args[0]} is not available in the sandbox")
    if event == "open" and len(args) > 2 and isinstance(args[0], (str, bytes)):
        flags = args[2] if isinstance(args[2], int) else 0
        mode = args[1] if isinstance(args[1], str) else ""
        writing = bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)) or any(c in mode for c in "wax+")
        path = os.path.realpath(os.fsdecode(args[0]))
        if writing and not (path == home or path.startswith(home + os.sep)):
            raise PermissionError(f"writing outside the working directory is not allowed: {path}")
sys.addaudithook(hook)
del hook
exec(compile(code, "<sandbox>", "exec"), {"__name__": "__main__"})
'''


@functools.cache
def _network_namespace_available() -> bool:
    unshare = shutil.which("unshare")
    if not unshare:
        return False
    try:
        return subprocess.run([unshare, "-n", "true"], capture_output=True, timeout=5).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@dataclass(frozen=True)
class SandboxLimits:
    cpu_s: int = 5
    wall_s: float = 10.0
    memory_bytes: int = 512 * 1024 * 1024
    file_bytes: int = 10 * 1024 * 1024
    output_bytes: int = 64 * 1024


class _Args(BaseModel):
    code: str = Field(..., max_length=100_000, description="Python 3 source; print what you need")


class PythonExec(Tool):
    name = "python_exec"
    description = ("Run Python 3 code in an isolated sandbox (no network, no subprocesses, "
                   "limited CPU, memory and output) and return what it prints.")
    effect = "read"
    Args = _Args

    def __init__(self, limits: SandboxLimits | None = None) -> None:
        self.limits = limits or SandboxLimits()

    async def run(self, args: _Args) -> str:  # type: ignore[override]
        # a worker thread with plain subprocess: child reaping does not depend on the event loop
        # (uvloop loops in other threads can miss SIGCHLD for asyncio subprocesses)
        return await asyncio.to_thread(self._execute, args.code)

    def _execute(self, code: str) -> str:
        limits = self.limits
        workdir = tempfile.mkdtemp(prefix="aw-py-")
        command = [sys.executable, "-I", "-S", "-c", _BOOTSTRAP, str(limits.cpu_s),
                   str(limits.memory_bytes), str(limits.file_bytes)]
        if _network_namespace_available():
            command = ["unshare", "-n", *command]
        timed_out = threading.Event()
        try:
            process = subprocess.Popen(
                command, cwd=workdir, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, start_new_session=True,
                env={"PATH": "/usr/bin:/bin", "HOME": workdir, "LANG": "C.UTF-8",
                     "PYTHONIOENCODING": "utf-8"})
            def expire() -> None:
                timed_out.set()
                _kill(process.pid)

            timer = threading.Timer(limits.wall_s, expire)
            timer.start()
            try:
                output, overflow = _communicate(process, code.encode(), limits.output_bytes)
                exit_code = process.wait()
            finally:
                timer.cancel()
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        if timed_out.is_set():
            raise ToolError(f"timed out after {limits.wall_s:g} s of wall time")
        if overflow:
            raise ToolError(f"output exceeded {limits.output_bytes} bytes; print less")
        text = output.decode("utf-8", "replace")
        if exit_code == 0:
            return text or "(no output)"
        if exit_code in (-signal.SIGXCPU, -signal.SIGKILL) and "Error" not in text:
            raise ToolError(f"CPU time limit of {limits.cpu_s} s exceeded")
        tail = text[-2000:]
        if "MemoryError" in tail:
            raise ToolError(f"memory limit of {limits.memory_bytes // 2**20} MiB exceeded\n{tail}")
        raise ToolError(f"the code failed (exit code {exit_code}):\n{tail}")


def _communicate(process: subprocess.Popen[bytes], stdin: bytes, limit: int) -> tuple[bytes, bool]:
    assert process.stdin is not None and process.stdout is not None
    with contextlib.suppress(BrokenPipeError):
        process.stdin.write(stdin)
        process.stdin.close()
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = process.stdout.read1(65536)  # type: ignore[attr-defined]
        if not chunk:
            process.stdout.close()
            return b"".join(chunks), False
        size += len(chunk)
        if size > limit:
            _kill(process.pid)
            process.stdout.close()
            return b"".join(chunks)[:limit], True
        chunks.append(chunk)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
