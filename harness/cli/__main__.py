"""``python -m harness.cli``: what the ``ml-debug-bench`` script runs."""

import sys

from harness.cli import main

sys.exit(main())
