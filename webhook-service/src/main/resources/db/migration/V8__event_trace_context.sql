-- Issue 19, part 3 (traces): the trace context and request id an event arrived with, so every
-- delivery attempt of it joins the trace of the request that caused it (docs/tracing.md). Null for
-- events received before, and when the event carried none.
ALTER TABLE webhook_events ADD COLUMN traceparent text, ADD COLUMN request_id text;
