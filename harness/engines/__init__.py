"""Other evaluation engines (Harbor, Inspect AI): export our cases to them (``harbor_export``) and bring their
results back (``harbor_import``, ``inspect_import``). This layer sits above analysis and validation and below the
command line: it may use any of the harness, and nothing of the harness uses it."""
