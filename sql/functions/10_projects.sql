-- Project functions, re-applied on every migrate (create or replace).

create or replace function dispatch.create_project(name text, config jsonb default '{}'::jsonb) returns uuid
  language plpgsql volatile as $$
declare
  new_id uuid;
begin
  insert into dispatch.projects (name, config) values (btrim(create_project.name), coalesce(create_project.config, '{}'::jsonb)) returning id into new_id;
  insert into dispatch.events (project_id, event_type, payload)
    values (new_id, 'project.created', jsonb_build_object('name', btrim(create_project.name)));
  return new_id;
end $$;

comment on function dispatch.create_project(text, jsonb) is
  'Creates a project and journals project.created; returns its id. A name already taken fails with 23505.';
