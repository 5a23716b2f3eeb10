"""`agentwatch serve` as a separate process on a fresh data directory, for the benchmarks."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx


def start_serve(prefix: str, database: str = "bench") -> tuple[subprocess.Popen[bytes], str, Path]:
    """Start it, wait until /readyz says yes; returns the process, its URL and data directory."""
    data_dir = Path(tempfile.mkdtemp(prefix=prefix))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    server = subprocess.Popen(
        [sys.executable, "-m", "agentwatch", "serve", "--data-dir", str(data_dir),
         "--http-port", str(port), "--no-grpc", "--log-level", "warning"],
        env={**os.environ, "AGENTWATCH_STORE__DATABASE": database},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                return server, url, data_dir
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            raise SystemExit("collector did not start")
        time.sleep(0.1)
