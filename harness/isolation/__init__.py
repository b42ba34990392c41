"""Where the agent's code runs: the sandbox, command execution, cgroups, CPU slots, clean shutdown and the
torch kernel level. Imports only ``harness.core``.
"""
