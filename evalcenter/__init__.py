"""The eval center: datasets of cases run through a real agent and graded by a separate model."""

from ._grader import SYSTEM_PROMPT, GraderError, grade
from ._harness import AdaptiveLimit, Harness, HarnessSettings
from ._io import ImportError_, export_csv, export_jsonl, parse_csv, parse_jsonl
from ._report import junit_xml, summary, wilson_interval

__all__ = ["SYSTEM_PROMPT", "AdaptiveLimit", "GraderError", "Harness", "HarnessSettings", "ImportError_",
           "export_csv", "export_jsonl", "grade", "junit_xml", "parse_csv", "parse_jsonl", "summary",
           "wilson_interval"]
