"""OpenTelemetry traces of requests and of their SQL, off by default (``SKILLMEM_TRACING``):
``otlp`` exports over OTLP/HTTP to the endpoint the standard ``OTEL_EXPORTER_OTLP_*``
variables name, ``console`` prints spans (for a look on a development machine)."""

from __future__ import annotations

from opentelemetry.instrumentation.asyncpg import AsyncPGInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

OFF = "off"


def exporter_for(kind: str) -> SpanExporter:
    """The exporter a setting names."""
    if kind == "console":
        return ConsoleSpanExporter()
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()


def provider_for(kind: str, service_name: str) -> TracerProvider | None:
    """The tracer provider for the setting, or None when tracing is off."""
    if kind == OFF:
        return None
    return provider_with(BatchSpanProcessor(exporter_for(kind)), service_name)


def provider_with(processor: SpanProcessor, service_name: str) -> TracerProvider:
    provider = TracerProvider(resource=Resource.create({"service.name": service_name}))
    provider.add_span_processor(processor)
    return provider


def trace_sql(provider: TracerProvider) -> None:
    """A span for every statement asyncpg sends (the process's connections, all pools)."""
    instrumentor = AsyncPGInstrumentor()  # type: ignore[no-untyped-call]
    if not instrumentor.is_instrumented_by_opentelemetry:
        instrumentor.instrument(tracer_provider=provider)


def stop_tracing_sql() -> None:
    instrumentor = AsyncPGInstrumentor()  # type: ignore[no-untyped-call]
    if instrumentor.is_instrumented_by_opentelemetry:
        instrumentor.uninstrument()
