"""The Dreamer: the background pass that learns souvenirs from what people said (DESIGN §6)."""
