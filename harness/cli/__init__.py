# isort: skip_file
# (the imports below register the commands in the order --help lists them)
"""The command line: the only package that parses arguments and prints for people. Each module registers its
commands on the one typer app (``harness.cli.common.app``), in the order ``--help`` lists them, and calls the
library (``harness.api``)."""

from harness.cli import run  # noqa: F401  (run, resume)
from harness.cli import cases  # noqa: F401  (validate, verify, new-case, cases)
from harness.cli import judge  # noqa: F401  (judge, judge-eval, import-seed)
from harness.cli import blind, results, session  # noqa: F401  (blind ..., report, compare, gate, leaderboard, session ...)
from harness.cli import imports  # noqa: F401  (import harbor, import inspect)
from harness.cli import export  # noqa: F401  (export harbor)
from harness.cli.common import app


def main() -> None:  # pragma: no cover
    app(prog_name="ml-debug-bench")
