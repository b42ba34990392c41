"""Typed errors. Library code raises these; only the CLI turns them into messages and exit codes."""


class BenchError(Exception):
    """Base for every error the harness raises on purpose."""


class InputError(BenchError):
    """A file the user gave us is missing or malformed. The message names the file and the field."""

    def __init__(self, path, message: str, field: str | None = None):
        self.path = str(path)
        self.field = field
        where = f"{self.path}" + (f": field '{field}'" if field else "")
        super().__init__(f"{where}: {message}")


class InfraError(BenchError):
    """The harness itself could not do its job (workspace, exec, sandbox)."""


class ConfigError(BenchError):
    """A setting or flag is wrong or missing (API key, unknown agent, ...)."""


class RunAborted(BenchError):
    """The run stopped before its plan finished because going on could only fail the same way
    (e.g. the API refused the key). Everything recorded so far is kept in ``run_dir``."""

    def __init__(self, message: str, run_dir):
        self.run_dir = run_dir
        super().__init__(message)


class IntegrityError(BenchError):
    """The private copy of the cases or answers changed during a run: code we ran wrote to it.
    Nothing graded after that point could be trusted, so the run stops."""


class RunInterrupted(BenchError):
    """SIGINT or SIGTERM stopped the run. Finished samples are recorded; ``interrupted`` lists the ones
    cut short, which ``resume`` redoes (their partial transcripts are kept as attempts)."""

    def __init__(self, run_dir, finished: int, interrupted: list[str]):
        self.run_dir = run_dir
        self.finished = finished
        self.interrupted = list(interrupted)
        super().__init__(f"run interrupted: {finished} sample(s) finished this time, {len(self.interrupted)} "
                         f"cut short; everything recorded is kept in {run_dir}")
