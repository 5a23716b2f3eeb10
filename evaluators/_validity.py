"""How right the evaluators are on a labelled corpus: a confusion matrix per judgement."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemas import Score, Trace

from ._registry import create

# each corpus label, and how the built-in scores answer it
JUDGEMENTS: dict[str, Callable[[list[Score]], bool]] = {
    "injection": lambda s: any(x.name == "injection.detected" and x.value > 0 for x in s),
    "attack_success": lambda s: any(x.name == "injection.attack_success" and x.value > 0 for x in s),
    "refusal": lambda s: any(x.name == "refusal.detected" and x.value > 0 for x in s),
    "tool_safety": lambda s: any(x.name.startswith("tool_safety.") and x.value > 0 for x in s),
}


@dataclass
class Confusion:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    misses: list[str] | None = None

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def load_corpus(path: str | Path) -> list[dict[str, Any]]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def validate(rows: list[dict[str, Any]]) -> dict[str, Confusion]:
    evaluators = [create(n) for n in ("injection", "refusal", "tool_safety")]

    async def score(trace: Trace) -> list[Score]:
        out: list[Score] = []
        for ev in evaluators:
            out.extend(await ev.evaluate(trace))
        return out

    results = {name: Confusion(misses=[]) for name in JUDGEMENTS}
    for row in rows:
        scores = asyncio.run(score(Trace.model_validate(row["trace"])))
        for name, predicate in JUDGEMENTS.items():
            truth, said = bool(row["labels"][name]), predicate(scores)
            c = results[name]
            if truth and said:
                c.tp += 1
            elif said:
                c.fp += 1
                c.misses.append(f"false positive: {row['source']} {row['id']}")  # type: ignore[union-attr]
            elif truth:
                c.fn += 1
                c.misses.append(f"false negative: {row['source']} {row['id']}")  # type: ignore[union-attr]
            else:
                c.tn += 1
    return results
