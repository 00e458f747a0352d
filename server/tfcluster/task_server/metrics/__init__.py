"""A task server's Prometheus metrics: the families (families.py), the measured master and
worker that feed them (measured.py), failed calls counted at the transport
(error_counting.py), and the HTTP endpoint that serves them (endpoint.py, telemetry.py)."""
