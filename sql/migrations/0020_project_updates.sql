-- A project's name and config can change from the client (PATCH /api/projects/:id): the change is
-- journalled as project.updated, so every open client follows it and the history says who set what.
insert into dispatch.event_types (name, tier, description) values
  ('project.updated', 'raw', 'a project''s name or config changed (payload: name, config)');
