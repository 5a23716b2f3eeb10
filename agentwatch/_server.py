"""Running the app under uvicorn on sockets we bind ourselves (clear errors, port 0 in tests)."""

from __future__ import annotations

import errno
import socket
import threading
import time

import uvicorn
from fastapi import FastAPI

from schemas.errors import UsageError


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(
                f"port {port} on {host} is already in use: stop the other process or pass --http-port"
            ) from None
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


class _Server(uvicorn.Server):
    """uvicorn, plus a hook run as shutdown begins: requests still in flight wait on the
    write queue, so it must flush now rather than after they time out."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        app = self.config.app
        hook = getattr(getattr(app, "state", None), "before_shutdown", None)
        if hook is not None:
            hook()
        await super().shutdown(sockets)


def uvicorn_server(app: FastAPI, log_level: str = "warning") -> uvicorn.Server:
    config = uvicorn.Config(
        app, log_level=log_level, access_log=False, lifespan="on", timeout_graceful_shutdown=30,
        log_config=None,
    )
    return _Server(config)


class BackgroundServer:
    """The service in a thread of this process; used by tests, benchmarks and `demo`."""

    def __init__(self, app: FastAPI, host: str = "127.0.0.1", port: int = 0) -> None:
        self.sock = bind(host, port)
        self.host = host
        self.port = self.sock.getsockname()[1]
        self.server = uvicorn_server(app)
        self._thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout_s: float = 60) -> BackgroundServer:
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self.server.started:
            if not self._thread.is_alive():
                raise RuntimeError("server thread died during start-up")
            if time.monotonic() > deadline:
                raise TimeoutError("server did not start")
            time.sleep(0.02)
        return self

    def stop(self, timeout_s: float = 60) -> None:
        self.server.should_exit = True
        self._thread.join(timeout_s)
        self.sock.close()
