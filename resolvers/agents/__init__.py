"""Agents: their tool groups, created and configured by admins."""
