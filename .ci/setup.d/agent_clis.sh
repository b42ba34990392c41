#!/usr/bin/env bash
# Install the pinned agent CLIs (Claude Code, Codex) into the agents cache that the adapters and
# tests look in (docs/agents.md). About 760 MB, downloaded once: a cache hit skips the install.
# A failure only warns: the tests that need a CLI then skip, naming what is missing.
set -u
CLAUDE_CODE="@anthropic-ai/claude-code@2.1.328"
CODEX="@openai/codex@0.169.0"
DIR="${MLDB_AGENTS_DIR:-$HOME/.cache/ml-debug-bench/agents}"

have() {  # the pinned versions are already installed
    [ -x "$DIR/node_modules/.bin/claude" ] && [ -x "$DIR/node_modules/.bin/codex" ] &&
        "$DIR/node_modules/.bin/claude" --version 2>/dev/null | grep -q '^2\.1\.328 ' &&
        "$DIR/node_modules/.bin/codex" --version 2>/dev/null | grep -q '^codex-cli 0\.169\.0$'
}

# mini-swe-agent from PyPI, in its own venv (it brings litellm; the harness's venv stays lean)
MINI="mini-swe-agent==2.4.6"
if [ -x "$DIR/mini-swe-venv/bin/mini" ] && "$DIR/mini-swe-venv/bin/pip" show mini-swe-agent 2>/dev/null | grep -q '^Version: 2\.4\.6$'; then
    echo "mini-swe-agent: cached in $DIR/mini-swe-venv"
elif mkdir -p "$DIR" && python3 -m venv "$DIR/mini-swe-venv" && "$DIR/mini-swe-venv/bin/pip" install -q "$MINI"; then
    echo "mini-swe-agent: installed in $DIR/mini-swe-venv"
else
    echo "warning: installing $MINI into $DIR/mini-swe-venv failed; its test will skip" >&2
fi

if have; then
    echo "agent CLIs: cached in $DIR"
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "warning: npm not found; Claude Code and Codex tests will skip" >&2
    exit 0
fi
mkdir -p "$DIR"
[ -f "$DIR/package.json" ] || echo '{"name": "mldb-agent-clis", "private": true}' > "$DIR/package.json"
if npm install --prefix "$DIR" --no-audit --no-fund "$CLAUDE_CODE" "$CODEX" && have; then
    echo "agent CLIs: installed in $DIR"
else
    echo "warning: installing $CLAUDE_CODE $CODEX into $DIR failed; their tests will skip" >&2
fi
exit 0
