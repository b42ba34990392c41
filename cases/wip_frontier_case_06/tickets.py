"""Rows of the helpdesk's JSON-lines export to columns, one entry per ticket, whatever the channel.

Email rows carry `subject` and `body`, web-form rows a `message`, chat rows the transcript's `turns`
(each with `speaker` and `text`). Every row also carries the customer's `activity` counters from the account system. `read_export` keeps id,
creation time, channel, queue, activity and subject, and the customer's own text (the body, the message, or the
customer's turns of the chat), cleaned."""

import json

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
            "queue": row.get("queue"), "activity": dict(row.get("activity", {})),
            "subject": row.get("subject", "").strip(), "text": TEXT_OF[channel](row)}


def clean(text):
    """Lower-cased, carriage returns dropped, tabs as spaces, no surrounding whitespace."""
    return text.lower().replace("\r", "").replace("\t", " ").strip()


def read_export(path):
    """The export as columns: id, created_at, channel, queue, activity, subject, text (lists of equal length)."""
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(parse_ticket(json.loads(line)))
    cols = {key: [r[key] for r in rows] for key in ("id", "created_at", "channel", "queue", "activity")}
    cols["subject"] = [clean(r["subject"]) for r in rows]
    cols["text"] = [clean(r["text"]) for r in rows]
    return cols
