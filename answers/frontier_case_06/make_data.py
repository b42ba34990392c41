"""How cases/frontier_case_06/data/ was generated (python make_data.py CASE_DIR). MLDB-CANARY-frontier_case_06-211abad670f22b86

Synthetic helpdesk tickets for an 8-queue router. Each ticket's text is filler words plus a few keywords of
its queue; the three rare queues (privacy_request, accessibility, fraud_report, about 3% each) have their
own large keyword pools, so each of their keywords is a rare token (seen 5-25 times in training). 15% of
common-queue tickets carry one keyword of another common queue. Channels: email and web tickets are the
customer's message alone (10-45 tokens); chat tickets (about 16%) are a chatbot transcript whose greeting,
menu and small talk (45-80 tokens, the same for every queue) come first and the customer's message last,
so with the router's 64-token inputs the head of a chat transcript holds no trace of its queue.
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
    "[bot] hi there i am sam the virtual assistant",
    "[bot] hello and welcome to support i am sam your virtual assistant",
    "[bot] good day you are chatting with sam the support assistant",
]
BOT_MENU = [
    "[bot] i can check a payment invoice or charge track a delivery parcel or reset a login password",
    "[bot] popular topics invoice and payment questions delivery tracking login and password help",
    "[bot] ask me about a charge or invoice a parcel delivery or a locked login",
]
SMALL_TALK = [
    "[customer] hi", "[customer] hello", "[customer] are you a real person",
    "[bot] i am a virtual assistant but i can pass you to an agent",
    "[customer] agent please", "[bot] sure i will connect you shortly",
    "[bot] while you wait could you tell me your order number if you have one",
    "[customer] i dont have it here", "[bot] no problem",
    "[bot] all our agents are busy right now please stay in the chat",
    "[customer] ok", "[bot] thanks for waiting",
    "[bot] please describe your issue in a few words",
]


def message(rng, queue, fill=(8, 30)):
    words = QUEUES[queue][1].split()
    rare = queue not in COMMON
    k = rng.randint(1, 2) if rare else rng.randint(2, 3)
    toks = rng.sample(words, k)
    if not rare and rng.random() < 0.15:
        other = rng.choice([q for q in COMMON if q != queue])
        toks.append(rng.choice(QUEUES[other][1].split()))
    toks += [rng.choice(FILLER) for _ in range(rng.randint(*fill))]
    rng.shuffle(toks)
    return " ".join(toks)


def chat_text(rng, queue):
    lines = [rng.choice(BOT_GREET), rng.choice(BOT_MENU)]
    talk = rng.sample(SMALL_TALK[:-1], rng.randint(0, 2))
    if rng.random() < 0.4:
        talk.insert(0, "[customer] " + " ".join(rng.sample(QUEUES[queue][1].split(), 1) + [rng.choice(FILLER)]))
    lines += talk
    msg = message(rng, queue, fill=(3, 12)).split()
    while True:
        text = "\n".join(lines + ["[customer] " + " ".join(msg)])
        if len(text.split()) <= 46 or len(lines) <= 2:
            break
        lines.pop(2)
    return text


def ticket(rng, i):
    names = list(QUEUES)
    queue = rng.choices(names, weights=[QUEUES[q][0] for q in names])[0]
    channel = rng.choices(["email", "web", "chat"], weights=[0.50, 0.34, 0.16])[0]
    if channel == "chat":
        text = chat_text(rng, queue)
    else:
        msg = message(rng, queue)
        text = "subject " + " ".join(msg.split()[:4]) + "\n" + msg if channel == "email" else msg
    return {"id": f"T{i:05d}", "channel": channel, "queue": queue, "text": text}


def all_tickets():
    """4,200 tickets; 3% of email and web tickets are followed by a re-sent copy (the same text under a new
    id), as the helpdesk export has them."""
    rng = random.Random(20261205)
    rows = []
    for i in range(4200):
        t = ticket(rng, i)
        rows.append(t)
        if t["channel"] != "chat" and rng.random() < 0.03:
            again = dict(t, id=t["id"] + "r")
            rows.append(again)
    return rows


def split_index():
    rows = all_tickets()
    return next(k for k, r in enumerate(rows) if r["id"] == "T03000")


def val_tickets():
    return all_tickets()[split_index():]


def main(case_dir):
    rows, k = all_tickets(), split_index()
    out = Path(case_dir) / "data"
    out.mkdir(exist_ok=True)
    for name, part in (("train", rows[:k]), ("val", rows[k:])):
        with open(out / f"tickets_{name}.jsonl", "w") as f:
            for r in part:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
