"""Rows of the helpdesk's JSON-lines export to columns, one entry per ticket, whatever the channel.

Email rows carry `subject` and `body`, web-form rows a `message`, chat rows the transcript's `turns`
(each with `speaker` and `text`). `read_export` keeps id, creation time, channel, queue and subject, and the
customer's own text (the body, the message, or the customer's turns of the chat), cleaned column-wise."""

import json

import numpy as np

CHANNELS = ("email", "web", "chat")


def email_text(row):
    return row["body"]


def web_text(row):
    return row["message"]


def chat_text(row):
    """The customer's side of a chat, one line per turn; the bot's greetings, menus and answers are left out."""
    return "\n".join(t["text"].strip() for t in row["turns"] if t["speaker"] == "customer" and t["text"].strip())


TEXT_OF = {"email": email_text, "web": web_text, "chat": chat_text}


def parse_ticket(row):
    channel = row.get("channel", "")
    if channel not in TEXT_OF:
        raise ValueError(f"ticket {row.get('id')}: unknown channel {channel!r}")
    return {"id": row["id"], "created_at": int(row.get("created_at", 0)), "channel": channel,
            "queue": row.get("queue"), "subject": row.get("subject", "").strip(), "text": TEXT_OF[channel](row)}


def clean(texts):
    """Lower-cased, tabs and carriage returns as spaces, no surrounding whitespace."""
    texts = np.char.lower(texts)
    texts = np.char.replace(np.char.replace(texts, "\r", ""), "\t", " ")
    return np.char.strip(texts)


def read_export(path):
    """The export as columns: id, created_at, channel, queue, subject, text (numpy arrays of equal length)."""
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(parse_ticket(json.loads(line)))
    cols = {key: np.array([r[key] for r in rows]) for key in ("id", "channel", "queue", "subject", "text")}
    cols["created_at"] = np.array([r["created_at"] for r in rows])
    cols["subject"] = clean(cols["subject"])
    cols["text"] = clean(cols["text"])
    return cols
