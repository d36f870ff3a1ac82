"""The fault and load tests of issue 16 (item 2), run by `make soak`: six scenarios against real
gateway and worker processes on an embedded PostgreSQL of their own, each printing its figures;
`python -m bench.soak` writes RELIABILITY.md. Every run is bounded in time and count and sends
traffic to 127.0.0.1 only."""
