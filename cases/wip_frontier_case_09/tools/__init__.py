"""Command-line tools over the exports and saved runs.

Run each from the project folder as python -m tools.NAME."""
