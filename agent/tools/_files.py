"""file_ops: read, write, list and delete inside one sandbox directory, and nowhere else.

Every path is relative to the sandbox root. `..`, absolute paths, and symlinks
whose target leaves the root are refused; the check runs on the resolved path,
so a symlink planted inside the sandbox cannot be used to reach outside it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from schemas.errors import ToolError

from ._base import Effect, Tool

MAX_READ_BYTES = 256 * 1024
MAX_WRITE_BYTES = 1024 * 1024
MAX_FILES = 1000


class _Args(BaseModel):
    operation: Literal["read", "write", "list", "delete"]
    path: str = Field(".", max_length=500, description="relative to the workspace root")
    content: str | None = Field(None, max_length=MAX_WRITE_BYTES, description="for write")


class FileOps(Tool):
    name = "file_ops"
    description = "Read, write, list or delete files in the agent's workspace."
    effect = "mutate"  # the strongest of its operations; read/list are reported per call
    Args = _Args

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)

    def effect_of(self, args: _Args) -> Effect:  # type: ignore[override]
        return "read" if args.operation in ("read", "list") else "mutate"

    def resolve(self, relative: str) -> Path:
        if "\x00" in relative:
            raise ToolError("path contains a NUL byte")
        candidate = Path(relative)
        if candidate.is_absolute():
            raise ToolError(f"absolute paths are not allowed: {relative}")
        if ".." in candidate.parts:
            raise ToolError(f"'..' is not allowed in paths: {relative}")
        resolved = (self.root / candidate).resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise ToolError(f"{relative} leaves the workspace (through a symbolic link)")
        return resolved

    async def run(self, args: _Args) -> str:  # type: ignore[override]
        path = self.resolve(args.path)
        shown = os.path.relpath(path, self.root)
        if args.operation == "list":
            if not path.is_dir():
                raise ToolError(f"{shown} is not a directory")
            entries = sorted(path.iterdir())[:MAX_FILES]
            return "\n".join(f"{e.name}/" if e.is_dir() else f"{e.name}\t{e.stat().st_size} bytes"
                             for e in entries) or "(empty)"
        if args.operation == "read":
            if not path.is_file():
                raise ToolError(f"no file {shown}")
            data = path.read_bytes()[: MAX_READ_BYTES + 1]
            text = data[:MAX_READ_BYTES].decode("utf-8", "replace")
            return text + ("\n…[truncated]" if len(data) > MAX_READ_BYTES else "")
        if args.operation == "write":
            if args.content is None:
                raise ToolError("write needs content")
            if path == self.root or path.is_dir():
                raise ToolError(f"{shown} is a directory")
            path.parent.mkdir(parents=True, exist_ok=True)
            # O_NOFOLLOW: a symlink swapped in after the check is not followed
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(args.content)
            return f"wrote {len(args.content.encode())} bytes to {shown}"
        if path == self.root:
            raise ToolError("cannot delete the workspace root")
        if not path.exists():
            raise ToolError(f"no file {shown}")
        if path.is_dir():
            raise ToolError(f"{shown} is a directory; delete its files first")
        path.unlink()
        return f"deleted {shown}"
