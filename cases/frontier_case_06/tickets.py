"""Rows of the helpdesk's JSON-lines export to ticket records with one text each, whatever the channel.

Email rows carry `subject` and `body`, web-form rows a `message`, chat rows the transcript's `turns`
(each with `speaker` and `text`). Every record keeps id, channel and queue and gains `text`."""

import json

CHANNELS = ("email", "web", "chat")


def email_text(row):
    return f"subject {row['subject'].strip()}\n{row['body'].strip()}"


def web_text(row):
    return row["message"].strip()


def exchanges(turns):
    """(prompt, reply) pairs of a chat transcript, in order; a trailing unanswered turn is left out."""
    texts = iter(t["text"].strip() for t in turns)
    return list(zip(texts, texts))


def chat_text(row):
    """The customer's side of a chat: the replies to the bot's prompts, one per line."""
    return "\n".join(reply for _, reply in exchanges(row["turns"]) if reply)


TEXT_OF = {"email": email_text, "web": web_text, "chat": chat_text}


def parse_ticket(row):
    channel = row.get("channel", "")
    if channel not in TEXT_OF:
        raise ValueError(f"ticket {row.get('id')}: unknown channel {channel!r}")
    return {"id": row["id"], "channel": channel, "queue": row.get("queue"), "text": TEXT_OF[channel](row)}


def read_export(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(parse_ticket(json.loads(line)))
    return rows
