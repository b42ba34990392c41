"""Run a case's hidden verifier on a tree, exactly as grading does: measure inside, decide outside.

1. The tree is copied the safe way (``harness.workspaces.workspace``) into a fresh folder.
2. The measuring half runs in the sandbox on that copy, with the verifier's own files mounted
   read-only from a per-verification copy and an empty measurements folder as its only other
   writable path. It runs the agent's code, so its output is kept for diagnostics only.
3. The harness harvests the measurements: regular files with the expected names, size-capped.
4. The case's own run command (the README's) runs in the sandbox on another fresh copy, as the
   user would run it: plain ``python``, no hooks. Its output is written by the harness beside
   the measurements as ``readme_run.json``, so the decider can check that the symptom is gone
   where the user looks, and that the agent's code behaves the same there as under the
   measuring process (code that recognises the verifier and fixes itself only there fails).
5. The deciding half runs in the sandbox with the harvested measurements read-only and no
   workspace at all; its JSON line is the verdict.

The answers are checked (``guard``) before the verifier runs and again after the measuring
process, and so is the verifier's own per-verification copy, so code that tampers with them
in the unsandboxed fallback is caught before its effect can be trusted.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

from harness.core.cases import Case
from harness.core.errors import InfraError, IntegrityError
from harness.core.hashing import sha256_tree
from harness.core.verifier_output import (
    OUTPUT_CAP,
    README_RUN_CAP,
    first_failure,
    first_seed_failed,
    harvest,
    verdict_line,
    verdict_status,
)
from harness.isolation.sandbox import Mount
from harness.models import ProcessRun, SkippedEntry, VerifierRun
from harness.workspaces.workspace import copy_tree_safely, copy_workspace

DECIDE_TIMEOUT_S = 180.0


PRISTINE_DIR = "case"  # the unchanged case folder inside the bundle (verifylib.pristine_case)


def _read_only(root: Path) -> None:
    for path in sorted(root.rglob("*"), reverse=True):
        path.chmod(0o555 if path.is_dir() else 0o444)
    root.chmod(0o555)


def _bundle(case: Case, dest: Path) -> tuple[Path, str]:
    """A private, read-only copy of just the files the verifier processes need (never the key or
    patches) plus the unchanged case folder, and its hash. The unchanged case is what lets a check
    compare with "what the repo does today" measured here, on this machine's kernels, instead of a
    number written down on another CPU (docs/integrity.md, "Portable verdicts")."""
    dest.mkdir()
    for src, rel in case.verifier_bundle:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest / rel)
    copy_tree_safely(case.case_dir, dest / PRISTINE_DIR)
    _read_only(dest)
    return dest, sha256_tree(dest)


def _integrity(case: Case, guard, bundle: Path, bundle_sha: str) -> Callable[[], None]:
    """A check to run after each process that ran the agent's code: the answers, and the
    verifier's own copy, are as they were."""
    def check() -> None:
        if guard:
            guard()
        if sha256_tree(bundle) != bundle_sha:
            raise IntegrityError(f"the verifier's own copy for {case.id} changed while the agent's code ran "
                                 f"({bundle}): the run is stopped; use bubblewrap to prevent this")
    return check


def _readme_run(case: Case, tree: Path, parent: Path, sandbox) -> dict:
    """The case's run command on a fresh copy of ``tree``, as the user runs it; what it printed."""
    ws, _ = copy_workspace(tree, parent=parent)
    res = sandbox.run(case.manifest.run, ws, case.manifest.timeout_seconds, README_RUN_CAP)
    return {"command": case.manifest.run, "exit_code": res.exit_code, "timed_out": res.timed_out,
            "duration_s": res.duration_s, "stdout": res.stdout, "stderr": res.stderr[-20_000:]}


def _process(res) -> ProcessRun:
    return ProcessRun(exit_code=res.exit_code, timed_out=res.timed_out, duration_s=res.duration_s,
                      stderr_tail=res.stderr[-3000:])


class _Verification:
    """One verification's private folders and processes: the pieces ``verify_tree`` runs in order."""

    def __init__(self, case: Case, tree: Path, sandbox, guard, timeout: float | None, tmp: Path):
        self.case, self.tree, self.sandbox, self.tmp = case, tree, sandbox, tmp
        self.timeout = timeout or case.key.verifier_timeout_seconds
        self.bundle, bundle_sha = _bundle(case, tmp / "verifier")
        self.check = _integrity(case, guard, self.bundle, bundle_sha)
        self.skipped: list[SkippedEntry] = []
        self._copy = copy_workspace(tree, parent=tmp)  # made here so a tree that cannot be copied is an error

    def measure(self, name: str, extra: list[str]) -> tuple[ProcessRun, Path]:
        """The measuring half on a fresh copy of the tree; the harvested measurements' folder."""
        (ws, copied), self._copy = self._copy or copy_workspace(self.tree, parent=self.tmp), None
        out = self.tmp / f"measurements-{name}"
        out.mkdir()
        res = self.sandbox.run_argv([sys.executable, "-I", str(self.bundle / self.case.key.measure), str(ws), str(out),
                                     *extra], ws, self.timeout, OUTPUT_CAP,
                                    mounts=(Mount(ws, writable=True), Mount(self.bundle), Mount(out, writable=True)),
                                    scratch=self.tmp / f"measure-scratch-{name}")
        self.check()
        clean = self.tmp / f"harvested-{name}"
        self.skipped = copied.skipped + harvest(out, clean)
        return _process(res), clean

    def decide(self, clean: Path, extra: list[str], name: str):
        """The deciding half on the harvested measurements; inside ``validate`` it also gets the folder the
        call's deciders share for the unchanged case's own runs (``verify_memo.pristine_folder``)."""
        from harness.workspaces import verify_memo

        shared = verify_memo.pristine_folder(self.case.id, self.sandbox)
        mounts = (Mount(self.bundle), Mount(clean)) + ((Mount(shared, writable=True),) if shared else ())
        extra = [*extra, *([f"--pristine-cache={shared}"] if shared else [])]
        return self.sandbox.run_argv([sys.executable, "-I", str(self.bundle / self.case.key.decide), str(clean),
                                      *extra],
                                     clean, DECIDE_TIMEOUT_S, OUTPUT_CAP, mounts=mounts,
                                     scratch=self.tmp / f"decide-scratch-{name}")


def verify_tree(case: Case, tree: Path, sandbox, guard: Callable[[], None] | None = None,
                timeout: float | None = None, seeds: int | None = None, verdict_only: bool = False,
                readme_first: bool = False) -> VerifierRun:
    """The verdict of ``case``'s verifier on ``tree`` (``_verify_tree``); inside ``validate``, a tree already
    verified the same way in the same call is not verified again (``harness.workspaces.verify_memo``). That
    holds for a sample graded inside ``validate`` too (the reference agent's tree is the gold patch's, the
    null agent's the unchanged case): its ``guard`` still runs before a kept verdict is returned, and the
    memo is never on outside ``validate``, so grading a real run always verifies."""
    from harness.workspaces import verify_memo

    if timeout is not None or not verify_memo.active():
        return _verify_tree(case, tree, sandbox, guard, timeout, seeds, verdict_only, readme_first)
    if guard:
        guard()
    return verify_memo.verdict(case.id, tree, sandbox, seeds, verdict_only or readme_first,
                               lambda: _verify_tree(case, tree, sandbox, guard, None, seeds, verdict_only,
                                                    readme_first))


def _verify_tree(case: Case, tree: Path, sandbox, guard: Callable[[], None] | None = None,
                 timeout: float | None = None, seeds: int | None = None, verdict_only: bool = False,
                 readme_first: bool = False) -> VerifierRun:
    """The verdict of ``case``'s verifier on ``tree``. Raises only when the answers were tampered with.

    ``seeds``: only the verifier's first N seeds (``verify --seeds N``, a quick look; grading uses all).
    ``verdict_only`` (validation of a patch expected to be rejected) stops at the first failing phase:
    1. the first seed measured and decided alone, without the README run;
    2. the README run, decided with that first seed (``readme_first`` starts here: a verifier-recognising
       fix passes phase 1 by design, and what must show is which README checks reject it);
    3. the full verification: every seed measured in one fresh process, decided with phase 2's README run.
    A fail in phase 1 or 2 is a full verification's fail too: the first seed is measured first, in a
    fresh process, either way; the README checks of phase 2 are made only when the README's seed is the
    seed decided (``partial["readme_checked"]``, verifylib), and then they are the full run's README
    checks; leaving out later seeds can only remove failures."""
    t0 = time.monotonic()
    if guard:
        guard()
    tmp = Path(tempfile.mkdtemp(prefix="mldb-verify-"))
    seed_arg = [] if seeds is None else [f"--seeds={seeds}"]
    early = verdict_only or readme_first

    def stopped(measured: ProcessRun, decided, result: dict, readme: dict | None = None) -> VerifierRun:
        return VerifierRun(status="fail", reason=first_failure(result), result=result, measure=measured,
                           readme_run=_readme_process(readme) if readme else None, decide=_process(decided),
                           skipped=v.skipped, early_stop=True, duration_s=round(time.monotonic() - t0, 3))
    try:
        try:
            v = _Verification(case, tree, sandbox, guard, timeout, tmp)
        except (OSError, InfraError) as exc:
            return VerifierRun(status="error", reason=f"could not prepare the verification: {exc}",
                               duration_s=round(time.monotonic() - t0, 3))
        first_s, readme = 0.0, None
        if early:
            measured, first = v.measure("first", ["--seeds=1"])
            first_s = measured.duration_s
            if not readme_first:
                decided = v.decide(first, ["--seeds=1", "--no-readme"], "first")
                result = verdict_line(decided.stdout)
                if first_seed_failed(result, decided.exit_code):
                    return stopped(measured, decided, result)
            readme = _readme_with(case, tree, tmp, sandbox, v, first)
            decided = v.decide(first, ["--seeds=1"], "first-readme")
            result = verdict_line(decided.stdout)
            if first_seed_failed(result, decided.exit_code) and result["partial"].get("readme_checked"):
                return stopped(measured, decided, result, readme)
        measured, clean = v.measure("all", seed_arg)
        if first_s:
            measured = measured.model_copy(update={"duration_s": round(measured.duration_s + first_s, 4)})
        if readme is None:
            readme = _readme_with(case, tree, tmp, sandbox, v, clean)
        else:  # phase 2's run, decided again with every seed
            (clean / "readme_run.json").write_text(json.dumps(readme))
        decided_all = v.decide(clean, seed_arg, "all")
        skipped = v.skipped
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result = verdict_line(decided_all.stdout)
    runs = {"measure": measured, "readme_run": _readme_process(readme), "decide": _process(decided_all),
            "skipped": skipped, "duration_s": round(time.monotonic() - t0, 3)}
    status, reason = verdict_status(result, decided_all.exit_code, decided_all.timed_out, partial_ok=seeds is not None)
    return VerifierRun(status=status, reason=reason, result=result or {}, **runs)


def _readme_with(case: Case, tree: Path, tmp: Path, sandbox, v: _Verification, harvested: Path) -> dict:
    """The README run, written beside ``harvested`` as ``readme_run.json``; the agent's code ran again, so
    the answers, the verifier's copy and the harvested measurements are checked to be as they were."""
    before = sha256_tree(harvested)
    readme = _readme_run(case, tree, tmp, sandbox)
    v.check()
    if sha256_tree(harvested) != before:
        raise IntegrityError(f"the harvested measurements for {case.id} changed while the case's run command ran "
                             f"({harvested}): the run is stopped; use bubblewrap to prevent this")
    (harvested / "readme_run.json").write_text(json.dumps(readme))
    return readme


def _readme_process(readme: dict) -> ProcessRun:
    return ProcessRun(exit_code=readme["exit_code"], timed_out=readme["timed_out"], duration_s=readme["duration_s"],
                      stderr_tail=readme["stderr"][-3000:])


_gold_runs: dict[tuple, VerifierRun] = {}
_gold_lock = threading.Lock()


def gold_run(case: Case, sandbox, guard=None) -> VerifierRun:
    """The verifier on the case with its gold patch applied, once per case and sandbox per process. Only a
    verdict is kept: an error may be passing (a machine out of file descriptors or memory for a moment),
    and kept it would turn every later sample of the case into an infra_error."""
    from harness.workspaces.workspace import apply_patch, create_workspace, remove_workspace

    key = (str(case.case_dir), str(case.answer_dir), getattr(sandbox, "name", "?"), getattr(sandbox, "kernel", None))
    with _gold_lock:
        if key in _gold_runs:
            return _gold_runs[key]
    ws = create_workspace(case.case_dir)
    try:
        apply_patch(ws, case.gold_patch_path)
        run = verify_tree(case, ws, sandbox, guard)
    finally:
        remove_workspace(ws)
    if run.status != "error":
        with _gold_lock:
            _gold_runs[key] = run
    return run


def verify_for_grading(case: Case, tree: Path, sandbox, guard=None) -> VerifierRun:
    """``verify_tree`` for a sample: an ``error`` is only the harness's when the verifier cannot run on
    the gold patch either. If it runs there, the agent's files are what stopped it (a workspace too
    big to copy, measurements that crash the deciding process): that is the agent's ``fail``, never
    an unscored sample the agent could hide behind."""
    run = verify_tree(case, tree, sandbox, guard)
    if run.status != "error":
        return run
    gold = gold_run(case, sandbox, guard)
    if gold.status == "pass":
        return run.model_copy(update={"status": "fail", "reason": f"the verifier could not run on these files "
                                      f"({run.reason}), though it runs on the gold patch"})
    return run.model_copy(update={"reason": f"the verifier is broken: it cannot run on the gold patch either "
                                  f"({gold.status}: {gold.reason}); on these files: {run.reason}"})
