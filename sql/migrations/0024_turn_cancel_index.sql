-- A runner that missed a turn's cancel NOTIFY (its listener was reconnecting, or no runner held the
-- turn then) finds the request in the journal: its safety-net poll, and a runner picking the turn
-- up, ask for turn.cancel_requested on the sessions they hold. This index makes that a probe of a
-- few rows per session, whatever the size of the journal or of the session's own output.
create index events_turn_cancel_idx on dispatch.events (session_id) where event_type = 'turn.cancel_requested';
