"""Agents and their tool groups: the agents query, createAgent and setAgentToolGroups."""
