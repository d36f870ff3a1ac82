"""What an operator sees of the process: Prometheus metrics, JSON logs, OpenTelemetry traces."""
