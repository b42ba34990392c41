"""The grep baseline on every case, and the measurable properties that make a hard or frontier case hard: size,
hits of the bug's construct, seeds, and the checks derived from the others (docs/cases.md)."""

from __future__ import annotations

import re
import shlex
import time
from pathlib import Path

from harness.core.cases import Case
from harness.core.hashing import iter_files
from harness.validation.checks import Check, _run_broken
from harness.workspaces.workspace import create_workspace, remove_workspace

HARD_MIN_LINES = 1200
HARD_MIN_MODULES = 10
HARD_MIN_CONSTRUCT_HITS = 5
HARD_SEEDS = 3
HARD_MAX_RUN_S = 15.0  # CPU seconds per seed run, on a machine where CALIBRATION takes CALIBRATION_REFERENCE_S
# A fixed torch workload (import, then 600 SGD steps of a small MLP) timed like the seed runs, in the same sandbox
# and kernel: the limit scales with it, so a slower CPU gets proportionally more time and no machine's speed is
# a bound on another's. The reference was measured on a 2-core AMD EPYC without AVX-512 (2026-12-05: 7.0-7.3 s).
CALIBRATION = ("import torch\ntorch.manual_seed(0)\ntorch.set_num_threads(1)\n"
               "m = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))\n"
               "opt = torch.optim.SGD(m.parameters(), lr=0.01)\n"
               "x, y = torch.randn(128, 256), torch.randint(0, 10, (128,))\n"
               "for _ in range(600):\n"
               "    opt.zero_grad()\n"
               "    torch.nn.functional.cross_entropy(m(x), y).backward()\n"
               "    opt.step()\n")
CALIBRATION_REFERENCE_S = 7.3


def check_grep_baseline(case: Case, sandbox) -> Check:
    """Where ``--agent grep`` would point on this case (its own search, run in a fresh workspace through the
    sandbox) and whether that passes ``location_match``. Reported on every case; on a hard case the first hit
    must NOT be the bug (the tier exists because one grep for the right construct finds most standard bugs)."""
    from harness.agents.grep import report_for, search
    from judges.deterministic import location_match
    from judges.grading import case_file_lines

    t0 = time.monotonic()
    ws = create_workspace(case.case_dir)
    try:
        hit = search(lambda cmd: sandbox.run(cmd, ws, 60.0, 256 * 1024).stdout)
    finally:
        remove_workspace(ws)
    verdict = location_match(report_for(hit), case.key.locations, case_file_lines(case))
    where = f"{hit.location} ({hit.construct.family}: {hit.text.strip()[:80]!r})" if hit else "no hit"
    detail = f"first hit {where}; location_match {verdict.status}"
    if case.tier == "hard":
        detail += " (a hard case's first grep hit must not be the bug)" if verdict.status == "pass" else ""
    elif case.tier == "frontier":
        detail += " (reported, not required on the frontier tier)"
    return Check(case_id=case.id, name="grep_baseline", passed=case.tier != "hard" or verdict.status != "pass",
                 detail=detail, duration_s=round(time.monotonic() - t0, 2),
                 measured={"tier": case.tier, "location_match": verdict.status,
                           "location": hit.location if hit else "", "family": hit.construct.family if hit else ""})


def grep_baseline_summary(results: dict[str, list[Check]]) -> dict[str, tuple[int, int]]:
    """tier -> (cases where the grep baseline's location matched, cases measured)."""
    out: dict[str, tuple[int, int]] = {}
    for checks in results.values():
        for chk in checks:
            if chk.name == "grep_baseline" and chk.measured:
                matched, total = out.get(chk.measured["tier"], (0, 0))
                out[chk.measured["tier"]] = (matched + (chk.measured["location_match"] == "pass"), total + 1)
    return out


def python_files(case: Case) -> list[Path]:
    return [p for p in iter_files(case.case_dir) if p.suffix == ".py"]


def check_hard_size(case: Case) -> Check:
    """At least 1,200 lines of Python over at least 10 modules (``cat *.py | wc -l`` counting)."""
    files = python_files(case)
    lines = sum(len(p.read_text(encoding="utf-8", errors="replace").splitlines()) for p in files)
    ok = lines >= HARD_MIN_LINES and len(files) >= HARD_MIN_MODULES
    return Check(case_id=case.id, name="hard_size", passed=ok,
                 detail=f"{lines} Python lines (need {HARD_MIN_LINES}) over {len(files)} .py modules "
                        f"(need {HARD_MIN_MODULES})", measured={"lines": lines, "modules": len(files)})


def construct_hits(case: Case, pattern: str) -> list[tuple[str, int, bool]]:
    """(file, line, inside a key location) for every .py line ``pattern`` matches, in sorted file then
    line order: the order a grep piped through sort shows them."""
    regex = re.compile(pattern)
    spans = [(loc.file, loc.start_line, loc.end_line) for loc in case.key.locations]
    hits = []
    for path in python_files(case):
        rel = path.relative_to(case.case_dir).as_posix()
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
            if regex.search(line):
                hits.append((rel, n, any(f == rel and a <= n <= b for f, a, b in spans)))
    return sorted(hits)


def check_hard_construct_hits(case: Case) -> Check:
    """The key's construct regex hits at least 5 .py lines, at least one inside a key location (the bug)."""
    if case.key.hardness is None:
        return Check(case_id=case.id, name="hard_construct_hits", passed=False, detail="the key has no [hardness]")
    pattern = case.key.hardness.construct_regex
    hits = construct_hits(case, pattern)
    in_key = [f"{f}:{n}" for f, n, inside in hits if inside]
    ok = len(hits) >= HARD_MIN_CONSTRUCT_HITS and bool(in_key)
    grep_note = ("" if case.tier != "frontier"
                 else f" ({'met' if ok else 'not met'}; reported, not required on the frontier tier)")
    ok = ok or case.tier == "frontier"
    first = f"{hits[0][0]}:{hits[0][1]}" + (" (inside the key: the bug)" if hits[0][2] else " (outside the key)") \
        if hits else "none"
    return Check(case_id=case.id, name="hard_construct_hits", passed=ok,
                 detail=f"{pattern!r} hits {len(hits)} lines (need {HARD_MIN_CONSTRUCT_HITS}), "
                        f"{len(in_key)} inside a key location (need 1: {', '.join(in_key[:3]) or 'none'}); "
                        f"first hit {first}{grep_note}",
                 measured={"hits": len(hits), "in_key": len(in_key), "first_hit_is_bug": bool(hits and hits[0][2])})


SHELL_TIMES = re.compile(r"^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$")


def _children_cpu_s(stderr: str) -> float | None:
    """User + system CPU seconds of the command's processes, from bash's ``times`` (its last line: the
    children's), or None when it is missing."""
    lines = [ln.strip() for ln in stderr.strip().splitlines()]
    m = SHELL_TIMES.match(lines[-1]) if lines else None
    if not m:
        return None
    return int(m[1]) * 60 + float(m[2]) + int(m[3]) * 60 + float(m[4])


def _timed(command: str) -> str:
    """``command`` followed by bash's ``times`` on stderr (read by ``_children_cpu_s``), keeping its exit code."""
    return f"{command}\n__rc=$?; times 1>&2; exit $__rc"


def check_hard_seed_runs(case: Case, sandbox) -> Check:
    """The key's ``seed_command`` on seeds 0, 1, 2 of the broken repo, each in a fresh workspace, timed in CPU
    seconds (bash's ``times`` after the command): the limit is about the case's cost, and wall time on a
    loaded machine is not (a 10 s run measured 28 s wall beside eight other processes on 2 cores)."""
    template = case.key.hardness.seed_command
    times, walls, problems = [], [], []
    calibration = _children_cpu_s(_run_broken(case, _timed(f"python -I -c {shlex.quote(CALIBRATION)}"), sandbox).stderr)
    limit = round(HARD_MAX_RUN_S * calibration / CALIBRATION_REFERENCE_S, 1) if calibration else HARD_MAX_RUN_S
    if not calibration:
        problems.append(f"the calibration reported no CPU time: limit {HARD_MAX_RUN_S:g} s unscaled")
    for seed in range(HARD_SEEDS):
        command = template.replace("{seed}", str(seed))
        res = _run_broken(case, _timed(command), sandbox)
        walls.append(round(res.duration_s, 1))
        cpu = _children_cpu_s(res.stderr)
        times.append(round(cpu, 1) if cpu is not None else walls[-1])
        if res.timed_out:
            problems.append(f"seed {seed} timed out")
        elif cpu is None:
            problems.append(f"seed {seed}: no CPU time reported (bash's times), wall time used")
    return Check(case_id=case.id, name="hard_seed_runs", passed=not any("timed out" in p for p in problems),
                 detail=f"{template!r} on seeds 0-{HARD_SEEDS - 1}: {times} s of CPU ({walls} s wall); limit "
                        f"{limit:g} s here (calibration {calibration or 0:.1f} s of CPU against "
                        f"{CALIBRATION_REFERENCE_S:g} s where the limit is {HARD_MAX_RUN_S:g} s)"
                        + (f"; {'; '.join(problems)}" if problems else ""),
                 duration_s=sum(walls), measured={"run_s": times, "wall_s": walls, "limit_s": limit,
                                                  "calibration_s": calibration})


STOP_WORDS = {"which", "there", "their", "would", "should", "could", "about", "after", "before", "because",
              "where", "while", "other", "these", "those", "every", "the", "that", "this", "with", "from", "instead"}


def _stems(text: str) -> set[str]:
    """Content words cut to 5 letters ('warmup' and 'warm-up's 'warmu' meet; 'clipping'/'clipped' too)."""
    words = re.findall(r"[a-z]+", text.lower().replace("-", ""))
    return {w[:5] for w in words if len(w) >= 5 and w not in STOP_WORDS}


def derived_hard_checks(case: Case, checks: list[Check]) -> list[Check]:
    """Checks that combine other checks' results: ``hard_seeds_reproduce`` (the verifier sees the symptom on 3
    seeds of the broken repo, and the run takes at most 15 s of CPU per seed) and ``hard_anomaly`` (the anomaly's
    over-fix is rejected and fixes something the key lists as a competitor)."""
    by_name = {c.name: c for c in checks}
    out = []
    broken = by_name.get("verifier_fails_on_broken")
    seeds = broken.measured.get("seeds", {}) if broken else {}
    seed_runs = by_name.get("hard_seed_runs")
    main = by_name.get("broken_runs_in_budget")
    times = seed_runs.measured.get("run_s", []) if seed_runs else ([round(main.duration_s, 1)] if main else [])
    symptom = len(seeds) >= HARD_SEEDS and not any(seeds.values())
    limit = seed_runs.measured.get("limit_s", HARD_MAX_RUN_S) if seed_runs else HARD_MAX_RUN_S
    fast = bool(times) and all(t <= limit for t in times) and (seed_runs is None or seed_runs.passed)
    timed = "CPU per seed" if seed_runs else "the run command, wall (no seed_command in [hardness])"
    out.append(Check(case_id=case.id, name="hard_seeds_reproduce", passed=symptom and fast,
                     detail=f"verifier on the broken repo: {'fails on' if symptom else 'does NOT fail on'} "
                            f"{len(seeds)} seed(s) {seeds}; {timed}: {times} s (limit {limit:g} s)",
                     measured={"seeds": seeds, "run_s": times}))
    if case.key.hardness is None:
        return out
    name = case.key.hardness.anomaly_over_fix
    over = next((o for o in case.key.over_fixes if o.name == name), None)
    rejected = by_name.get(f"over_fix_rejected:{name}")
    related = [c for c in case.key.competitors if over and _stems(over.name + " " + over.description) & _stems(c)]
    ok = over is not None and rejected is not None and rejected.passed and bool(related)
    detail = (f"over-fix '{name}' " + ("rejected by the verifier" if rejected and rejected.passed else
                                       "NOT rejected by the verifier") +
              (f"; relates to competitor {related[0][:80]!r}" if related else
               "; its name and description share no content word with any competitor"))
    out.append(Check(case_id=case.id, name="hard_anomaly", passed=ok, detail=detail))
    return out
