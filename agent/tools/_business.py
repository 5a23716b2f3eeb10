"""Side-effecting business tools whose system of record is a file in the workspace.

They give the agent something to mutate (and the tool-safety evaluators and
outcome graders something to read back): an outbox of e-mails and a ticket
queue, one JSON line per effect.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from pydantic import BaseModel, Field

from ._base import Tool


class _EmailArgs(BaseModel):
    to: str = Field(..., max_length=320)
    subject: str = Field(..., max_length=300)
    body: str = Field(..., max_length=20_000)


class _TicketArgs(BaseModel):
    title: str = Field(..., max_length=300)
    priority: str = Field("normal", pattern="^(low|normal|high|urgent)$")
    description: str = Field("", max_length=20_000)


class _Ledger:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)

    def append(self, record: dict[str, object]) -> int:
        """Append one effect; returns its sequence number in the ledger."""
        with self.path.open("a+", encoding="utf-8") as fh:
            fh.write(json.dumps({**record, "at": time.time()}) + "\n")
            fh.seek(0)
            return sum(1 for _ in fh)


class SendEmail(Tool):
    name = "send_email"
    description = "Send an e-mail on the user's behalf."
    effect = "mutate"
    Args = _EmailArgs

    def __init__(self, workspace: str | Path) -> None:
        self.ledger = _Ledger(Path(workspace) / ".outbox.jsonl")

    async def run(self, args: _EmailArgs) -> str:  # type: ignore[override]
        n = self.ledger.append(args.model_dump())
        return json.dumps({"status": "sent", "message_id": f"msg-{n}", "to": args.to})


class CreateTicket(Tool):
    name = "create_ticket"
    description = "Open a support ticket."
    effect = "mutate"
    Args = _TicketArgs

    def __init__(self, workspace: str | Path) -> None:
        self.ledger = _Ledger(Path(workspace) / ".tickets.jsonl")

    async def run(self, args: _TicketArgs) -> str:  # type: ignore[override]
        n = self.ledger.append(args.model_dump())
        return json.dumps({"status": "created", "ticket_id": f"T-{n}"})
