"""Tests of the Dreamer's pure foundation: cue words, the reader models, the rules reader."""
