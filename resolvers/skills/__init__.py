"""Skills (DESIGN §3): the service, the folder format, the form check, transfer."""
