"""Verifier bodies written once per bug family: what a case pair's measure.py and decide.py share.

A case's own halves keep only their entry points, settings and bounds, and import the rest from here
(``from families.NAME import ...``). The harness reads those imports to carry the module, with its
package path, into the verifier's private copy, the sandbox and the Harbor task (harness.core.cases).
Nothing here imports the agent's code; the measuring functions are called by measure.py, the deciding
ones by decide.py, as verifylib's are.
"""
