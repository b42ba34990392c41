"""frontier_case_04, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_04-7f1404a1a0ea4438

Calls the agent's code only through config.load_config("configs/spring26.toml", [train.seed=s]) and
train.run(cfg), the README's `python train.py`. A global forward pre-hook finds the model at its first
training forward and records its next training call (a packed batch of 16 rows of 64 tokens, with whatever
layout arguments the agent's code passes); after training, the trained model is run on that batch as
recorded and with every syllable token before each row's last bird token replaced by another syllable, and
the largest output change from that bird token on is recorded (families/packed_document_mask.py).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.packed_document_mask import run_probed  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/spring26.toml"  # train.py's default --config
# Token ids of the case's vocabulary (vocab.Vocab over the exports): 12 syllables are 1..12, the 10 birds'
# tokens 13..22 (each bout starts with its bird's token), the two song contexts 23..24.
PROBE = {"content_ids": (1, 12), "start_ids": (13, 22)}


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    run_probed(rec, seed, require(config, "load_config"), require(train, "run"), CONFIG, PROBE)


measure_main(measure)
