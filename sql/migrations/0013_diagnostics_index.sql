-- Crash and restart counts (sql/functions/70_diagnostics.sql) read only the few diagnostic rows of
-- the journal: by type and day (GET /api/health/daily) and a server instance's latest start.
create index events_diagnostics_idx on dispatch.events (event_type, created_at)
  where event_type in ('client.error', 'server.started', 'server.stopped');
