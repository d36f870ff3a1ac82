"""Skills (DESIGN §3): reading and writing them, how a version is made, the folder format, the
form check, lessons, polish and dormancy, transfer."""
