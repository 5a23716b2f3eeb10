"""Each built-in tool meets hostile input with a clean ToolError, within its limits."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.responses import RedirectResponse, Response

from agent.tools import (
    Calculator,
    FetchPolicy,
    FileOps,
    LocalIndex,
    PythonExec,
    SandboxLimits,
    ToolConfig,
    WebFetch,
    WebSearch,
    build_tools,
)
from agentwatch._server import BackgroundServer
from schemas.errors import ToolError, UsageError


def call(tool, arguments):  # type: ignore[no-untyped-def]
    return asyncio.run(tool.run(tool.parse(arguments)))


# -- calculator ---------------------------------------------------------------

def test_calculator_is_exact() -> None:
    calc = Calculator()
    assert call(calc, {"expression": "0.1 + 0.2"}) == "3/10 (≈ 0.3)"
    assert call(calc, {"expression": "2**100"}) == str(2**100)
    assert call(calc, {"expression": "(1.5 + 2) * 4 - -1"}) == "15"
    assert call(calc, {"expression": "7 // 2 + 7 % 2"}) == "4"


@pytest.mark.parametrize(("expression", "words"), [
    ("__import__('os').system('id')", "only numbers"),
    ("1 / 0", "division by zero"),
    ("9 ** 9 ** 9", "exponent too large"),
    ("10 ** 5000", "more than 1000 digits"),
    ("2 ** 0.5", "whole-number exponents"),
    ("1 +", "not an arithmetic expression"),
    ("a * 2", "only numbers"),
])
def test_calculator_refuses(expression: str, words: str) -> None:
    with pytest.raises(ToolError, match=words):
        call(Calculator(), {"expression": expression})


def test_arguments_are_validated_with_readable_errors() -> None:
    calc = Calculator()
    with pytest.raises(ToolError, match="expression: Field required"):
        calc.parse({})
    with pytest.raises(ToolError, match="not valid JSON"):
        calc.parse("{oops")
    with pytest.raises(ToolError, match="at most 500 characters"):
        calc.parse({"expression": "1+" * 400})


# -- python_exec --------------------------------------------------------------

FAST = SandboxLimits(cpu_s=1, wall_s=3, memory_bytes=256 * 2**20, output_bytes=4096)


@pytest.mark.parametrize(("code", "words", "within_s"), [
    ("while True: pass", "CPU time limit", 3),
    ("import time; time.sleep(60)", "timed out after 3 s", 5),
    ("x = bytearray(10 * 1024**3)", "memory limit", 2),
    ("import os\nwhile True: os.fork()", "os.fork is not allowed", 2),
    ("import subprocess; subprocess.run(['id'])", "not available in the sandbox", 2),
    ("import socket", "not available in the sandbox", 2),
    ("import urllib.request; urllib.request.urlopen('http://127.0.0.1:9')", "sandbox", 2),
    ("open('/tmp/aw-escape.txt', 'w').write('x')", "writing outside the working directory", 2),
    ("import ctypes", "not available in the sandbox", 2),
    ("while True: print('x' * 1000)", "output exceeded 4096 bytes", 3),
    ("raise ValueError('boom')", "ValueError: boom", 2),
])
def test_python_exec_contains_hostile_code(code: str, words: str, within_s: float) -> None:
    started = time.monotonic()
    with pytest.raises(ToolError, match=words):
        call(PythonExec(FAST), {"code": code})
    assert time.monotonic() - started < within_s
    assert not Path("/tmp/aw-escape.txt").exists()


def test_python_exec_runs_code_in_a_throwaway_directory() -> None:
    out = call(PythonExec(FAST), {"code": "import os\nopen('f.txt','w').write('hi')\n"
                                          "print(open('f.txt').read(), os.getcwd())"})
    text, cwd = out.split()
    assert text == "hi" and "aw-py-" in cwd and not os.path.exists(cwd)
    env = call(PythonExec(FAST), {"code": "import os; print(sorted(os.environ))"})
    assert "AGENTWATCH" not in env and "API_KEY" not in env


# -- file_ops -----------------------------------------------------------------

def test_file_ops_inside_the_workspace(tmp_path: Path) -> None:
    files = FileOps(tmp_path / "ws")
    assert call(files, {"operation": "write", "path": "a/b.txt", "content": "hello"}).startswith("wrote 5")
    assert call(files, {"operation": "read", "path": "a/b.txt"}) == "hello"
    assert "b.txt\t5 bytes" in call(files, {"operation": "list", "path": "a"})
    assert files.effect_of(files.parse({"operation": "read", "path": "x"})) == "read"
    assert files.effect_of(files.parse({"operation": "delete", "path": "x"})) == "mutate"
    assert call(files, {"operation": "delete", "path": "a/b.txt"}) == "deleted a/b.txt"


def test_file_ops_refuses_escapes(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    root = tmp_path / "ws"
    files = FileOps(root)
    (root / "link").symlink_to(secret)
    (root / "dirlink").symlink_to(tmp_path)
    cases = [
        ({"operation": "read", "path": "../secret.txt"}, "'..' is not allowed"),
        ({"operation": "read", "path": str(secret)}, "absolute paths"),
        ({"operation": "read", "path": "link"}, "leaves the workspace"),
        ({"operation": "read", "path": "dirlink/secret.txt"}, "leaves the workspace"),
        ({"operation": "write", "path": "dirlink/new.txt", "content": "x"}, "leaves the workspace"),
        ({"operation": "delete", "path": "link"}, "leaves the workspace"),
        ({"operation": "read", "path": "a\x00b"}, "NUL"),
        ({"operation": "delete", "path": "."}, "workspace root"),
        ({"operation": "read", "path": "missing.txt"}, "no file"),
    ]
    for arguments, words in cases:
        with pytest.raises(ToolError, match=words):
            call(files, arguments)
    assert secret.read_text() == "top secret" and not (tmp_path / "new.txt").exists()


# -- web_fetch ----------------------------------------------------------------

@pytest.fixture(scope="module")
def site():  # type: ignore[no-untyped-def]
    app = FastAPI()

    @app.get("/page")
    async def page() -> Response:
        return Response("<html><script>evil()</script><h1>Title</h1><p>Body text</p></html>",
                        media_type="text/html")

    @app.get("/big")
    async def big() -> Response:
        return Response("a" * 2_000_000, media_type="text/plain")

    @app.get("/loop/{n}")
    async def loop(n: int) -> RedirectResponse:
        return RedirectResponse(f"/loop/{n + 1}")

    @app.get("/to-page")
    async def to_page() -> RedirectResponse:
        return RedirectResponse("/page")

    @app.get("/png")
    async def png() -> Response:
        return Response(b"\x89PNG....", media_type="image/png")

    @app.get("/slow")
    async def slow() -> Response:
        await asyncio.sleep(5)
        return Response("late")

    server = BackgroundServer(app).start()
    yield server.url
    server.stop()


def test_web_fetch_refuses_private_and_loopback_by_default(site: str) -> None:
    fetch = WebFetch()
    for url in (f"{site}/page", "http://localhost:9/", "http://[::1]:9/", "http://10.1.2.3/",
                "http://169.254.169.254/latest/meta-data/"):
        with pytest.raises(ToolError, match="non-public address"):
            call(fetch, {"url": url})
    for url in ("file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)"):
        with pytest.raises(ToolError, match="only http"):
            call(fetch, {"url": url})


def test_web_fetch_limits_when_loopback_is_allowed(site: str) -> None:
    fetch = WebFetch(FetchPolicy(allow_private=True, timeout_s=1, max_bytes=100_000, max_redirects=3))
    assert call(fetch, {"url": f"{site}/page"}) == "Title\nBody text"
    assert call(fetch, {"url": f"{site}/to-page"}) == "Title\nBody text"
    big = call(fetch, {"url": f"{site}/big"})
    assert big.endswith("…[truncated]") and len(big) < 100_100
    with pytest.raises(ToolError, match="more than 3 redirects"):
        call(fetch, {"url": f"{site}/loop/0"})
    with pytest.raises(ToolError, match="not text"):
        call(fetch, {"url": f"{site}/png"})
    with pytest.raises(ToolError, match="HTTP 404"):
        call(fetch, {"url": f"{site}/nothing"})
    started = time.monotonic()
    with pytest.raises(ToolError, match="did not answer within 1 s"):
        call(fetch, {"url": f"{site}/slow"})
    assert time.monotonic() - started < 3


# -- web_search and the toolbox ------------------------------------------------

def test_web_search() -> None:
    with pytest.raises(ToolError, match="no search provider"):
        call(WebSearch(None), {"query": "refunds"})
    index = LocalIndex([{"title": "Refunds", "url": "u1", "text": "refund within 30 days"},
                        {"title": "Travel", "url": "u2", "text": "economy flights"}])
    assert call(WebSearch(index), {"query": "refund policy"}).startswith("Refunds\nu1")
    assert call(WebSearch(index), {"query": "zebra"}) == "no results"


def test_unknown_tool_names_are_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="unknown tool"):
        build_tools(["calculator", "rm_rf"], ToolConfig(tmp_path))
    tools = build_tools(["calculator", "file_ops"], ToolConfig(tmp_path))
    assert tools["calculator"].schema()["function"]["parameters"]["required"] == ["expression"]
