"""Tests of memory's upkeep: the Monday removal and the cleanup runs operators see."""
