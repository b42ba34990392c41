"""The versioned task prompt. Its hash goes into every run manifest.

It asks for a diagnosis and a fix, as a user would. It deliberately does not ask the
agent to name a discriminating test or competing hypotheses: the judge reads the
process from the transcript (docs/design.md, "Report").
"""

from __future__ import annotations

from harness.core.hashing import sha256_text

TASK_TEMPLATE_VERSION = "task-v2"

SYSTEM_TEMPLATE = """\
You are a software engineer working in a terminal. You can run shell commands in the \
repository with the bash tool and edit its files. When you are done, call submit_report exactly once.\
{skill_block}"""

SKILL_BLOCK = """

<skill>
The following guidance was provided to you. Use your judgement on how it applies.

{skill}
</skill>"""

TASK_TEMPLATE = """\
A colleague has a machine-learning training repository that is not behaving as expected. \
Their bug report is below.

The repository is at: {workspace}
Run the code, investigate, find the root cause, and fix it in the repository. \
Keep the repository's structure and entry points as they are: file names, command-line flags, and \
these names with their signatures, which other code calls: {entry_points}.

When you are finished, call submit_report with:
- root_cause: what is wrong and why it produces the symptom
- location: where the bug is, as file:line (or file:start-end; several separated by ';')
- fix: what you changed
- evidence: what you observed that supports your diagnosis

--- bug report (README.md) ---
{readme}
--- end of bug report ---
"""

PROMPT_TEMPLATE_SHA256 = sha256_text(TASK_TEMPLATE_VERSION + SYSTEM_TEMPLATE + SKILL_BLOCK + TASK_TEMPLATE)


def render_system(skill: str | None) -> str:
    block = SKILL_BLOCK.format(skill=skill.strip()) if skill else ""
    return SYSTEM_TEMPLATE.format(skill_block=block)


def render_task(readme: str, workspace: str, entry_points: list[str] = ()) -> str:
    names = ", ".join(f"`{e}`" for e in entry_points) or "the functions and classes other modules import"
    return TASK_TEMPLATE.format(readme=readme.strip(), workspace=workspace, entry_points=names)
