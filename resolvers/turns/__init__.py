"""What an agent reads each turn (DESIGN §7): cards and the turn context."""
