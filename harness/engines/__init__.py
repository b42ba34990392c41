"""Other engines' formats: export the cases as Harbor tasks (``harbor_export``) so a run can go to a
cloud at scale. This layer sits above analysis and validation and below the command line: it may use
any of the harness, and nothing of the harness uses it."""
