"""Unified diffs as text: the parts every layer shares (the harness records diffs, the judges read them).

``parse_diff`` is the one reader of unified diffs: every judge that reads a diff (``judges.hunks``,
``judges.tampering``, ``judges.fallback``) reads it through these records, so they agree on where a file
and a hunk start. ``shrink_diff`` shortens a diff for a ``file_edit`` event and marks what it cut with
``CUT_MARK`` lines, which the parser keeps as markers (``judges.hunks`` reads them back).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

EDIT_DIFF_CAP = 64 * 1024  # one file_edit event's diff, head and tail kept
CUT_MARK = "[... "  # starts every line the harness puts in a shrunk diff; never a diff line of its own
MAX_KEPT_HUNKS = 400  # hunk headers kept in one shrunk diff; more are counted in a marker


def _is_code(line: str) -> bool:
    body = line[1:].strip()
    return bool(body) and not body.startswith(("#", "//"))


def shrink_diff(diff: str, cap: int = EDIT_DIFF_CAP) -> str:
    """A diff over ``cap`` shortened hunk by hunk, never by dropping hunks from the middle: context lines
    go first, then each hunk keeps its header and as many changed lines as fit, code before
    comments and blank lines, with a marker saying how
    many it lost (``judges.hunks`` reads the markers: a hunk it cannot see whole is not labelled as if
    it could). An agent that pads an edit with hundreds of lines cannot hide a second change in it."""
    head, hunks = [], []
    for line in diff.splitlines(keepends=True):
        if line.startswith("@@"):
            hunks.append([line])
        elif hunks:
            hunks[-1].append(line)
        else:
            head.append(line)
    extra = len(hunks) - MAX_KEPT_HUNKS
    hunks = hunks[:MAX_KEPT_HUNKS]
    changed = [[ln for ln in h[1:] if ln[:1] in "+-\\"] for h in hunks]
    budget = max(8, (cap - sum(map(len, head)) - sum(len(h[0]) for h in hunks)) // max(1, len(hunks)))
    out = list(head)
    for h, lines in zip(hunks, changed):
        out.append(h[0])
        order = sorted(range(len(lines)), key=lambda i: (not _is_code(lines[i]), i))  # code lines first
        keep, size = set(), 0
        for i in order:
            if size + len(lines[i]) > budget:
                break
            keep.add(i)
            size += len(lines[i])
        kept = [ln if ln.endswith("\n") else ln + "\n" for i, ln in enumerate(lines) if i in keep]
        out += kept
        dropped_context = len(h) - 1 - len(lines)
        if len(kept) < len(lines):
            out.append(f"{CUT_MARK}{len(lines) - len(kept)} changed lines of this hunk cut by the harness ...]\n")
        elif dropped_context:
            out.append(f"{CUT_MARK}{dropped_context} context lines of this hunk left out by the harness ...]\n")
    if extra > 0:
        out.append(f"{CUT_MARK}{extra} more hunks of this diff cut by the harness ...]\n")
    return "".join(out)


# --- reading a diff --------------------------------------------------------------------------------------------

HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
# the harness's own notices for a file whose content a diff cannot show (workspace.diff_trees, snapshot.file_diff)
UNSHOWN = re.compile(r"^(?:Binary or large file|File with an undecodable name) (.+) differs$")
UNSHOWN_EDIT = re.compile(r"^Binary, large or special file (.+) (created|deleted|changed)$")
GIT_BINARY = re.compile(r"^Binary files (.+) and (.+) differ$")
# ends a line for str.splitlines (so in every diff the harness makes and reads) but not for Python: in a file holding
# one, the diff's lines and line numbers are not Python's (judges read such a file itself, not the diff's view of it)
SPLIT_ONLY_IN_DIFFS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
MODES = ("new file mode ", "deleted file mode ", "old mode ", "new mode ")


class Hunk(BaseModel):
    """One ``@@`` section. ``lines`` keep their '+', '-', ' ' and '\\\\' prefixes; an empty line is kept as it is
    (an empty context line to ``git apply``), and the harness's ``CUT_MARK`` lines stay where they were, as
    markers: a reader can tell a hunk it cannot see whole. A length left out of the header is 1."""

    old_start: int
    old_len: int
    new_start: int
    new_len: int
    lines: list[str] = Field(default_factory=list)
    header: bool = Field(default=True, description="False: changed lines a malformed diff has after a file's "
                                                   "'+++' line with no '@@' line; read as if at the file's top")


class FileDiff(BaseModel):
    """One file's part of a diff. Paths lose git's ``a/`` (old) and ``b/`` (new) prefixes; ``/dev/null`` is None.
    ``is_binary``: the diff does not show the content (git's binary notice, or the harness's for a binary, large
    or undecodable file). ``markers``: ``CUT_MARK`` lines met before the file's first hunk."""

    old_path: str | None = None
    new_path: str | None = None
    hunks: list[Hunk] = Field(default_factory=list)
    is_new: bool = False
    is_deleted: bool = False
    is_binary: bool = False
    old_mode: str | None = None
    new_mode: str | None = None
    markers: list[str] = Field(default_factory=list)

    @property
    def path(self) -> str | None:
        """The file's name after the diff; the old name for a deleted file."""
        return self.new_path if self.new_path is not None else self.old_path


def is_marker(line: str) -> bool:
    return line.startswith(CUT_MARK)


def _header_path(raw: str, prefix: str) -> str | None:
    name = raw[4:].split("\t")[0].strip()
    return None if name == "/dev/null" else name.removeprefix(prefix)


def _git_paths(raw: str) -> tuple[str, str]:
    """(old, new) of a ``diff --git a/X b/Y`` line; a name holding " b/" is read right when both sides agree."""
    rest = raw[len("diff --git "):]
    half = (len(rest) - 5) // 2
    if half > 0 and rest == f"a/{rest[2:2 + half]} b/{rest[2:2 + half]}":
        return rest[2:2 + half], rest[2:2 + half]
    old, _, new = rest.partition(" b/")
    return old.removeprefix("a/"), new or old


class _Reader:
    """The state of one pass over a diff's lines."""

    def __init__(self):
        self.files: list[FileDiff] = []
        self.file: FileDiff | None = None
        self.hunk: Hunk | None = None
        self.seen: set[str] = set()  # header lines ('---', '+++') the current file has had
        self.old_left = self.new_left = 0  # lines the open hunk's header still promises on each side

    def start_file(self, **fields) -> FileDiff:
        self.file, self.hunk, self.seen = FileDiff(**fields), None, set()
        self.files.append(self.file)
        return self.file

    def current(self) -> FileDiff:
        return self.file if self.file is not None else self.start_file()

    def is_body(self, raw: str) -> bool:
        """A line of the open hunk. '--- x' and '+++ x' are header lines unless the hunk still promises a line of
        that side (a removed '-- x' or an added '++ x' is content, not the next file)."""
        if self.hunk is None:
            return False
        if raw.startswith("--- "):
            return self.old_left > 0
        if raw.startswith("+++ "):
            return self.new_left > 0
        return raw[:1] in ("+", "-", " ", "\\") or raw == ""

    def opens_headerless_hunk(self, raw: str) -> bool:
        """A changed line right after a file's '+++' line, with no '@@' before it: a diff that leaves out '@@' still
        adds its lines (they are read as if at the top of the file)."""
        return (self.hunk is None and "+++" in self.seen and not self.file.hunks
                and not raw.startswith(("--- ", "+++ "))
                and (raw[:1] in ("+", "-", " ", "\\") or raw == ""))

    def body(self, raw: str) -> None:
        self.hunk.lines.append(raw)
        if raw[:1] in ("-", " ", ""):
            self.old_left -= 1
        if raw[:1] in ("+", " ", ""):
            self.new_left -= 1

    def line(self, raw: str) -> None:
        if is_marker(raw):
            (self.hunk.lines if self.hunk is not None else self.current().markers).append(raw)
        elif self.is_body(raw):
            self.body(raw)
        elif self.opens_headerless_hunk(raw):
            self.hunk = Hunk(old_start=0, old_len=0, new_start=0, new_len=0, header=False)
            self.file.hunks.append(self.hunk)
            self.body(raw)
        elif m := HUNK_HEADER.match(raw):
            old_len, new_len = (int(g) if g is not None else 1 for g in (m.group(2), m.group(4)))
            self.hunk = Hunk(old_start=int(m.group(1)), old_len=old_len, new_start=int(m.group(3)), new_len=new_len)
            self.current().hunks.append(self.hunk)
            self.old_left, self.new_left = old_len, new_len
        elif raw.startswith("diff --git "):
            old, new = _git_paths(raw)
            self.start_file(old_path=old, new_path=new)
        elif raw.startswith(("--- ", "+++ ")):
            side = raw[:3]
            if (self.file is None or self.file.hunks or self.file.is_binary or side in self.seen
                    or (side == "---" and "+++" in self.seen)):
                self.start_file()
            self.seen.add(side)
            self.hunk = None
            path = _header_path(raw, "a/" if side == "---" else "b/")
            if side == "---":
                self.file.old_path, self.file.is_new = path, self.file.is_new or path is None
            else:
                self.file.new_path, self.file.is_deleted = path, self.file.is_deleted or path is None
        elif raw.startswith(MODES) and self.file is not None:
            mode = raw.rsplit(" ", 1)[-1]
            if raw.startswith(("new file mode ", "new mode ")):
                self.file.new_mode = mode
            else:
                self.file.old_mode = mode
            self.file.is_new |= raw.startswith("new file mode ")
            self.file.is_deleted |= raw.startswith("deleted file mode ")
        elif raw.startswith(("rename from ", "rename to ")) and self.file is not None:
            name = raw.split(" ", 2)[2]
            if raw.startswith("rename from "):
                self.file.old_path = name
            else:
                self.file.new_path = name
        elif (m := UNSHOWN.match(raw)) or (m := UNSHOWN_EDIT.match(raw)):
            what = m.group(2) if m.re is UNSHOWN_EDIT else "changed"
            self.start_file(old_path=None if what == "created" else m.group(1),
                            new_path=None if what == "deleted" else m.group(1),
                            is_new=what == "created", is_deleted=what == "deleted", is_binary=True)
        elif (GIT_BINARY.match(raw) or raw == "GIT binary patch") and self.file is not None:
            self.file.is_binary = True
        # anything else (git's index lines, chatter, a malformed '@@') is skipped, and an open hunk stays open


def parse_diff(text: str) -> list[FileDiff]:
    """The files of a unified diff (git's or difflib's), in order. Never raises: agent-made text is read as far as
    it is a diff, and lines that are not are skipped. A hunk with no file header before it gets a file without
    paths; so do ``CUT_MARK`` lines outside any file. Lines are split as ``str.splitlines`` splits them."""
    reader = _Reader()
    for raw in text.splitlines():
        reader.line(raw)
    return reader.files
