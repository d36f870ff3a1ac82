"""The HTTP surface: GraphQL over HTTP, the plain routes, the auth middleware."""
