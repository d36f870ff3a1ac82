"""Memory stores (issue 14, items 3 and 4; seed 001): path-addressed UTF-8 memories with
immutable versions, and the workspace's memory presented as one read-only store."""
