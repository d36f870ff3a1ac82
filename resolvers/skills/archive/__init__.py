"""Skill archives in and out: reading zip and tar, writing."""
