"""Dataset import and export: JSON Lines and CSV, one case per line or row."""

from __future__ import annotations

import csv
import io
import json

from pydantic import ValidationError

from schemas import Case, CaseIn

CSV_FIELDS = ["prompt", "expected_behavior", "assertions", "tags"]


class ImportError_(ValueError):
    """A line or row that is not a valid case; the message says which and why."""


def export_jsonl(cases: list[Case]) -> str:
    return "".join(json.dumps(CaseIn.model_validate(c.model_dump()).model_dump()) + "\n" for c in cases)


def export_csv(cases: list[Case]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS)
    writer.writeheader()
    for c in cases:
        writer.writerow({"prompt": c.prompt, "expected_behavior": c.expected_behavior,
                         "assertions": json.dumps(c.assertions), "tags": json.dumps(c.tags)})
    return out.getvalue()


def parse_jsonl(text: str) -> list[CaseIn]:
    cases = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            cases.append(CaseIn.model_validate(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ImportError_(f"line {number}: not JSON ({exc.msg})") from None
        except ValidationError as exc:
            raise ImportError_(f"line {number}: {_problems(exc)}") from None
    return cases


def parse_csv(text: str) -> list[CaseIn]:
    reader = csv.DictReader(io.StringIO(text))
    missing = {"prompt", "expected_behavior"} - set(reader.fieldnames or [])
    if missing:
        raise ImportError_(f"CSV header lacks {', '.join(sorted(missing))}")
    cases = []
    for number, row in enumerate(reader, 2):
        try:
            cases.append(CaseIn(prompt=row["prompt"], expected_behavior=row["expected_behavior"],
                                assertions=_list(row.get("assertions")), tags=_list(row.get("tags"))))
        except ValidationError as exc:
            raise ImportError_(f"row {number}: {_problems(exc)}") from None
    return cases


def _list(cell: str | None) -> list[str]:
    if not cell:
        return []
    try:
        value = json.loads(cell)
        if isinstance(value, list):
            return [str(v) for v in value]
    except json.JSONDecodeError:
        pass
    return [part.strip() for part in cell.split("|") if part.strip()]


def _problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
