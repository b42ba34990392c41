"""The grep baseline: the floor for localization, with no model (``--agent grep``, issue 15).

A reviewer who suspects a bug's family greps for its construct and reads the first hit. This agent
does exactly that, mechanically: for each construct of ``CONSTRUCTS``, in order, it runs one
``grep -rnE`` over the workspace's ``.py`` files through the recorded tools (so its transcript is
real), and the first construct with any hit wins. Its first hit, in sorted file order then line order,
is reported as the location, with the construct's canned root-cause sentence. It applies no fix.

The list has one construct per bug family of the standard cases, in the standard cases' order
(case_01's family first). It is fixed and documented (docs/running.md) so the baseline is the same for
every case and every run; it is never tuned to a case. On the standard tier one grep is enough to find
most bugs; the hard tier is built so that the first hit is a legitimate use.

Nothing outside the workspace is read: the only command it runs is ``grep -r`` (which does not follow
symbolic links inside the tree) on ``.`` in the workspace, through the sandbox.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Callable

from harness.agents.base import AgentOutcome, AgentTask
from harness.models import Report


@dataclass(frozen=True)
class Construct:
    family: str
    pattern: str  # a POSIX extended regex (grep -E) that Python's re also reads the same way
    cause: str


CONSTRUCTS: tuple[Construct, ...] = (
    Construct("softmax", r"softmax",
              "The model's outputs go through a softmax before a loss that expects raw logits (it applies "
              "log_softmax itself), so the loss sees squashed probabilities and cannot train."),
    Construct("label_mask", r"masked_fill|-100|ignore_index",
              "The label mask is wrong: the positions set to the ignore index are not the ones that should be "
              "ignored, so the loss supervises the wrong tokens (or none)."),
    Construct("split_leak", r"random_split|Subset",
              "Data leaks across the train/validation split: code reaches the whole underlying dataset through "
              "a split subset, so validation rows (and labels) are used in training."),
    Construct("layout", r"reshape|view\(",
              "A reshape/view reinterprets memory in the wrong layout where a transpose/permute is needed, so "
              "elements of different samples or time steps are mixed."),
    Construct("update_metric", r"log10|ratio",
              "The logged ratio is computed with a formula that does not match what the optimizer really does, "
              "so the monitored number is wrong while training is fine."),
    Construct("normalization", r"std\(|mean\(",
              "A normalization uses statistics of the wrong scope (per batch) or divides by a zero standard "
              "deviation, so features become NaN or inconsistent across batches."),
    Construct("mode_switch", r"\.train\(\)|\.eval\(\)",
              "The model is in the wrong mode: a train()/eval() switch leaves dropout and batch norm in "
              "training mode during evaluation."),
    Construct("stale_cache", r"cache|fingerprint",
              "A stale cache is reused: the cache key does not cover every input the cached result depends on."),
    Construct("episode_end", r"reset|done|terminal",
              "Episode ends are mishandled: terminal flags are lost or reset before they are read, so returns "
              "bootstrap across episode boundaries."),
    Construct("optimization", r"grad|lr",
              "The gradient step is mis-scaled: the loss terms or the learning rate make one term dominate the "
              "gradients, so training stalls."),
)

MAX_LINES = 200  # hits kept per grep (after sorting): the first is all the agent uses
HIT = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<text>.*)$")


def grep_command(construct: Construct) -> str:
    """One grep over the workspace's Python files; sorted by file then line so the first hit is stable."""
    return (f"grep -rnE --include='*.py' {shlex.quote(construct.pattern)} . "
            f"| LC_ALL=C sort -t: -k1,1 -k2,2n | head -n {MAX_LINES}")


@dataclass(frozen=True)
class Hit:
    construct: Construct
    file: str
    line: int
    text: str

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}"


def first_hit(construct: Construct, stdout: str) -> Hit | None:
    """The first hit of a grep's output, in (file, line) order, with the ``./`` prefix dropped."""
    hits = []
    for raw in stdout.splitlines():
        m = HIT.match(raw)
        if m:
            hits.append((m.group("file").removeprefix("./"), int(m.group("line")), m.group("text")))
    if not hits:
        return None
    file, line, text = min(hits, key=lambda h: (h[0], h[1]))
    return Hit(construct, file, line, text)


def search(run: Callable[[str], str]) -> Hit | None:
    """Run the constructs' greps in order through ``run`` (command -> stdout); the first one that hits wins."""
    for construct in CONSTRUCTS:
        hit = first_hit(construct, run(grep_command(construct)))
        if hit is not None:
            return hit
    return None


def report_for(hit: Hit | None) -> Report:
    if hit is None:
        return Report(root_cause="unknown: none of the suspicious constructs occurs in the project")
    return Report(root_cause=hit.construct.cause, location=hit.location,
                  evidence=f"first hit of the '{hit.construct.family}' grep ({hit.construct.pattern}): "
                           f"{hit.location}: {hit.text.strip()[:200]}")


class GrepAgent:
    name = "grep"
    settings: dict = {"constructs": [c.pattern for c in CONSTRUCTS]}

    def check_limits(self, limits) -> None:
        """Every budget applies as given: the runner enforces steps and wall time."""

    def run(self, task: AgentTask) -> AgentOutcome:
        def run(command: str) -> str:
            return task.tools.bash(command).stdout

        hit = search(run)
        report = report_for(hit)
        task.transcript.append("message", role="assistant",
                               content=f"First hit: {hit.location} ({hit.construct.family})." if hit
                               else "No suspicious construct found.")
        task.transcript.append("report", report=report)
        return AgentOutcome(status="completed", report=report)


def create(spec: str, root, **options) -> GrepAgent:
    return GrepAgent()
