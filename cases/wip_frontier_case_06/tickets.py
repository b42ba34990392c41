"""Rows of the helpdesk's JSON-lines export to ticket records with one text each, whatever the channel.

Email rows carry `subject` and `body`, web-form rows a `message`, chat rows the transcript's `turns`
(each with `speaker` and `text`). Every record keeps id, channel and queue and gains `text`. Exports
without a `queue` (the raw helpdesk export) take it from the helpdesk's routing log (CSV: logged_at,
ticket_id, event, queue, actor)."""

import csv
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
    return {"id": row["id"], "channel": channel, "queue": row.get("queue"), "text": TEXT_OF[channel](row)}


# Queues renamed since the router went live (old name -> current name).
RENAMED = {"delivery": "shipping"}
ROUTING_EVENTS = ("routed", "reassigned")


def routed_queues(log_path):
    """ticket id -> the queue it ended up in, from the routing log."""
    queues = {}
    with open(log_path, newline="") as f:
        for rec in csv.DictReader(f):
            if rec["event"] not in ROUTING_EVENTS:
                continue
            queue = rec["queue"].strip().lower()
            queues[rec["ticket_id"].strip()] = RENAMED.get(queue, queue)
    return queues


def read_export(path, routing_log=None):
    queues = routed_queues(routing_log) if routing_log else {}
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                row = json.loads(line)
                if row.get("queue") is None and row.get("id") in queues:
                    row["queue"] = queues[row["id"]]
                rows.append(parse_ticket(row))
    return rows
