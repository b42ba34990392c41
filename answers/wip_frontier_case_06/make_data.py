"""How cases/frontier_case_06/data/ was generated (python make_data.py CASE_DIR). MLDB-CANARY-frontier_case_06-211abad670f22b86

Synthetic helpdesk tickets for an 8-queue router, written as the helpdesk exports them. Each ticket's
message is filler words plus a few keywords of its queue; the three rare queues (privacy_request,
accessibility, fraud_report, about 3% each) have their own large keyword pools, so each of their keywords is
a rare token. 15% of common-queue tickets carry one keyword of another common queue. Channels: email rows
(50%) carry `subject` (the message's first four words) and `body`; web rows (34%) a `message`; chat rows
(16%) a transcript of alternating `turns`, each with `speaker` and `text`. 65% of chats open with the bot's
greeting and menu (billing, delivery and login words), 35% with the customer's own first line ("hi",
"hello is anyone there", ...), after which the bot greets. The customer's request (3-12 filler words plus
its keywords) is followed by the bot's answer: "i found help articles about <one of the request's keywords>"
for 85% of common-queue chats, otherwise a hand-off to an agent. Half the chats end with a customer closer
and the bot's "anything else". No re-sent rows (iteration 2's re-sends are gone with its layer B).
"""

import json
import random
import sys
from pathlib import Path

QUEUES = {
    "account_access": (0.25, "login password reset locked sign account username verification code two-factor email-change"),
    "billing": (0.22, "invoice charge charged refund-status payment card subscription renewal receipt vat plan"),
    "shipping": (0.20, "delivery courier tracking parcel shipped arrived delayed address dispatch package"),
    "returns": (0.14, "return exchange label damaged wrong-size faulty rma swap send-back broken"),
    "technical": (0.10, "app crash error loading sync update firmware bluetooth freezes install"),
    "privacy_request": (0.03, "gdpr erase erasure personal-data data-export consent delete-my-data dpo "
                        "data-subject ccpa retention opt-out tracking-cookies profile-data"),
    "accessibility": (0.03, "screen-reader braille captions contrast wheelchair hearing-loop magnifier "
                      "dyslexia large-print keyboard-only voiceover sign-language"),
    "fraud_report": (0.03, "phishing scam unauthorised stolen hacked fraudulent chargeback impersonation "
                     "suspicious-transaction skimmed identity-theft fake-seller"),
}
FILLER = ("i my the a is it not and please thanks hi hello can you help with this that since yesterday "
          "today order again still need to for on was have been week urgent asap regarding about "
          "already twice customer number ref hey team just want know what happened").split()
COMMON = ["account_access", "billing", "shipping", "returns", "technical"]
BOT_GREET = [
    "hi there i am sam the virtual assistant",
    "hello and welcome to support i am sam your virtual assistant",
    "good day you are chatting with sam the support assistant",
]
BOT_MENU = [
    "i can check a payment invoice or charge track a delivery parcel or reset a login password",
    "popular topics invoice and payment questions delivery tracking login and password help",
    "ask me about a charge or invoice a parcel delivery or a locked login",
]
BOT_PROMPT = [
    "please describe your issue in a few words",
    "i am a virtual assistant but i can pass you to an agent",
    "could you tell me a bit more",
    "no problem what can i do for you",
]
BOT_HANDOFF = [
    "thanks an agent will join this chat shortly",
    "let me pass you to an agent who can help",
    "all our agents are busy right now please stay in the chat",
]
BOT_CLOSE = ["anything else i can help with", "is there anything else", "glad i could help anything else today"]
OPENERS = ["hi", "hello", "hello is anyone there", "hi i need help", "are you a real person", "hey", "agent please"]
T0 = 1751328000  # 2025-07-01 00:00 UTC, the quarter's start

CLOSERS = ["ok thanks", "no that is all", "thanks", "ok", "no thanks bye"]

# Numbers. Most tickets quote the ticket, order or account number (5-8 digits) and billing and returns tickets
# often an amount; a share of login and app tickets are error reports that share their words (no code, no
# queue keyword). Each drawn from a stream of its own (Random(f"num-{i}"), Random(f"code-{i}")).
ID_WORDS = [("order", 7), ("order", 8), ("ref", 6), ("ticket", 6), ("account", 8), ("customer", 7), ("invoice", 7)]
CODE_SHARE = {"account_access": 0.08, "technical": 0.24}


ERROR_TEMPLATES = [
    "it keeps failing with an error", "error message on the screen again", "the page says failed",
    "getting an error popup", "it shows an error and stops", "failed again with the same message",
    "the screen says error", "popup keeps saying failed", "keeps getting error message since yesterday",
    "page shows failed please help", "error again today", "it says something went wrong",
]


def error_report(i, queue):
    """A login or app error report: one of the short phrasings both queues' customers write, with a greeting
    or a closing word at times; no keyword of the queue. The two queues' reports are drawn alike."""
    r = random.Random(f"code-{i}-text")
    words = r.choice(ERROR_TEMPLATES).split()
    if r.random() < 0.4:
        words = [r.choice(["hi", "hello", "hey"])] + words
    if r.random() < 0.3:
        words += [r.choice(["thanks", "please", "asap", "urgent"])]
    return " ".join(words)


def is_error_report(i, queue):
    return queue in CODE_SHARE and random.Random(f"code-{i}").random() < CODE_SHARE[queue]


def with_numbers(i, queue, msg):
    """The ticket, order or account number most customers quote (60%), and an amount on 35% of billing and
    returns tickets, each inserted at a random place of the message."""
    r = random.Random(f"num-{i}")
    words = msg.split()
    if r.random() < 0.60:
        word, digits = r.choice(ID_WORDS)
        k = r.randint(0, len(words))
        words[k:k] = [word, str(r.randint(10 ** (digits - 1), 10 ** digits - 1))]
    if queue in ("billing", "returns") and r.random() < 0.35:
        k = r.randint(0, len(words))
        words[k:k] = [f"{r.randint(4, 180)}.{r.choice(['00', '50', '99', '95', '49'])}"]
    if r.random() < 0.10:
        k = r.randint(0, len(words))
        words[k:k] = ["ref", str(r.randint(100000, 999999))]
    return " ".join(words)


def message(rng, queue, fill=(8, 30)):
    words = QUEUES[queue][1].split()
    rare = queue not in COMMON
    k = rng.randint(1, 2) if rare else rng.randint(2, 3)
    toks = rng.sample(words, k)
    lo, hi = fill
    if not rare and rng.random() < 0.15:
        other = rng.choice([q for q in COMMON if q != queue])
        if other == "shipping":
            # a ticket about something else that also talks at length about the order's delivery,
            # and the customer writes more (two matters in one ticket)
            toks = toks[:2] + rng.sample(QUEUES[other][1].split(), 3)
            lo, hi = lo + 20, lo + 30
        else:
            toks.append(rng.choice(QUEUES[other][1].split()))
    toks += [rng.choice(FILLER) for _ in range(rng.randint(lo, hi))]
    rng.shuffle(toks)
    return " ".join(toks)


def bot_echo(rng, queue, msg):
    """The bot's answer to the request: help articles on one of its words (the bot's FAQ covers the five
    common queues), else a hand-off to an agent."""
    own = [w for w in msg if w in QUEUES[queue][1].split()]
    if queue in COMMON and own and rng.random() < 0.85:
        return "i found help articles about " + rng.choice(own) + " " + rng.choice(["for you", "here", "that may help"])
    return rng.choice(BOT_HANDOFF)


def chat_turns(rng, queue, i=None):
    """A chat transcript as the helpdesk exports it: alternating turns with their speaker. Most chats open
    with the bot's greeting and menu (the web widget); about a third (sessions started from the app) open with
    the customer's own first line, and the bot greets after it."""
    msg = message(rng, queue, fill=(3, 12))
    if i is not None:
        msg = error_report(i, queue) if is_error_report(i, queue) else with_numbers(i, queue, msg)
    msg = msg.split()
    menu = rng.choice(BOT_GREET) + " " + rng.choice(BOT_MENU)
    if rng.random() < 0.35:
        turns = [("customer", rng.choice(OPENERS)), ("bot", menu), ("customer", " ".join(msg)),
                 ("bot", bot_echo(rng, queue, msg))]
    else:
        turns = [("bot", menu)]
        if rng.random() < 0.6:
            if rng.random() < 0.4:
                first = " ".join(rng.sample(QUEUES[queue][1].split(), 1) + [rng.choice(FILLER)])
            else:
                first = rng.choice(OPENERS)
            turns += [("customer", first), ("bot", rng.choice(BOT_PROMPT))]
        turns += [("customer", " ".join(msg)), ("bot", bot_echo(rng, queue, msg))]
    if rng.random() < 0.5:
        turns += [("customer", rng.choice(CLOSERS)), ("bot", rng.choice(BOT_CLOSE))]
    return [{"speaker": s, "text": t} for s, t in turns]


# Activity counters (round 10). Every ticket carries the customer's lifetime counters from the account system
# (web visits, app sessions, orders, support contacts). Their total is mostly the account's age (3 days to over
# ten years) times a usage rate, so it spans about four orders of magnitude; the mix is the customer's own
# (a Dirichlet draw around the queue's mix; login and app customers share one mix). Login tickets come mostly
# from young accounts (set-up, verification, email changes), app tickets from established ones: the pair
# differs in the total's level, not in the mix. Drawn from a stream of its own (Random(f"act-{i}")).
COUNTERS = ["web_visits", "app_sessions", "orders", "contacts"]
MIX = {"billing": [0.36, 0.32, 0.21, 0.11], "shipping": [0.36, 0.30, 0.24, 0.10],
       "returns": [0.34, 0.30, 0.22, 0.14]}
MIX_DEFAULT = [0.40, 0.36, 0.15, 0.09]
AGE_LOG10 = {"account_access": (1.5, 0.45), "technical": (3.0, 0.45)}


def activity(i, queue):
    r = random.Random(f"act-{i}")
    if queue in AGE_LOG10:
        mu, sd = AGE_LOG10[queue]
        age = min(3.65, max(0.45, r.gauss(mu, sd)))
    else:
        age = r.uniform(0.45, 3.65)
    total = 10 ** (age + r.gauss(0.6, 0.2))
    base = MIX.get(queue, MIX_DEFAULT)
    g = [r.gammavariate(40 * b, 1.0) for b in base]
    mix = [x / sum(g) for x in g]
    return {c: max(0, round(total * m + r.gauss(0, (total * m) ** 0.5))) for c, m in zip(COUNTERS, mix)}


def ticket(rng, i):
    names = list(QUEUES)
    queue = rng.choices(names, weights=[QUEUES[q][0] for q in names])[0]
    channel = rng.choices(["email", "web", "chat"], weights=[0.50, 0.34, 0.16])[0]
    row = {"id": f"T{i:05d}", "created_at": T0 + i * 1850 + rng.randint(0, 1700), "channel": channel, "queue": queue,
           "activity": activity(i, queue)}
    if channel == "chat":
        row["turns"] = chat_turns(rng, queue, i)
    elif channel == "email":
        msg = message(rng, queue)
        msg = error_report(i, queue) if is_error_report(i, queue) else with_numbers(i, queue, msg)
        row["subject"], row["body"] = " ".join(msg.split()[:4]), msg
    else:
        msg = message(rng, queue)
        row["message"] = error_report(i, queue) if is_error_report(i, queue) else with_numbers(i, queue, msg)
    return row


def all_tickets():
    """4,200 tickets in export order; the first 3,000 are the training export."""
    rng = random.Random(20261205)
    return [ticket(rng, i) for i in range(4200)]


def split_index():
    rows = all_tickets()
    return next(k for k, r in enumerate(rows) if r["id"] == "T03000")


def val_tickets():
    return all_tickets()[split_index():]


def customer_words(row):
    """The words the customer wrote: subject + body, the web message, or the chat's customer turns."""
    if row["channel"] == "email":
        text = row["subject"] + " " + row["body"]
    elif row["channel"] == "web":
        text = row["message"]
    else:
        text = " ".join(t["text"] for t in row["turns"] if t["speaker"] == "customer")
    return text.split()


SHIPPING_WORDS = set(QUEUES["shipping"][1].split())


def rules_queue(row):
    """The old keyword rules: any delivery word sends a ticket to shipping (checked first), otherwise the
    queue with the most keyword hits. Wrong exactly for the other queues' tickets that mention a delivery
    word (the cross-keyword tickets whose extra word is shipping's)."""
    words = customer_words(row)
    if SHIPPING_WORDS & set(words):
        return "shipping"
    hits = {q: sum(w in QUEUES[q][1].split() for w in words) for q in QUEUES}
    return max(hits, key=hits.get)




PAIR = ("account_access", "technical")


def reroutes(rows):
    """The support leads' re-routing log: tickets first sent to one queue and moved to the queue they were
    resolved in. The error reports of the login and app queues are moved most (35%), then other login and app
    tickets (4%), then any common-queue ticket (1.5%) from another common queue."""
    out = []
    for i, row in enumerate(rows):
        q = row["queue"]
        r = random.Random(f"rr-{i}")
        if q in PAIR and is_error_report(i, q):
            p = 0.35
        elif q in PAIR:
            p = 0.04
        elif q in COMMON:
            p = 0.015
        else:
            p = 0.0
        if r.random() < p:
            first = PAIR[1 - PAIR.index(q)] if q in PAIR and r.random() < 0.9 else r.choice([c for c in COMMON if c != q])
            out.append((row["id"], first, q, row["created_at"] + r.randint(600, 30000)))
    return out


def main(case_dir):
    rows, k = all_tickets(), split_index()
    out = Path(case_dir) / "data"
    out.mkdir(exist_ok=True)
    with open(out / "tickets_train.jsonl", "w") as f:
        for r in rows[:k]:
            f.write(json.dumps(r) + "\n")
    with open(out / "tickets_val.jsonl", "w") as f:
        for r in rows[k:]:
            f.write(json.dumps(r) + "\n")
    with open(out / "reroutes.csv", "w") as f:
        f.write("ticket_id,first_queue,resolved_queue,moved_at\n")
        for t in reroutes(rows):
            f.write(",".join(map(str, t)) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
