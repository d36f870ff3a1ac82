"""The routes the official `anthropic` SDK speaks to (issue 14): skills, memory stores, dreams."""
