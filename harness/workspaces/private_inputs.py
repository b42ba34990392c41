"""Read-only private copies of cases/ and answers/ for one run, with whole-tree hashes checked
before every grading.

Why: the agent's code runs during the episode and during grading. Under bubblewrap it cannot
see these copies at all; without it (``sandbox: none``) it could find and edit them, e.g. make
``verifylib.py`` pass everything for later samples. A copy taken at run start, read-only, and
re-hashed before each grading turns that into a stopped run with a clear message instead of
silently wrong scores. Editing the repository's own answers/ mid-run changes nothing: samples
are built and graded from the copy.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from harness.core.errors import IntegrityError
from harness.core.hashing import IGNORED_PARTS, sha256_tree

PARTS = ("cases", "answers")


def install_fingerprint() -> str:
    """What the harness and the interpreter run at start-up: the harness's own source, each site
    folder's listing, and the files Python executes on its own (``*.pth``, ``sitecustomize``,
    ``usercustomize``). Cheap (no walk of torch), so it can be re-checked before every grading;
    it catches code that plants a start-up hook or edits the grader in the unsandboxed fallback."""
    import hashlib
    import site
    import sysconfig

    h = hashlib.sha256()
    for package in ("harness", "judges"):
        folder = Path(__file__).resolve().parents[2] / package
        h.update(sha256_tree(folder).encode() if folder.is_dir() else b"-")
    folders = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], *site.getsitepackages()}
    for folder in sorted(Path(f) for f in folders if f):
        if not folder.is_dir():
            continue
        for entry in sorted(folder.iterdir()):
            h.update(entry.name.encode() + b"\0")
            if entry.suffix == ".pth" or entry.name in ("sitecustomize.py", "usercustomize.py"):
                h.update(hashlib.sha256(entry.read_bytes()).digest() if entry.is_file() else b"?")
    return h.hexdigest()


def _set_tree_writable(root: Path, writable: bool) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                os.chmod(p, 0o644 if writable else 0o444)
        os.chmod(dirpath, 0o755 if writable else 0o555)


class PrivateInputs:
    """``inputs/cases`` and ``inputs/answers`` under ``parent``; ``root`` is a project root for loading cases."""

    def __init__(self, source_root: Path, parent: Path):
        self.source_root = Path(source_root)
        self.root = Path(parent) / "inputs"
        self.sha256: dict[str, str] = {}
        ignore = shutil.ignore_patterns(*IGNORED_PARTS, "*.pyc")
        for part in PARTS:
            shutil.copytree(self.source_root / part, self.root / part, symlinks=True, ignore=ignore)
            self.sha256[part] = sha256_tree(self.root / part)
            if sha256_tree(self.source_root / part) != self.sha256[part]:
                raise IntegrityError(f"{self.source_root / part} changed while it was being copied; "
                                     "start the run again")
            _set_tree_writable(self.root / part, False)
        self.sha256["install"] = install_fingerprint()

    @classmethod
    def attach(cls, source_root: Path, parent: Path, sha256: dict[str, str]) -> "PrivateInputs":
        """The copy an earlier process made under ``parent``, with the hashes it recorded then: a
        ``session`` lives over many processes and every one checks the same copy against them."""
        self = cls.__new__(cls)
        self.source_root, self.root, self.sha256 = Path(source_root), Path(parent) / "inputs", dict(sha256)
        return self

    @property
    def answers_sha256(self) -> str:
        return self.sha256["answers"]

    @property
    def cases_sha256(self) -> str:
        return self.sha256["cases"]

    def check(self) -> None:
        """Raise IntegrityError naming what changed, if anything did."""
        for part, want in self.sha256.items():
            if part == "install":
                got = install_fingerprint()
                if got != want:
                    raise IntegrityError(
                        "the harness's source or the Python installation's start-up files (site-packages listing, "
                        "*.pth, sitecustomize) changed during the run: code run for an agent or by the verifier "
                        "wrote there. The run is stopped; use bubblewrap (--sandbox required) to prevent this.")
                continue
            got = sha256_tree(self.root / part) if (self.root / part).is_dir() else "missing"
            if got != want:
                raise IntegrityError(
                    f"the run's private copy of {part}/ changed (tree hash {want[:12]} -> {got[:12]}) "
                    f"at {self.root / part}: "
                    "code run for an agent or by the verifier wrote to it. The run is stopped; samples graded before "
                    "this point are kept, nothing after it could be trusted. Use bubblewrap (--sandbox required) to "
                    "prevent this rather than detect it.")

    def remove(self) -> None:
        if self.root.exists():
            _set_tree_writable(self.root, True)
            shutil.rmtree(self.root, ignore_errors=True)
