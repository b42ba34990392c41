"""Case authoring: ``validate`` and its checks, blind solves, conventions, hygiene, scaffolding and margins.
"""
