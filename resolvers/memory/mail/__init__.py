"""Learning from mail (issue 11; seed 000 "Learning from mail"): mailboxes and their mail as a
partner posts them, and the exchanges opened on them once an hour for the Dreamer to read."""
