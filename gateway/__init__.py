"""The process: settings, the Starlette app, the auth middleware, the command line."""
