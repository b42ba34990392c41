"""Rows of the helpdesk's JSON-lines export to ticket records with one text each, whatever the channel.

Email rows carry `subject` and `body`, web-form rows a `message`, chat rows the transcript's `turns`
(each with `speaker` and `text`). Every record keeps id, creation time, channel and queue and gains `text`."""

import json

CHANNELS = ("email", "web", "chat")


def email_text(row):
    return f"subject {row['subject'].strip()}\n{row['body'].strip()}"


def web_text(row):
    return row["message"].strip()


def chat_text(row):
    """The customer's side of a chat, one line per turn; the bot's greetings, menus and answers are left out."""
    return "\n".join(t["text"].strip() for t in row["turns"] if t["speaker"] == "customer" and t["text"].strip())


TEXT_OF = {"email": email_text, "web": web_text, "chat": chat_text}


def parse_ticket(row):
    channel = row.get("channel", "")
    if channel not in TEXT_OF:
        raise ValueError(f"ticket {row.get('id')}: unknown channel {channel!r}")
    return {"id": row["id"], "created_at": int(row.get("created_at", 0)), "channel": channel,
            "queue": row.get("queue"), "text": TEXT_OF[channel](row)}


def read_export(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(parse_ticket(json.loads(line)))
    return rows
