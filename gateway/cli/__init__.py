"""The `skillmem` command line."""
