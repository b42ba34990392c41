"""Write a trained run to `train.out_dir`: config, weights, scalers and the held-out report."""

import json
from pathlib import Path

import torch


def save_run(cfg, model, input_scaler, target_scaler, report):
    out = Path(cfg.train.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(cfg.dumps())
    torch.save(model.state_dict(), out / "model.pt")
    (out / "scalers.json").write_text(json.dumps({"input": input_scaler.state(),
                                                  "target": target_scaler.state()}, indent=2))
    (out / "report.json").write_text(json.dumps(report, indent=2))
    return out


def load_report(out_dir):
    return json.loads((Path(out_dir) / "report.json").read_text())
