"""The catalogue (DESIGN §4): the skills the product ships, and where skills are found."""
