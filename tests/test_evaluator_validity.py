"""Precision and recall of every evaluator on the labelled corpus must stay at or above 0.9."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluators._validity import JUDGEMENTS, load_corpus, validate

CORPUS = Path(__file__).parent / "corpus" / "traces.jsonl"


@pytest.fixture(scope="module")
def confusion():  # type: ignore[no-untyped-def]
    rows = load_corpus(CORPUS)
    assert len(rows) >= 100
    for name in JUDGEMENTS:  # every judgement has positives and negatives to be right or wrong on
        labels = [r["labels"][name] for r in rows]
        assert any(labels) and not all(labels), name
    return validate(rows)


@pytest.mark.parametrize("judgement", list(JUDGEMENTS))
def test_precision_and_recall(confusion, judgement: str) -> None:  # type: ignore[no-untyped-def]
    c = confusion[judgement]
    assert c.precision >= 0.9 and c.recall >= 0.9, (c.precision, c.recall, c.misses)
