"""Provider families, to warn when a judge grades its own family (self-preference bias)."""

from __future__ import annotations

FAMILIES = {
    "openai": ("gpt", "o1", "o3", "o4", "codex", "chatgpt", "openai"),
    "anthropic": ("claude", "anthropic"),
    "google": ("gemini", "gemma", "google"),
    "meta": ("llama", "meta"),
    "mistral": ("mistral", "mixtral", "codestral", "magistral"),
    "qwen": ("qwen", "qwq"),
    "deepseek": ("deepseek",),
}


def family(name: str | None) -> str | None:
    """The family of an agent or judge name ('openai:gpt-5', 'claude-code', 'codex-cli', ...)."""
    if not name:
        return None
    tokens = name.lower().replace("/", ":").split(":")
    for tok in reversed(tokens):  # the model part wins over a gateway provider prefix
        for fam, prefixes in FAMILIES.items():
            if any(tok.startswith(p) for p in prefixes):
                return fam
    return None


def same_family_warning(judge: str, agent: str | None, agent_model: str | None = None) -> str | None:
    j = family(judge)
    a = family(agent_model) or family(agent)
    if j and j == a:
        return (f"judge '{judge}' and agent '{agent_model or agent}' are both in the {j} family: "
                "self-preference bias; prefer a judge from another family")
    return None
