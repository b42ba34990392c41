"""Running samples: the runner, resume, re-judging saved runs, sessions driven from outside and progress.
"""
