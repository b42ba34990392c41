"""The trees the agent works in and the hidden verifier reads: copies and diffs, snapshots, the private
read-only inputs, patches and the verifier itself. Imports ``harness.core`` and ``harness.isolation``.
"""
