-- Matching a tool call against the gate rules, re-applied on every migrate: the subject a pattern
-- reads, paths against the working directory, the rules in the order they are tried, the first match
-- and the dry run. Opening and deciding gates are in 60_gates.sql.

-- What a rule's pattern reads: the command, the path or the URL of a call, else its whole input.
create or replace function dispatch.gate_subject(tool text, input jsonb) returns text
  language sql immutable as $$
  select coalesce(input->>'command', input->>'file_path', input->>'notebook_path', input->>'path',
                  input->>'url', input->>'brief', input::text)
$$;

-- A path made absolute against base, '.' and '..' folded lexically (symlinks are not followed).
create or replace function dispatch.normalize_path(base text, p text) returns text
  language plpgsql immutable as $$
declare
  seg text;
  parts text[] := '{}';
begin
  if p is null then
    return null;
  end if;
  if left(p, 1) = '~' then
    return p; -- a home path is never under a working directory given as an absolute path
  end if;
  if left(p, 1) <> '/' then
    p := coalesce(base, '') || '/' || p;
  end if;
  foreach seg in array string_to_array(p, '/') loop
    if seg = '' or seg = '.' then
      continue;
    elsif seg = '..' then
      parts := parts[1:greatest(cardinality(parts) - 1, 0)];
    else
      parts := parts || seg;
    end if;
  end loop;
  return '/' || array_to_string(parts, '/');
end $$;

-- Whether p (absolute, or relative to cwd) lies outside cwd.
create or replace function dispatch.path_outside(cwd text, p text) returns boolean
  language plpgsql immutable as $$
declare
  c text := dispatch.normalize_path('/', cwd);
  n text := dispatch.normalize_path(cwd, p);
begin
  if p is null then
    return false;
  end if;
  if c is null then
    return true;
  end if;
  return c <> '/' and n <> c and left(n, length(c) + 1) <> c || '/';
end $$;

-- The rules that apply to a project, in the order they are tried: the project's own (its config's
-- `gates` list, then rows of gate_rules for it), then the rules for every project, by priority.
drop function if exists dispatch.gate_candidates(uuid);
create or replace function dispatch.gate_candidates(project_id uuid)
  returns table (id text, category text, tool text, pattern text, fact text, outside_cwd boolean, decision text,
                 reason text, timeout_minutes integer)
  language sql stable as $$
  select c.id, c.category, c.tool, c.pattern, c.fact, c.outside_cwd, c.decision, c.reason, c.timeout_minutes from (
    select coalesce(e.r->>'id', 'project.' || e.n) as id, coalesce(e.r->>'category', 'unverified') as category,
           coalesce(e.r->>'tool', '.*') as tool, e.r->>'pattern' as pattern, e.r->>'fact' as fact,
           coalesce((e.r->>'outside_cwd')::boolean, false) as outside_cwd, e.r->>'decision' as decision,
           coalesce(e.r->>'reason', 'a rule of this project') as reason, (e.r->>'timeout_minutes')::integer as timeout_minutes,
           0 as tier, e.n::integer as priority
      from dispatch.projects p
      cross join lateral jsonb_array_elements(
        case when jsonb_typeof(p.config->'gates') = 'array' then p.config->'gates' else '[]'::jsonb end)
        with ordinality as e(r, n)
     where p.id = gate_candidates.project_id and e.r->>'decision' in ('allow', 'ask', 'deny')
    union all
    select r.id, r.category, r.tool, r.pattern, r.fact, r.outside_cwd, r.decision, r.reason, r.timeout_minutes,
           case when r.project_id is null then 2 else 1 end, r.priority
      from dispatch.gate_rules r
     where r.enabled and (r.project_id is null or r.project_id = gate_candidates.project_id)
  ) c
  order by c.tier, c.priority, c.id
$$;

-- The first rule matching a call, or no row. A rule matches when its tool matches, its pattern (if
-- any) matches the subject, its fact (if any) matches one fact of the reading (core/gates/ reads the
-- call; without a reading no fact rule matches), and outside_cwd (if set) holds for the subject.
drop function if exists dispatch.gate_match(uuid, text, jsonb, text);
create or replace function dispatch.gate_match(project_id uuid, tool text, input jsonb, cwd text, reading jsonb default null)
  returns table (id text, category text, decision text, reason text, timeout_minutes integer, fact text)
  language plpgsql stable as $$
declare
  r record;
  subj text := dispatch.gate_subject(gate_match.tool, gate_match.input);
  facts text[] := coalesce(array(select jsonb_array_elements_text(
    case when jsonb_typeof(gate_match.reading->'facts') = 'array' then gate_match.reading->'facts' else '[]'::jsonb end)), '{}');
  hit text;
begin
  for r in select * from dispatch.gate_candidates(gate_match.project_id) loop
    continue when gate_match.tool !~ ('^(?:' || r.tool || ')$');
    continue when r.pattern is not null and (subj is null or subj !~* r.pattern);
    continue when r.outside_cwd and not dispatch.path_outside(gate_match.cwd, subj);
    hit := null;
    if r.fact is not null then
      select f into hit from unnest(facts) f where f ~* r.fact limit 1;
      continue when hit is null;
    end if;
    return query select r.id, r.category, r.decision, r.reason, r.timeout_minutes, hit;
    return;
  end loop;
end $$;

-- What the gate would answer for a call, with nothing opened or journalled (POST /api/gates/dry-run).
create or replace function dispatch.gate_dry_run(project_id uuid, tool text, input jsonb, cwd text, reading jsonb)
  returns jsonb language sql stable as $$
  select coalesce(
    (select jsonb_strip_nulls(jsonb_build_object('decision', m.decision, 'category', m.category, 'rule', m.id,
                                                 'reason', m.reason, 'fact', m.fact))
       from dispatch.gate_match(gate_dry_run.project_id, gate_dry_run.tool, gate_dry_run.input, gate_dry_run.cwd,
                                gate_dry_run.reading) m),
    jsonb_build_object('decision', 'pass'))
$$;
