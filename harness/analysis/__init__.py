"""Reading finished runs: tables, statistics, comparisons, the leaderboard and HTML reports.
"""
