"""Serving the eval-center pages; every /eval/... path gets the same shell, which routes itself."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, RedirectResponse

STATIC = Path(__file__).with_name("static")
_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}

router = APIRouter(include_in_schema=False)


@router.get("/")
async def home() -> RedirectResponse:
    return RedirectResponse("/eval/datasets")


@router.get("/eval")
@router.get("/eval/{rest:path}")
async def eval_pages(rest: str = "") -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html")


@router.get("/static/{name}")
async def static(name: str) -> FileResponse:
    path = (STATIC / name).resolve()
    if path.parent != STATIC.resolve() or not path.is_file():
        raise HTTPException(404, "not found")
    return FileResponse(path, media_type=_TYPES.get(path.suffix, "application/octet-stream"))
