"""Records: reading, writing, the trash, values, objects, workspaces."""
