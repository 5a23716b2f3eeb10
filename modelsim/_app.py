"""An OpenAI-compatible Chat Completions server on loopback, for demos and tests.

No real LLM is reachable from where agentwatch is built and tested, so this
server stands in for the provider. It speaks the real protocol (JSON and SSE
streaming, tool calls, usage) and behaves by a simple rule: when the request
offers tools and no tool result has come back yet, it calls the first tool;
otherwise it answers in text, echoing what it was given. Scenario files
(issue 3) will script richer behaviour on top of the same app.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, StreamingResponse


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _reply(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The assistant's text and tool calls for this request."""
    messages = body.get("messages") or []
    tools = body.get("tools") or []
    saw_tool_result = any(m.get("role") == "tool" for m in messages)
    if tools and not saw_tool_result:
        fn = tools[0]["function"]
        last_user: dict[str, Any] = next(
            (m for m in reversed(messages) if m.get("role") == "user"), {})
        args = {"query": str(last_user.get("content", ""))[:200]}
        call = {"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                "function": {"name": fn["name"], "arguments": json.dumps(args)}}
        return "", [call]
    last = messages[-1] if messages else {}
    return f"Answer to: {str(last.get('content', ''))[:200]}", []


def create_app() -> FastAPI:
    app = FastAPI(title="agentwatch model simulator")

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Any:
        try:
            body = await request.json()
        except json.JSONDecodeError:
            raise HTTPException(400, "body is not JSON") from None
        if not isinstance(body, dict) or not body.get("messages"):
            raise HTTPException(400, "messages is required")
        model = str(body.get("model", "sim-model"))
        text, calls = _reply(body)
        prompt_tokens = sum(_tokens(json.dumps(m)) for m in body["messages"])
        completion_tokens = _tokens(text + json.dumps(calls))
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                 "total_tokens": prompt_tokens + completion_tokens}
        finish = "tool_calls" if calls else "stop"
        completion_id = f"chatcmpl-{uuid.uuid4().hex[:16]}"
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return StreamingResponse(
                _stream(completion_id, model, text, calls, finish, usage if include_usage else None),
                media_type="text/event-stream",
            )
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            message["tool_calls"] = calls
        return JSONResponse({
            "id": completion_id, "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage,
        })

    return app


def _stream(completion_id: str, model: str, text: str, calls: list[dict[str, Any]],
            finish: str, usage: dict[str, int] | None) -> Iterator[str]:
    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        return "data: " + json.dumps({
            "id": completion_id, "object": "chat.completion.chunk", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }) + "\n\n"

    yield chunk({"role": "assistant", "content": ""})
    for start in range(0, len(text), 16):
        yield chunk({"content": text[start:start + 16]})
    for index, call in enumerate(calls):
        yield chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                     "function": {"name": call["function"]["name"],
                                                  "arguments": call["function"]["arguments"]}}]})
    yield chunk({}, finish)
    if usage is not None:
        yield "data: " + json.dumps({"id": completion_id, "object": "chat.completion.chunk",
                                     "created": int(time.time()), "model": model, "choices": [],
                                     "usage": usage}) + "\n\n"
    yield "data: [DONE]\n\n"
