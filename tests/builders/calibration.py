"""The balanced calibration set: real runs of the built-in agent, labelled by hand.

Each item is a real sample: the built-in LLM agent (``harness.agents.llm``) driven by a scripted
model over the loopback server, on a fresh workspace of a real case, running real commands
(training runs, probes, greps, edits) in the plain sandbox, with the harness's own system and task
prompts. What varies is how the scripted agent goes wrong, the ways agents really fail:

  careful          reproduce, run a discriminating probe, localize, fix, report (all pass)
  paraphrase       the same, reported in other words than the key's
  wrong_cause      commit to a near-miss and apply a naive over-fix
  no_test          read the code, fix, report the right cause: no test ever separates the competitors
  fix_first        guess and fix first, then probe the fixed code: a test after the fix, an edit before localizing
  trial_and_error  try a wrong edit, revert it, then probe, localize and fix: edited before localizing
  instrument_first add a print, run it, then localize and fix (a print is not a behaviour change)
  hedged           run the probe, then report a list of possible causes
  abandoned        run the probe, then argue the right cause away and commit to a near-miss
  no_report        investigate well but run out of steps: the last message is the final word

Every label comes with a short reason (``LabeledItem.reasons``). ``AGREEING`` (written beside the
set) holds, per item, the replies of a judge that agrees with the labels, citing real events; the
code's own checks (quotes, final statements, executed calls, edit order) must turn them into exactly
the labels, which the tests check. Regenerate (about 15 minutes of training on 2 cores) with
``python -m tests.builders.calibration [--jobs 2] [ITEM_ID ...]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from harness.agents.base import AgentTask, Limits, Toolbox
from harness.agents.llm import make_llm_agent
from harness.core.cases import load_record
from harness.core.prompts import render_system, render_task
from harness.core.transcript import TranscriptWriter
from harness.isolation.sandbox import PlainSandbox
from harness.models import AnswerKey, CaseManifest, ReferencePlan
from harness.workspaces.workspace import create_workspace, remove_workspace
from judges.hunks import list_hunks
from judges.key import judge_key
from judges.labeled import LabeledItem, read_labeled_set, write_labeled_set
from tests.builders.llm_helpers import turn
from tests.fakes.llm_server import ScriptedLLMServer

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "tests" / "fixtures" / "calibration"
FIXTURE = FOLDER / "calibration.jsonl"
AGREEING = FOLDER / "agreeing_judge.json"
RATER = "hand"
AGENT = "openai:scripted-agent"


# --- what each case needs: commands, edits, and the agent's words -------------------------------------


@dataclass
class Kit:
    case: str
    run: str  # reproduce
    look: str  # a read/grep that shows the buggy code
    read_said: str  # what the agent concludes from reading alone
    probe_said: str  # why it runs the probe
    look_said: str  # what it concludes after the probe and the look
    right: dict  # the report with the right cause
    wrong_said: str
    wrong: dict  # a near-miss report
    hedge: dict  # a hedged report
    wrong_patch: str = ""  # an over-fix from the answer folder, applied with patch(1) ...
    wrong_cmd: str = ""  # ... or a shell edit doing the wrong thing
    undo_cmd: str = ""  # reverts wrong_cmd
    guess_said: str = ""  # fix_first: the guess before any look
    abandon_said: str = ""  # abandoned: arguing the right cause away after the probe
    abandoned: dict = field(default_factory=dict)
    abandon_cmd: str = ""  # the abandoned variant's edit: "none", "patch:NAME", a command, or "" (the wrong edit)
    trial_said: str = ""  # trial_and_error: why the wrong_cmd (default: wrong_said)
    para: dict = field(default_factory=dict)  # the right cause in other words
    instrument: tuple[str, str, str] | None = None  # (path, old, new) of a print edit
    instrument_run: str = ""
    probe_step: int = 1  # which reference step is the discriminating probe


def report(root_cause: str, location: str = "", fix: str = "", evidence: str = "") -> dict:
    return {"root_cause": root_cause, "location": location, "fix": fix, "evidence": evidence}


KITS = {k.case: k for k in [
    Kit("case_01", run="python train.py", look="grep -n 'softmax' model.py train.py",
        read_said="Reading model.py: forward ends with `return logits.softmax(dim=-1)` (model.py:19) and train.py:52 "
                  "passes that output to nn.CrossEntropyLoss, which applies log_softmax itself. The loss sees "
                  "probabilities squashed a second time.",
        probe_said="Loss and entropy sit at ln(10) and the head gradient is small. Before touching hyperparameters I "
                   "want to see which tensor reaches the loss and compare the head gradient through the raw head "
                   "scores with the current path on one batch.",
        look_said="The rows handed to CrossEntropyLoss are non-negative and sum to one, and the raw-score path gives "
                  "a far larger head gradient. model.py:19 returns logits.softmax(dim=-1), and train.py:52 feeds that "
                  "to nn.CrossEntropyLoss, which log-softmaxes its input again.",
        right=report("Classifier.forward (model.py:19) ends with a softmax, so nn.CrossEntropyLoss in train.py receives "
                     "probabilities and applies its own log_softmax on top. The twice-normalised scores are close to "
                     "uniform, which pins the loss near ln(10) and shrinks the head gradient about tenfold.",
                     "model.py:19; train.py:52", "forward returns the raw logits; the exporter keeps its own softmax",
                     "rows entering the loss sum to 1; head gradient through the raw scores is ~10x the current one"),
        wrong_said="The loss does go down, just very slowly, and the head gradient is small: SGD at lr 0.05 is too "
                   "timid for this network. I'll raise the learning rate.",
        wrong=report("The SGD learning rate of 0.05 is too low, so each update is tiny and the loss barely moves in "
                     "500 steps.", "train.py:25", "raised lr to 2.0", "loss falls faster with a larger lr"),
        hedge=report("Several things could produce this plateau: (a) a learning rate too small for SGD, (b) vanishing "
                     "gradients from the initialization, (c) CrossEntropyLoss receiving probabilities rather than "
                     "logits, or (d) noisy labels. More experiments are needed to tell which.",
                     "train.py:25; model.py:19", "none yet"),
        wrong_patch="overfix_raise_lr.patch",
        guess_said="This kind of plateau usually means the loss is fed normalised outputs. I'll make the model return "
                   "raw scores and check afterwards.",
        instrument=("train.py", "        loss = criterion(out, yb)\n",
                    "        loss = criterion(out, yb)\n        if step == 0:\n            print('loss input row sums', "
                    "out.sum(-1)[:4].tolist(), 'min', out.min().item())\n"),
        instrument_run="python train.py --steps=0"),
    Kit("case_02", run="python train.py", look="sed -n 52,66p data.py",
        read_said="In data.py collate, line 63 sets `pad = attention_mask.bool()`, but attention_mask is 1 on real "
                  "tokens, so `pad | (reply_mask == 0)` is true everywhere and line 64 turns every label into -100.",
        probe_said="A loss of exactly 0 with a zero gradient fits 'nothing is supervised', but also an optimizer that "
                   "never steps, frozen weights or a detached loss. Counting the labels that survive collation in a "
                   "real batch separates these.",
        look_said="Not one label survives collation although the template marks reply tokens, and the model is "
                  "trainable with the loss attached. In data.py collate, line 63 sets pad = attention_mask.bool(), "
                  "which is True on the real tokens, so line 64 masks every position with -100.",
        right=report("data.collate treats attention_mask (1 on real tokens) as if it marked padding: `pad = "
                     "attention_mask.bool()` is true on every real token, so masked_fill sets all labels, reply tokens "
                     "included, to -100. lm_loss divides the zero sum by the clamped count 1 and returns exactly 0 "
                     "with zero gradients.", "data.py:63-64", "pad = attention_mask == 0",
                     "0 labels != -100 in a real batch with hundreds of reply tokens"),
        wrong_said="Loss 0.0 and grad norm 0 from the very first step: the reply mask apparently marks nothing, so "
                   "nothing is trained. I'll supervise every non-padding token instead.",
        wrong=report("The chat template's reply_mask marks no assistant tokens, so there is nothing to learn from; "
                     "training on all non-padding tokens fixes it.", "data.py:64", "labels masked only on padding"),
        hedge=report("Possible causes: the optimizer is not stepping, the parameters are frozen, the labels are all "
                     "masked, or the loss is detached. Each would give a zero gradient."),
        wrong_patch="overfix_train_all_tokens.patch",
        guess_said="Zero loss usually means every label is ignored. Let me flip the padding test in collate and see.",
        wrong_cmd="sed -i 's/lr: float = 3e-3/lr: float = 3e-2/' train.py",
        undo_cmd="sed -i 's/lr: float = 3e-2/lr: float = 3e-3/' train.py",
        trial_said="Nothing moves at all; maybe the steps are too small to register. Trying a ten times larger "
                   "learning rate."),
    Kit("case_03", run="python train.py", look="sed -n 63,72p train.py",
        read_said="refresh_bank (train.py:65-71) embeds `subset.dataset`, which for a random_split Subset is the whole "
                  "GlyphSet: the validation images and their labels go into the memory bank.",
        probe_said="Perfect validation accuracy from an untrained encoder while the training loss is at chance. A "
                   "label-permutation test at step 0 tells an easy task or a broken metric apart from labels reaching "
                   "the predictions.",
        look_said="With every label shuffled at the source, validation accuracy still follows the shuffled labels, so "
                  "validation labels reach the prediction. refresh_bank in train.py (lines 65-71) embeds "
                  "subset.dataset, the whole GlyphSet behind the Subset, validation rows included.",
        right=report("refresh_bank builds the memory bank from `subset.dataset`, the whole GlyphSet behind the "
                     "random_split Subset, so validation rows and their labels sit in the bank. Each validation image "
                     "matches its own labelled copy and the nearest-neighbour vote returns its own label: split "
                     "contamination, not an easy task.", "train.py:65-71", "index the images and labels with "
                     "subset.indices", "shuffled labels are still predicted at step 0"),
        para=report("refresh_bank looks up `subset.dataset`, which is the complete GlyphSet underneath the random_split "
                    "Subset, so the nearest-neighbour memory holds the held-out images together with their answers. "
                    "Each held-out image meets an identical stored copy and reads back its own answer, which is why it "
                    "scores perfectly before any training while the training rows, which skip their own id, stay at "
                    "chance.", "train.py:65-71", "build the memory from the training indices only"),
        wrong_said="Validation at 100% with a temperature of 0.04 looks like an overconfident soft vote; raising tau "
                   "should give honest numbers.",
        wrong=report("The temperature tau = 0.04 is too low, which makes the nearest-neighbour vote overconfident and "
                     "the validation numbers unrealistically good.", "train.py:26", "tau = 1.0"),
        hedge=report("It is either an easy task, a metric bug, or some leakage between splits."),
        wrong_patch="overfix_raise_tau.patch",
        guess_said="Perfect validation from step 0 smells like the bank holding validation rows; let me build it from "
                   "the training indices only.",
        abandon_said="The shuffled-label result is odd, but the simpler explanation still holds: the glyphs are easy "
                     "and a random conv encoder already separates them. It is not leakage.",
        abandoned=report("The task is easy: a random encoder already separates the glyph classes, so 100% validation "
                         "accuracy is genuine. It is not a leak.", "", "no change"),
        abandon_cmd="none"),
    Kit("case_04", run="python train.py", look="sed -n 14,24p model.py",
        read_said="GestureNet.forward goes from (B, T, H) to the GRU's (T, B, H) with h.reshape(T, B, -1) on "
                  "model.py:19. A reshape keeps the memory order, so frames of different recordings end up in one "
                  "sequence; it should be a transpose.",
        probe_said="Predictions that depend on the batch could come from BatchNorm in train mode, padding leaking into "
                   "the pooling, dropout noise, or rows being mixed. In eval mode with no padding, the gradient of one "
                   "output row with respect to the other rows' inputs must be zero unless the forward pass mixes rows.",
        look_said="Other rows get gradient from output 2 in eval mode with no padding, so the forward pass mixes "
                  "recordings. model.py:19 converts (B, T, H) to (T, B, H) with h.reshape(T, B, -1): a reshape, not a "
                  "transpose.",
        right=report("GestureNet.forward converts (B, T, H) to the GRU's (T, B, H) layout with h.reshape(T, B, -1). A "
                     "reshape reinterprets memory instead of swapping axes, so each GRU sequence is stitched from "
                     "frames of different recordings; outputs depend on other rows, labels are paired with the wrong "
                     "frames and the loss stays at ln 4. At batch size 1 reshape and transpose coincide.",
                     "model.py:19", "h = h.transpose(0, 1)", "cross-row gradient is non-zero in eval mode"),
        wrong_said="The reshape is applied to a non-contiguous tensor, which scrambles the layout. Making it contiguous "
                   "before the view should fix it.",
        wrong=report("The reshape in GestureNet.forward acts on a non-contiguous tensor; calling .contiguous() before "
                     ".view() restores the memory layout.", "model.py:19", "h.contiguous().view(T, B, -1)"),
        hedge=report("The batch dependence may come from BatchNorm coupling the rows, from the padding mask leaking "
                     "into the pooling, or from the reshape before the GRU mixing batch and time; any of them could "
                     "explain the chance-level loss."),
        wrong_patch="overfix_contiguous_view.patch",
        abandon_said="The cross-row gradient could come from the reshape, but BatchNorm statistics are the usual "
                     "reason predictions depend on the batch; evaluating recordings one at a time avoids it.",
        abandoned=report("BatchNorm couples the examples of a batch, so predictions depend on their batch; evaluating "
                         "one recording at a time fixes it. The reshape is not the issue.", "train.py:44",
                         "evaluate one recording at a time"),
        abandon_cmd="patch:overfix_eval_one_at_a_time.patch"),
    Kit("case_05", run="python train.py", look="sed -n 13,24p monitor.py",
        read_said="monitor.update_ratios logs log10(std(lr * grad) / std(param)), the step plain SGD would take, but "
                  "train.py builds AdamW, whose step is normalised per coordinate and is about lr whatever the gradient "
                  "scale. The panel understates the update.",
        probe_said="The panel says the update ratio is tiny while the loss falls normally. Rather than trusting the "
                   "formula, I'll measure the real change of the parameters across optimizer.step() and compare it "
                   "with what the dashboard logged.",
        look_said="The measured updates are one and a half to two and a half orders of magnitude larger than logged, "
                  "and weight decay is far smaller than the step. monitor.py:23 computes the ratio from lr * p.grad.",
        right=report("The training is healthy; the dashboard is wrong. monitor.update_ratios logs log10(std(lr * grad) "
                     "/ std(param)), the step plain SGD would take, but the optimizer is AdamW, whose per-coordinate "
                     "normalised step is about lr whatever the gradient scale. The panel understates the real update "
                     "by one and a half to two and a half orders of magnitude.", "monitor.py:23",
                     "snapshot parameters before opt.step() and log the measured change"),
        wrong_said="An update ratio near -5 means the layers are barely learning: the learning rate is too low. "
                   "Raising it to 0.1.",
        wrong=report("The learning rate is too low: the update-to-weight ratio sits far below the healthy -3, so the "
                     "learning rate should be raised until it reads about -3.", "train.py:26", "lr = 0.1"),
        hedge=report("The low ratio could come from a learning rate that is too small, weight decay dominating the "
                     "step, gradient clipping shrinking the gradients, or the monitor's formula. I could not decide "
                     "between them."),
        wrong_patch="overfix_raise_lr.patch",
        abandon_said="The measured step is larger than the logged one, but the loss still falls slowly, so the "
                     "learning rate is what limits training; the monitor is fine.",
        abandoned=report("The learning rate is too low for this model; the monitor is not the problem. Raising the "
                         "learning rate brings the ratio toward -3.", "train.py:26", "lr = 0.1")),
    Kit("case_06", run="python train.py", look="grep -n 'def standardize' -A4 features.py; grep -n 'standardize(' "
                                              "train.py",
        read_said="features.standardize divides by the batch's own std with no guard (features.py:31-34); a column "
                  "that is constant within a batch has std 0 and gives 0/0 = NaN.",
        probe_said="Loss and gradient norm look healthy until the NaN, which always hits the first bldg-D batch. "
                   "Replaying the batch stream and checking finiteness after each stage (raw, encode, standardize, "
                   "model) shows where the first non-finite value appears, before any weight is involved.",
        look_said="Raw and encoded batches are finite; the first non-finite tensor is the output of standardize, in "
                  "the humidity column, whose batch std is exactly 0. features.py:31-34 divides by x.std(0) with no "
                  "guard, and bldg-D reports humidity 0.0 on every row.",
        right=report("features.standardize z-scores each batch with its own mean and std, and batches never mix "
                     "buildings. bldg-D's export has humidity_pct = 0.0 on every row, so that column's batch std is 0 "
                     "and (x - mean) / std is 0/0 = NaN on the first bldg-D batch; the NaN input makes the NLL "
                     "non-finite. The raw data, the loss and the learning rate are fine.", "features.py:31-34",
                     "map columns that are constant within the batch to 0"),
        wrong_said="NaN after a dozen healthy steps is the classic sign of a learning rate that is too high and "
                   "exploding gradients. Lowering it.",
        wrong=report("The learning rate is too high: gradients explode and the loss becomes NaN after a few steps.",
                     "train.py:23", "lr lowered to 1e-4"),
        hedge=report("NaN could come from a zero std in the features, a learning rate that is too high, or bad rows "
                     "in the bldg-D data."),
        wrong_cmd="sed -i 's/lr: float = 3e-3/lr: float = 1e-4/' train.py",
        undo_cmd="sed -i 's/lr: float = 1e-4/lr: float = 3e-3/' train.py"),
    Kit("case_07", run="python train.py", look="grep -n 'train(\\|eval()' engine.py train.py evaluate.py",
        read_said="engine.run_epoch starts with an unconditional model.train() (engine.py:7), which undoes the "
                  "model.eval() that train.py calls right before validating.",
        probe_said="The same checkpoint validates to different numbers. Candidates: randomness in the validation "
                   "loader, weights changing during validation, or stochastic layers still active. I'll check each: "
                   "loader batches on two passes, weights and BatchNorm buffers around validation, and model.training "
                   "inside the validation forwards.",
        look_said="Inside validation model.training is True although train.py calls model.eval() first; the loader "
                  "and the weights are stable but BatchNorm's running mean moves. engine.py:7 calls model.train() "
                  "unconditionally at the top of run_epoch, overriding the eval().",
        right=report("engine.run_epoch starts with an unconditional model.train(), which undoes the model.eval() "
                     "train.py calls before validating. Validation therefore runs with Dropout active and BatchNorm "
                     "using batch statistics and updating its running stats, so re-validating one checkpoint gives "
                     "different losses, disagrees with evaluate.py and changes the saved buffers.", "engine.py:7",
                     "model.train(opt is not None)"),
        wrong_said="Different numbers on every validation pass of the same weights: the random state is not fixed. "
                   "Seeding before validation makes it reproducible.",
        wrong=report("The random seed is not fixed before validation, so each pass draws different randomness; "
                     "seeding before validation makes the numbers reproducible.", "engine.py:5",
                     "torch.manual_seed(0) before validation"),
        hedge=report("The spread between validations could come from the loader shuffling, from dropout or BatchNorm "
                     "state, or from an unfixed seed; any of these would do it."),
        wrong_patch="overfix_reseed.patch",
        guess_said="Validation should run in eval mode; I'll make run_epoch choose the mode from whether an optimizer "
                   "is given, then check.",
        instrument=("train.py", "        va = run_epoch(model, val_loader)\n",
                    "        va = run_epoch(model, val_loader)\n        print(f\"epoch {epoch}: model.training after "
                    "validation = {model.training}\")\n"),
        instrument_run="python train.py"),
    Kit("case_08", run="python train.py", look="sed -n '57,62p;80,88p' dataprep.py",
        read_said="dataprep.fingerprint (dataprep.py:57-62) hashes the data file, the tokenizer config and max_len "
                  "only, and load_examples (80-85) returns the cached entry before it loads the template: a template "
                  "edit keeps the old key.",
        probe_said="The first training sample still shows the old '### System:' markers after the template edit. "
                   "Either the edit is not read, the tokenizer drops BOS, an old data file is read, or training gets "
                   "its tokens from elsewhere. Rendering the first conversation straight from the template and "
                   "comparing with what prepare_data returns, with and without an empty cache dir, separates them.",
        look_said="The template renders '<s><|system|>' but prepare_data returns the old rendering from cache/tok, and "
                  "an empty cache dir gives the new one under the same key. dataprep.py:57-62 computes the "
                  "fingerprint from the data file, tokenizer config and max_len only, and load_examples (80-85) "
                  "returns the cached entry before loading the template.",
        right=report("Training reuses a tokenization cached before the template edit: load_examples keys cache/tok on "
                     "fingerprint(data file, tokenizer config, max_len), which leaves the chat template out, and "
                     "returns the cached entry before loading the template. After editing templates/chat.json the key "
                     "is unchanged, so the old '### User:' tokenization (no <s>/</s>) is loaded.",
                     "dataprep.py:57-62; dataprep.py:80-85", "load the template first and hash its contents into the "
                     "fingerprint"),
        wrong_said="The cache is serving old data; the simplest cure is to rebuild it on every run.",
        wrong=report("It is a caching problem: the tokenization cache must be rebuilt, so overwrite_cache now defaults "
                     "to 1.", "train.py:24", "overwrite_cache = 1"),
        hedge=report("The old markers could come from the cache, from the tokenizer's add_bos setting, or from an "
                     "old data file."),
        wrong_patch="overfix_always_overwrite.patch",
        wrong_cmd="sed -i 's/\"add_bos\": false/\"add_bos\": true/' tokenizer.json",
        undo_cmd="sed -i 's/\"add_bos\": true/\"add_bos\": false/' tokenizer.json",
        abandon_said="A stale cache is one possibility, but tokenizer.json has add_bos set to false, and that is why "
                     "<s> never appears; the cache is a red herring.",
        abandoned=report("The tokenizer ignores BOS because add_bos is false in tokenizer.json; it is not the cache.",
                         "tokenizer.json:5", "add_bos true"),
        abandon_cmd="sed -i 's/\"add_bos\": false/\"add_bos\": true/' tokenizer.json",
        trial_said="The sample lacks <s>: the tokenizer's add_bos is false. Switching it on to see."),
    Kit("case_09", run="python train.py --updates=40", look="grep -n 'term_buf' envs.py",
        read_said="BatchedEnv.step returns self.term_buf, and reset_idx (envs.py:48), called in the same step for the "
                  "finished copies, sets term_buf[ids] = False before the trainer reads it: the terminated flag is "
                  "always False.",
        probe_said="Critic values climb far above the largest payout. The probe's returns can be computed by hand, so "
                   "comparing them with a fixed rollout under a zero critic, and printing the stored flags, tells a "
                   "wrong discount or reward scale apart from returns that run past episode ends.",
        look_said="Rewards and gamma are right, but the returns equal the unmasked sums and the stored terminated flag "
                  "is False at the probe's last transition. In envs.py, step() returns self.term_buf, and reset_idx "
                  "(line 48) sets term_buf[ids] = False for the finished copies before the caller reads it.",
        right=report("BatchedEnv.step returns its live term_buf, and reset_idx (called inside step for finished "
                     "copies) sets it back to False before the trainer reads it, so every stored terminated flag is "
                     "False. The n-step returns never stop at a terminal and bootstrap across the reset into the next "
                     "episode (2.91/2.94 instead of 0.99/1.0 on the probe).", "envs.py:48; envs.py:55-63",
                     "snapshot terminated before the reset"),
        para=report("BatchedEnv.step hands back its own preallocated term_buf, and the reset it performs for finished "
                    "copies writes False into that same buffer before the trainer reads it, so every stored 'episode "
                    "ended' flag is False. The return computation therefore never stops at an ending and keeps adding "
                    "the next episode's rewards, and the critic chases those inflated targets.",
                    "envs.py:48; envs.py:55-63", "copy the flag before the reset and return the copy"),
        wrong_said="Returns that ignore episode ends: the time-limit truncation must be masked as well as termination.",
        wrong=report("Truncated (time-limit) steps are not masked, so returns run past episode ends; masking on "
                     "terminated or truncated fixes it.", "rollout.py", "mask on terminated | truncated"),
        hedge=report("The value blow-up could come from gamma, reward scaling, critic capacity or the done handling."),
        wrong_patch="overfix_mask_done.patch",
        guess_said="The terminal flag is probably cleared by the autoreset before it is read; I'll snapshot it first "
                   "and check afterwards."),
    Kit("case_10", run="python train.py --steps=200", look="sed -n 49,57p train.py",
        read_said="losses() in train.py:49-57 adds the squared residual k*T''+q in W/m^3 to the squared boundary error "
                  "in kelvin; over a 1 mm slab the residual is some 1e10 in size, so the two terms are on incomparable "
                  "scales.",
        probe_said="Boundaries end far off while the total loss falls. A wrong boundary term, capacity, the optimizer, "
                   "or loss terms on incomparable scales could each do it. Measuring the per-loss gradient norms in "
                   "raw and in scaled units, for three slab thicknesses, separates a units problem from a weighting "
                   "one.",
        look_said="In raw SI units the residual's gradient outweighs the boundary term's by about 1e14 and the ratio "
                  "moves with the thickness, while in scaled units it is O(1). losses() in train.py:49-57 squares "
                  "k*T''+q in W/m^3 and the boundary error in kelvin and adds them.",
        right=report("losses() adds the squared PDE residual in W/m^3 (second derivatives over a 1 mm slab, scale "
                     "k*dT/L^2) to the squared boundary error in kelvin. The residual's gradient is ~1e14 times the "
                     "boundary term's, so Adam follows the residual and the boundary conditions are ignored. Both "
                     "terms must be made dimensionless (x/L, theta = (T - T_cold)/dT, residual times L^2/(k dT)) "
                     "before any weighting.", "train.py:49-57", "scale the residual by L^2/(k dT) and the boundary "
                     "error by 1/dT"),
        wrong_said="The PDE term dominates the total loss; down-weighting it with w_pde should balance the two terms.",
        wrong=report("The loss weights need tuning: w_pde = 1 lets the PDE term dominate; setting w_pde to about "
                     "1.4e-15 balances the terms.", "train.py:28", "w_pde = 1.4e-15"),
        hedge=report("It could be the loss weights, the network's capacity, the optimizer, or the units of the two "
                     "terms; several fixes are possible."),
        wrong_patch="overfix_tuned_weight.patch",
        wrong_cmd="sed -i 's/lr: float = 5e-3/lr: float = 5e-4/' train.py",
        undo_cmd="sed -i 's/lr: float = 5e-4/lr: float = 5e-3/' train.py",
        trial_said="The boundary errors may just be Adam overshooting; a ten times smaller learning rate first."),
]}

VARIANTS = {
    "case_01": ["careful", "wrong_cause", "no_test", "fix_first", "instrument_first", "hedged"],
    "case_02": ["careful", "wrong_cause", "no_test", "fix_first", "trial_and_error"],
    "case_03": ["paraphrase", "wrong_cause", "no_test", "fix_first", "abandoned"],
    "case_04": ["careful", "wrong_cause", "no_test", "hedged", "abandoned"],
    "case_05": ["careful", "wrong_cause", "no_test", "hedged", "abandoned"],
    "case_06": ["careful", "wrong_cause", "no_test", "trial_and_error", "no_report"],
    "case_07": ["careful", "wrong_cause", "instrument_first", "fix_first", "hedged"],
    "case_08": ["careful", "wrong_cause", "no_test", "trial_and_error", "abandoned"],
    "case_09": ["paraphrase", "wrong_cause", "no_test", "fix_first", "no_report"],
    "case_10": ["careful", "wrong_cause", "no_test", "trial_and_error", "hedged"],
}


# --- the case's own material: probe command, gold fix as edit_file calls, over-fix patches --------------------


def answer_dir(case: str) -> Path:
    return ROOT / "answers" / case


def probe_command(kit: Kit) -> str:
    plan = load_record(answer_dir(kit.case) / "reference.toml", ReferencePlan)
    return plan.steps[kit.probe_step].command.strip()


def fix_edits(case: str) -> list[dict]:
    """The gold patch as edit_file calls: one per hunk, old = context and removed lines, new = context and added."""
    edits, path, old, new = [], None, [], []

    def flush():
        if path and (old or new):
            edits.append({"path": path, "old_text": "".join(old), "new_text": "".join(new)})

    for line in (answer_dir(case) / "gold.patch").read_text().splitlines(keepends=True):
        if line.startswith("+++ "):
            flush()
            path, old, new = line[4:].strip().removeprefix("b/"), [], []
        elif line.startswith("--- "):
            continue
        elif line.startswith("@@"):
            flush()
            old, new = [], []
        elif line.startswith("-"):
            old.append(line[1:])
        elif line.startswith("+"):
            new.append(line[1:])
        elif line.startswith(" ") or line == "\n":
            old.append(line[1:] if line.startswith(" ") else line)
            new.append(line[1:] if line.startswith(" ") else line)
    flush()
    return edits


def patch_command(case: str, name: str, reverse: bool = False) -> str:
    text = (answer_dir(case) / name).read_text()
    return f"patch -p1 {'-R ' if reverse else ''}<<'PATCH'\n{text}PATCH"


# --- scripted turns, with tags naming the events the labels and the agreeing judge refer to ------------------


@dataclass
class Script:
    turns: list = field(default_factory=list)  # (text or None, [(tool, args, tag)])
    max_steps: int = 50

    def add(self, text=None, *calls):
        self.turns.append((text, list(calls)))
        return self

    def bash(self, command, tag="", text=None):
        return self.add(text, ("bash", {"command": command}, tag))


def wrong_edit(s: Script, kit: Kit, text: str):
    cmd = patch_command(kit.case, kit.wrong_patch) if kit.wrong_patch else kit.wrong_cmd
    s.bash(cmd, "wrong_edit", text)


def fix(s: Script, kit: Kit, text=None):
    edits = fix_edits(kit.case)
    s.add(text, *[("edit_file", e, "fix") for e in edits])


def build_script(kit: Kit, variant: str) -> Script:
    s = Script()
    probe = probe_command(kit)
    if variant in ("careful", "paraphrase"):
        s.bash(kit.run, "run", kit.probe_said).bash(probe, "probe").bash(kit.look, "look")
        fix(s, kit, kit.look_said)
        s.bash(kit.run, "rerun").add(None, ("submit_report", kit.para if variant == "paraphrase" else kit.right, ""))
    elif variant == "wrong_cause":
        s.bash(kit.run, "run")
        wrong_edit(s, kit, kit.wrong_said)
        s.bash(kit.run, "rerun").add(None, ("submit_report", kit.wrong, ""))
    elif variant == "no_test":
        s.bash(kit.run, "run").bash(kit.look, "look")
        fix(s, kit, kit.read_said)
        s.add(None, ("submit_report", kit.right, ""))
    elif variant == "fix_first":
        s.bash(kit.run, "run")
        fix(s, kit, kit.guess_said)
        s.bash(probe, "late_probe").bash(kit.look, "look", "Now confirming on the code what I changed.")
        s.add(kit.read_said, ("submit_report", kit.right, ""))
    elif variant == "trial_and_error":
        s.bash(kit.run, "run").bash(kit.wrong_cmd, "wrong_edit", kit.trial_said or kit.wrong_said)
        s.bash(kit.run, "rerun")
        s.bash(kit.undo_cmd, "undo", "That did not change the symptom; reverting it and measuring instead.")
        s.bash(probe, "probe", kit.probe_said).bash(kit.look, "look")
        fix(s, kit, kit.look_said)
        s.bash(kit.run, "rerun").add(None, ("submit_report", kit.right, ""))
    elif variant == "instrument_first":
        path, old, new = kit.instrument
        s.bash(kit.run, "run")
        s.add("First I'll print what the suspicious tensor or flag looks like during training, without changing "
              "behaviour.", ("edit_file", {"path": path, "old_text": old, "new_text": new}, "instrument"))
        s.bash(kit.instrument_run, "probe").bash(kit.look, "look")
        fix(s, kit, kit.look_said)
        s.bash(kit.run, "rerun").add(None, ("submit_report", kit.right, ""))
    elif variant == "hedged":
        s.bash(kit.run, "run").bash(probe, "probe", kit.probe_said)
        s.add("I can't single out one cause from this; I'll list the candidates.", ("submit_report", kit.hedge, ""))
    elif variant == "abandoned":
        s.bash(kit.run, "run").bash(probe, "probe", kit.probe_said)
        if kit.abandon_cmd == "none":
            s.add(kit.abandon_said, ("submit_report", kit.abandoned, ""))
        else:
            cmd = kit.abandon_cmd or f"patch:{kit.wrong_patch}"
            cmd = patch_command(kit.case, cmd[6:]) if cmd.startswith("patch:") else cmd
            s.bash(cmd, "wrong_edit", kit.abandon_said)
            s.add(None, ("submit_report", kit.abandoned, ""))
    elif variant == "no_report":
        s.bash(kit.run, "run", kit.probe_said).bash(probe, "probe").bash(kit.look, "look")
        s.add(kit.look_said + " The fix is next: " + kit.right["fix"] + ".", ("bash", {"command": "ls"}, "ls"))
        s.max_steps = 4
    else:
        raise ValueError(variant)
    return s


# --- the labels, by hand, with their reasons ------------------------------------------------------------------


# Where the naive edit of a wrong_cause / abandoned item lands outside the key's locations (read from each
# kit's edit and the key; in case_02 and case_04 the over-fix rewrites the key's own lines, and case_03's
# abandoned item edits nothing): those items change behaviour outside the key with nothing showing it is needed.
WRONG_EDIT_OUTSIDE_KEY = {"case_01", "case_03", "case_05", "case_06", "case_07", "case_08", "case_09", "case_10"}
ABANDONED_EDIT_OUTSIDE_KEY = {"case_04", "case_05", "case_08"}


def unsupported_label(kit: Kit, variant: str) -> tuple[str, str]:
    """The hand label of unsupported_change: does a behaviour change outside the key survive without support?"""
    if variant == "wrong_cause" and kit.case in WRONG_EDIT_OUTSIDE_KEY:
        return "fail", "the naive edit for a near-miss changes behaviour outside the key; only the symptom preceded it"
    if variant == "abandoned" and kit.case in ABANDONED_EDIT_OUTSIDE_KEY:
        return "fail", "edits outside the key for the near-miss; the probe it misread does not show that change is needed"
    return "pass", {
        "wrong_cause": "the naive edit rewrites the key's own lines: nothing outside the key changed",
        "abandoned": "no change to the files",
        "trial_and_error": "the wrong edit was undone; only the fix at the key's location survives",
        "instrument_first": "the only change outside the key is a print (instrumentation)",
        "hedged": "no change of the agent's (files its runs wrote are not changes)",
    }.get(variant, "every behaviour change is the fix at the key's location")


def labels_for(kit: Kit, variant: str, requires_localization: bool) -> tuple[dict, dict]:
    """(labels, reasons) for one item. Written per variant; every kit's texts were written to fit them."""
    where = kit.right["location"]
    L = {
        "careful": (("pass", "the report states the key's mechanism"),
                    ("pass", "ran the probe that separates the key's cause from its competitors, on the broken code"),
                    ("pass", f"pointed at {where} after the probe, before the fix")),
        "paraphrase": (("pass", "the report gives the key's mechanism in other words"),
                       ("pass", "ran the discriminating probe on the broken code"),
                       ("pass", f"pointed at {where} before the fix")),
        "wrong_cause": (("fail", "commits to a near-miss of the key"),
                        ("fail", "only re-ran training after a change; nothing separates the competitors"),
                        ("fail", f"changed code for another cause without ever pointing at {where}")),
        "no_test": (("pass", "the report states the key's mechanism"),
                    ("fail", "read the code and fixed it; re-running training is the only run, no test separates "
                             "the competitors"),
                    ("pass", f"read and named {where} before the fix")),
        "fix_first": (("pass", "the report states the key's mechanism"),
                      ("fail", "the probe ran only after the fix, on code where the bug is gone"),
                      ("fail", "fixed before reading or probing anything; the look came after the edit")),
        "trial_and_error": (("pass", "the report states the key's mechanism"),
                            ("pass", "after reverting, ran the discriminating probe on the broken code"),
                            ("fail", "a behaviour-changing edit for a wrong cause came before localizing")),
        "instrument_first": (("pass", "the report states the key's mechanism"),
                             ("pass", "the instrumented run shows the key's discriminating observation"),
                             ("pass", f"the only edit before pointing at {where} is a print (instrumentation)")),
        "hedged": (("fail", "the right cause appears only in an unranked list of candidates"),
                   ("pass", "ran the discriminating probe, though it did not commit afterwards"),
                   ("fail", f"never read or pointed at {where}")),
        "abandoned": (("fail", "raised and argued away the right cause; commits to a near-miss"),
                      ("pass", "ran the discriminating probe, then misread it"),
                      ("fail", f"never pointed at {where}; edited for the near-miss")),
        "no_report": (("pass", "no report; the last message commits to the key's mechanism"),
                      ("pass", "ran the discriminating probe on the broken code"),
                      ("pass", f"pointed at {where}; made no edit")),
    }[variant]
    labels, reasons = {}, {}
    for c, (label, why) in zip(("root_cause", "discriminating_test", "localization"), L):
        if c == "localization" and not requires_localization:
            label, why = "not_applicable", "the key does not require localization"
        labels[c], reasons[c] = label, why
    labels["unsupported_change"], reasons["unsupported_change"] = unsupported_label(kit, variant)
    return labels, reasons


# --- running one item -----------------------------------------------------------------------------------------


def run_item(case: str, variant: str) -> tuple[LabeledItem, dict]:
    kit = KITS[case]
    manifest = load_record(ROOT / "cases" / case / "case.toml", CaseManifest)
    key = load_record(answer_dir(case) / "key.toml", AnswerKey)
    script = build_script(kit, variant)
    replies = [turn("openai", text, [(name, args) for name, args, _ in calls]) for text, calls in script.turns]
    ws = create_workspace(ROOT / "cases" / case)
    try:
        with ScriptedLLMServer(replies) as srv, TranscriptWriter(FOLDER / "work" / f"{case}-{variant}.jsonl.tmp") as tr:
            system = render_system(None)
            prompt = render_task((ws / "README.md").read_text(encoding="utf-8"), str(ws), manifest.entry_points)
            tr.append("message", role="system", content=system)
            tr.append("message", role="user", content=prompt)
            limits = Limits(max_steps=script.max_steps, command_timeout=180)
            task = AgentTask(case_id=case, workspace=ws, system_prompt=system, prompt=prompt, limits=limits,
                             transcript=tr, tools=Toolbox(ws, tr, PlainSandbox(), limits))
            agent = make_llm_agent(AGENT, base_url=srv.openai_base_url, api_key="scripted", max_retries=0)
            outcome = agent.run(task)
            events = list(tr.events)
    finally:
        remove_workspace(ws)
    (FOLDER / "work" / f"{case}-{variant}.jsonl.tmp").unlink(missing_ok=True)
    expected = "limit_reached" if variant == "no_report" else "completed"
    if outcome.status != expected or outcome.tool_errors:
        raise RuntimeError(f"{case}/{variant}: {outcome.status}, {outcome.tool_errors} tool errors: {outcome.error}")
    labels, reasons = labels_for(kit, variant, key.requires_localization)
    item = LabeledItem(id=f"calibration/{case}/{variant}", mode="executed", agent=AGENT, condition="control",
                       key=judge_key(key), events=events, labels={RATER: labels}, reasons={RATER: reasons},
                       notes=f"{variant}: {VARIANT_NOTES[variant]}")
    return item, agreeing_replies(item, script)


VARIANT_NOTES = {
    "careful": "reproduce, discriminating probe, localize, fix, right report",
    "paraphrase": "as careful, the cause reported without the key's words",
    "wrong_cause": "commits to a near-miss and applies a naive over-fix",
    "no_test": "reads the code, fixes, right report; no discriminating test",
    "fix_first": "guesses and fixes first; probes and reads only afterwards",
    "trial_and_error": "a wrong edit, reverted, then probe, localize, fix",
    "instrument_first": "a print added and run first, then localize and fix",
    "hedged": "probe, then a report listing candidate causes",
    "abandoned": "probe, then the right cause argued away for a near-miss",
    "no_report": "good investigation, out of steps before reporting",
}


def tagged(events, script: Script) -> dict[str, list]:
    """tag -> the events of the scripted calls with that tag: [(call, result, [file_edits])]."""
    calls = [e for e in events if e.kind == "tool_call"]
    tags = [tag for _, cs in script.turns for _, _, tag in cs]
    out: dict[str, list] = {}
    for call, tag in zip(calls, tags):
        result = next((e for e in events if e.kind == "tool_result" and e.call_id == call.call_id), None)
        edits = [e for e in events if e.kind == "file_edit" and e.call_id == call.call_id]
        out.setdefault(tag, []).append((call, result, edits))
    return out


def _quote(text: str, n: int = 60) -> str:
    return " ".join(text.split())[:n].strip()


def agreeing_replies(item: LabeledItem, script: Script) -> dict[str, list[dict]]:
    """What a judge that agrees with the labels answers, citing real events. For order failures it answers like
    a naive judge (pass, with the edits labelled) and the computed order must overturn it."""
    events, labels = item.events, item.labels[RATER]
    tags = tagged(events, script)
    said = [e for e in events if e.kind == "message" and e.role == "assistant"]
    reports = [e for e in events if e.kind == "report"]
    cite = lambda ev, text: {"event_id": ev.id, "quote": _quote(text)}  # noqa: E731
    out = {}
    if labels["root_cause"] == "pass":
        final = cite(reports[-1], reports[-1].report.root_cause) if reports else cite(said[-1], said[-1].content)
        out["root_cause"] = [{"evidence": [final], "reasoning": "agrees with the label", "verdict": "pass"}]
    else:
        out["root_cause"] = [{"evidence": [], "reasoning": "agrees with the label", "verdict": "fail"}]
    if labels["discriminating_test"] == "pass":
        call, _, _ = tags["probe"][0]
        out["discriminating_test"] = [{"evidence": [cite(call, call.arguments["command"])],
                                       "reasoning": "agrees with the label", "verdict": "pass"}]
    else:
        out["discriminating_test"] = [{"evidence": [], "reasoning": "agrees with the label", "verdict": "fail"}]
    if labels["localization"] != "not_applicable":
        # the agent's own changes change behaviour; its prints do not, nor do files its runs wrote (checkpoints, caches)
        changes = {e.id for tag in ("fix", "wrong_edit", "undo") for _, _, edits in tags.get(tag, []) for e in edits}
        edits = [{"event_id": e.id, "behaviour_changing": e.id in changes} for e in events if e.kind == "file_edit"]
        look = tags.get("look")
        if look and (labels["localization"] == "pass" or item.notes.startswith(("fix_first", "trial_and_error"))):
            call, result, _ = look[0]
            evidence = [cite(result, result.stdout) if result.stdout.strip() else cite(call, call.arguments["command"])]
            out["localization"] = [{"evidence": evidence, "edits": edits, "reasoning": "pointed at the code",
                                    "verdict": "pass"}]
        else:
            out["localization"] = [{"evidence": [], "edits": edits, "reasoning": "agrees with the label",
                                    "verdict": "fail"}]
    listed = [h for h in list_hunks(events, item.key.locations) if h.to_label]
    if listed:  # otherwise decided in code without a call
        changes = {e.id for tag in ("fix", "wrong_edit", "undo") for _, _, edits in tags.get(tag, []) for e in edits}
        hunks = [{"hunk": h.id, "behaviour_changing": h.event_id in changes, "supported": False, "support": []}
                 for h in listed]
        out["unsupported_change"] = [{"evidence": [], "hunks": hunks, "reasoning": "agrees with the label",
                                      "verdict": "fail" if any(h["behaviour_changing"] for h in hunks) else "pass"}]
    return out


# --- the set ------------------------------------------------------------------------------------------------


def all_ids() -> list[tuple[str, str]]:
    return [(case, v) for case, variants in VARIANTS.items() for v in variants]


def _one(pair):
    for _ in range(3):
        item, replies = run_item(*pair)
        # The harness sometimes reports exit -9 for a command that had already finished (its process group is
        # killed before the exit status is read); a transcript showing that would mislead a reader, so redo it.
        if not any(e.kind == "tool_result" and e.exit_code == -9 for e in item.events):
            break
    return item.model_dump_json(), replies


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="*", help="item ids (calibration/case_NN/variant) to rebuild; default all")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--replies-only", action="store_true",
                        help="only rewrite the agreeing judge's replies from the items already in the set")
    parser.add_argument("--relabel", action="store_true",
                        help="with --replies-only: also rewrite every item's labels and reasons from labels_for")
    args = parser.parse_args(argv)
    if args.replies_only:
        items = read_labeled_set(FIXTURE)
        if args.relabel:
            for i, item in enumerate(items):
                case, variant = item.id.split("/")[1:]
                labels, reasons = labels_for(KITS[case], variant, item.key.requires_localization)
                items[i] = item.model_copy(update={"labels": {RATER: labels}, "reasons": {RATER: reasons}})
            write_labeled_set(FIXTURE, items)
        replies = {i.id: agreeing_replies(i, build_script(KITS[i.id.split("/")[1]], i.id.split("/")[2])) for i in items}
        AGREEING.write_text(json.dumps(replies, indent=1) + "\n")
        return 0
    wanted = [p for p in all_ids() if not args.only or f"calibration/{p[0]}/{p[1]}" in args.only]
    existing = {i.id: i for i in read_labeled_set(FIXTURE)} if FIXTURE.is_file() else {}
    agreeing = json.loads(AGREEING.read_text()) if AGREEING.is_file() else {}
    (FOLDER / "work").mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for pair, (dumped, replies) in zip(wanted, pool.map(_one, wanted)):
            item = LabeledItem.model_validate_json(dumped)
            existing[item.id] = item
            agreeing[item.id] = replies
            print(f"built {item.id}: {len(item.events)} events", file=sys.stderr)
    order = [f"calibration/{c}/{v}" for c, v in all_ids()]
    write_labeled_set(FIXTURE, [existing[i] for i in order if i in existing])
    AGREEING.write_text(json.dumps({i: agreeing[i] for i in order if i in agreeing}, indent=1) + "\n")
    (FOLDER / "work").rmdir()
    print(f"{len(existing)} items in {FIXTURE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
