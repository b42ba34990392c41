"""Conversation files: JSON lines with a ``messages`` list of {role, content}."""

import json
from pathlib import Path

from chatlm.templates import ROLES


class DataError(ValueError):
    pass


def read_jsonl(path):
    rows = []
    with open(path) as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}:{n}: not valid JSON ({exc.msg})") from exc
    return rows


def check_conversation(row, where):
    messages = row.get("messages") if isinstance(row, dict) else None
    if not isinstance(messages, list) or not messages:
        raise DataError(f"{where}: no 'messages' list")
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict) or msg.get("role") not in ROLES or not isinstance(msg.get("content"), str):
            raise DataError(f"{where}: message {i} needs a role in {ROLES} and a string content")
    if messages[-1]["role"] != "assistant":
        raise DataError(f"{where}: the last message must be the assistant's reply")
    return messages


def load_conversations(path, min_reply_chars=1):
    """The conversations of a file, checked; those whose reply is shorter than min_reply_chars are dropped."""
    out = []
    for n, row in enumerate(read_jsonl(path), start=1):
        messages = check_conversation(row, f"{path}:{n}")
        if len(messages[-1]["content"].strip()) >= min_reply_chars:
            out.append(messages)
    return out


def describe(conversations):
    n_sys = sum(m[0]["role"] == "system" for m in conversations)
    turns = sum(len(m) for m in conversations)
    return f"{len(conversations)} chats, {turns} messages, {n_sys} with a system prompt"


def data_files(cfg):
    return [Path(cfg.data.train), Path(cfg.data.val)]
