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

create or replace function dispatch.update_project(project_id uuid, name text default null, config jsonb default null) returns void
  language plpgsql volatile as $$
declare
  p dispatch.projects;
begin
  update dispatch.projects
     set name = coalesce(btrim(update_project.name), projects.name),
         config = coalesce(update_project.config, projects.config)
   where id = update_project.project_id
   returning * into p;
  if not found then
    raise exception 'no project %', update_project.project_id using errcode = 'P0002';
  end if;
  insert into dispatch.events (project_id, event_type, payload)
    values (p.id, 'project.updated', jsonb_build_object('name', p.name, 'config', p.config));
end $$;

comment on function dispatch.update_project(uuid, text, jsonb) is
  'Renames a project and/or replaces its config (null keeps either), journalling project.updated. A name already taken fails with 23505.';
