"""What every domain shares: errors, global ids, the clock, principals."""
