#!/usr/bin/env bash
# Chromium from the Debian archive, for the HTML report test (tests/harness/analysis/test_html_report.py drives it
# with Playwright's executable_path; Playwright's own browser download is not reachable from CI).
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
command -v chromium
