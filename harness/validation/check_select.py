"""``validate CASE --only CHECK[,CHECK]``: run only the checks of those names, for a fast loop while writing a case.

A pattern selects a check when it equals the check's whole name (``corpus_accept:alt_x``) or the part before its
``:`` (``corpus_reject`` selects every wrong fix of the corpus). Names are known before anything runs, so only the
selected checks' jobs run; the hard tier's derived checks bring the checks they are computed from.
"""

from __future__ import annotations

import random

from harness.core.errors import ConfigError

# The checks ``validate --sample N`` draws from: one patch's verdict each, many per case. Every other check
# (gold, broken, over-fixes, README output, agents, kernels, the hard tier's) always runs.
SAMPLED_KINDS = ("corpus_accept", "corpus_reject", "blind_solve_reverified", "verifier_recognising")

# The checks a derived check (computed after the others, ``validate.derived_hard_checks``) reads.
DERIVED_INPUTS = {"hard_seeds_reproduce": ("verifier_fails_on_broken", "broken_runs_in_budget", "hard_seed_runs"),
                  "hard_anomaly": ("over_fix_rejected",)}
FIXED_NAMES = {"check_leaks": ["leak_scan"], "check_entry_points": ["entry_points_exist"],
               "check_broken_fails": ["verifier_fails_on_broken"], "check_gold_passes": ["verifier_passes_on_gold"],
               "check_over_fixes": ["over_fixes_named"], "check_corpus_size": ["corpus_size"],
               "check_agents": ["reference_agent_scores_pass", "null_agent_scores_fail"],
               "check_grep_baseline": ["grep_baseline"], "check_hard_size": ["hard_size"],
               "check_hard_construct_hits": ["hard_construct_hits"], "check_hard_seed_runs": ["hard_seed_runs"],
               "check_stray_artifacts": ["stray_artifacts"], "check_placeholders": ["placeholders_filled"]}


def job_names(job: tuple) -> list[str]:
    """The names of the checks a validation job returns, from the job alone (nothing runs)."""
    fn, args = job
    name = getattr(fn, "__name__", "")
    if name in FIXED_NAMES:
        return FIXED_NAMES[name]
    if name == "check_runs":
        case = args[0]
        return ["broken_runs_in_budget"] + [f"readme_output_matches:block{r.block}"
                                            for r in (case.symptoms.run if case.symptoms else [None]) if r] + \
            ([] if case.symptoms else ["readme_output_matches"])
    if name == "check_patch_verdict":
        return [args[1]]
    if name == "check_over_fix":
        return [f"over_fix_rejected:{args[1].name}"]
    if name == "check_corpus_recognising":
        return [f"corpus_reject:{args[1].name}"]
    if name == "_under_kernel":  # validate --kernels: the same checks, named kernel[LEVEL]:NAME
        level, inner, inner_args = args
        return [f"kernel[{level}]:{n}" for n in job_names((inner, inner_args))]
    if name == "check_blind_solve":
        return [f"blind_solve_reverified:{args[1].name}"]
    if name == "check_blind_rule":
        return ["frontier_entry" if args[0].tier == "frontier" else "blind_solves_recorded"]
    if name == "check_generated_recognising":
        return [f"verifier_recognising:{args[1]}"]
    return [name]


def matches(name: str, pattern: str) -> bool:
    return pattern == name or pattern == name.split(":", 1)[0]


def wanted(name: str, only: list[str] | None) -> bool:
    return only is None or any(matches(name, p) for p in only)


def _with_inputs(only: list[str]) -> list[str]:
    """The patterns plus the inputs of any derived check they select."""
    extra = [dep for derived, deps in DERIVED_INPUTS.items() if any(matches(derived, p) for p in only) for dep in deps]
    return list(only) + extra


def select_jobs(jobs: list[tuple], only: list[str] | None) -> list[tuple]:
    """The jobs that produce a selected check (all of them when ``only`` is None)."""
    if only is None:
        return jobs
    patterns = _with_inputs(only)
    return [job for job in jobs if any(wanted(n, patterns) for n in job_names(job))]


def parse_only(text: str | None) -> list[str] | None:
    if not text:
        return None
    return [p.strip() for p in text.split(",") if p.strip()] or None


def check_patterns(only: list[str] | None, names: list[str]) -> None:
    """A pattern that selects no check of the cases is a usage error naming the checks there are."""
    if only is None:
        return
    unknown = [p for p in only if not any(matches(n, p) for n in names)]
    if unknown:
        known = sorted(dict.fromkeys(n.split(":", 1)[0] for n in names)) + sorted(n for n in names if ":" in n)
        raise ConfigError(f"--only {', '.join(unknown)}: no such check; known: {', '.join(known[:60])}"
                          + (" ..." if len(known) > 60 else ""))


def sampled_kind(name: str) -> bool:
    return name.split(":", 1)[0] in SAMPLED_KINDS


def sample_names(case_id: str, names: list[str], per_case: int, seed: int) -> set[str]:
    """``names`` with only ``per_case`` of the patch verdicts (``SAMPLED_KINDS``) kept: one correct fix when the
    case has any (an accept is what a too-strict verifier gets wrong), the rest drawn from every other patch. The
    draw depends on the seed and the case alone, so a failure seen under a seed is seen again under it."""
    pool = sorted(n for n in names if sampled_kind(n))
    rng = random.Random(f"{seed}:{case_id}")
    accepts = [n for n in pool if n.startswith("corpus_accept:")]
    chosen = set(rng.sample(accepts, 1)) if accepts and per_case > 0 else set()
    rest = [n for n in pool if n not in chosen]
    chosen |= set(rng.sample(rest, max(0, min(len(rest), per_case - len(chosen)))))
    return {n for n in names if not sampled_kind(n)} | chosen


def sampler(per_case: int, seed: int):
    """A ``validate_cases(select=...)`` that keeps every check but ``per_case`` drawn patch verdicts."""
    return lambda case, names: sample_names(case.id, names, per_case, seed)
