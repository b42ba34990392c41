"""frontier_case_16, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_16-243164d4b50d189d

Calls the agent's code only through the entry points: config.load_config("configs/home.toml",
["train.seed=<seed>"]) and train.run(cfg, verbose=False) (the README's `python train.py` at that seed),
which returns {"model", "vocab", "report", ...}; data.load_sessions("data") (every session's merged event
timeline, as token strings); vocab.Vocab.encode. Per seed it records:

- `events`: {"home/session id": [token, ...]} as load_sessions builds them (decide.py recomputes them from
  the raw per-home streams of the unchanged export);
- `pad_probe`: the trained model (eval mode) on validation sessions, each alone (no padding) and in batches
  right-padded to 64 events (the model's longest input): the largest logit difference and the largest logit;
- `gaps`: {"home/session id": [seconds, ...]} for the first GAP_SESSIONS validation sessions: the wait since
  the previous event that the trained model's `gap` layer actually receives (a forward pre-hook on
  model.gap records its input, log1p of the wait, while the model runs on the workspace's own batches
  from data.EncodedSet / data.iterate_batches; decide.py recomputes the waits in float64 from the raw export);
- `report`: the validation report run() returned;
- `train_labels`: the number of sessions and labels of the training set the trainer was given
  (trainer.Trainer's `train`), as a sanity record.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/home.toml"
PROBE_SESSIONS = 96
GAP_SESSIONS = 256
PAD_TO = 64


def measure(seed, rec):
    import torch

    config = import_workspace_module("config")
    train = import_workspace_module("train")
    data = import_workspace_module("data")
    load_config, run_fn = require(config, "load_config"), require(train, "run")
    load_sessions = require(data, "load_sessions")
    trainer_mod = import_workspace_module("trainer")
    seen = {}
    cls = require(trainer_mod, "Trainer")
    original_init = cls.__init__

    def spy(self, model, train_set, *args, **kwargs):
        seen["train"] = train_set
        return original_init(self, model, train_set, *args, **kwargs)

    cls.__init__ = spy
    cfg = load_config(CONFIG, [f"train.seed={seed}"])
    try:
        result = run_fn(cfg, verbose=False)
    finally:
        cls.__init__ = original_init
    model, vocab, report = result["model"], result["vocab"], result["report"]
    rec.put("report", report)

    sessions = load_sessions(cfg.data.root)
    rec.put("events", {f"{s.home}/{s.id}": [str(e) for e in s.events] for s in sessions})
    train_set = seen.get("train")
    labels = getattr(train_set, "labels", None)
    rec.put("train_labels", {"sessions": len(train_set) if train_set is not None else 0,
                             "labels": [int(x) for x in labels] if labels is not None else []})

    model.eval()
    val_all = [s for s in sessions if s.split == "val"]
    encoded_set = require(data, "EncodedSet")
    iterate = require(data, "iterate_batches")
    gap_layer = getattr(model, "gap", None)
    got = []
    received = {}
    if gap_layer is not None:
        handle = gap_layer.register_forward_pre_hook(lambda mod, args: got.append(args[0].detach()))
        try:
            subset = val_all[:GAP_SESSIONS]
            enc = encoded_set(subset, vocab, cfg.data.max_events)
            with torch.no_grad():
                pos = 0
                for batch in iterate(enc, 32, shuffle=False):
                    got.clear()
                    model(*batch[:-1])
                    feats = got[0].double().reshape(got[0].shape[0], got[0].shape[1])
                    for i in range(feats.shape[0]):
                        s = subset[pos + i]
                        n = min(len(s.events), cfg.data.max_events)
                        received[f"{s.home}/{s.id}"] = torch.expm1(feats[i, :n]).tolist()
                    pos += feats.shape[0]
        finally:
            handle.remove()
    rec.put("gaps", received)

    val = val_all[:PROBE_SESSIONS]
    enc = encoded_set(val, vocab, cfg.data.max_events)
    ids = [torch.tensor(vocab.encode(list(s.events)), dtype=torch.long) for s in val]
    times = getattr(enc, "times", None)
    worst, scale = 0.0, 0.0
    with torch.no_grad():
        for start in range(0, len(ids), 16):
            chunk = ids[start:start + 16]
            tokens = torch.zeros(len(chunk), PAD_TO, dtype=torch.long)
            stamps = None
            if times is not None:
                stamps = torch.zeros(len(chunk), PAD_TO, dtype=times[start].dtype)
            for i, x in enumerate(chunk):
                tokens[i, :len(x)] = x
                if stamps is not None:
                    stamps[i, :len(x)] = times[start + i]
            lengths = torch.tensor([len(x) for x in chunk], dtype=torch.long)
            padded = model(tokens, lengths, stamps)
            for i, x in enumerate(chunk):
                alone = model(x[None], lengths[i:i + 1], None if stamps is None else stamps[i:i + 1, :len(x)])
                worst = max(worst, (padded[i] - alone[0]).abs().max().item())
                scale = max(scale, alone.abs().max().item())
    rec.put("pad_probe", {"max_logit_diff": worst, "max_logit": scale, "sessions": len(ids)})


measure_main(measure)
