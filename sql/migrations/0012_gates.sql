-- Hard gates (the plan's "Autonomous-mode gates"): rules as data, the gates they open, and the
-- per-session credential a worker's PreToolUse hook uses to ask for a decision. A parked task holds
-- no process: everything a decision needs lives in these rows, so a gate survives any restart.

-- The plan's eight categories, plus the gates that are not a worker's tool call (an interactive
-- spawn, a ruled-out approach overridden) and a call the hook could not get checked.
create table dispatch.gate_categories (
  name        text primary key check (name ~ '^[a-z][a-z0-9_]*$'),
  description text not null
);

insert into dispatch.gate_categories (name, description) values
  ('outside_project', 'writes outside the project tree (the task''s working directory)'),
  ('privilege', 'sudo and other privilege escalation'),
  ('network_config', 'network-facing configuration: firewalls, routes, proxies, DNS, ssh'),
  ('secrets', 'secrets touched: .env files, keys, certificates, credentials'),
  ('destructive', 'destructive data operations: recursive deletes, dropped tables, wiped disks'),
  ('git_beyond_branch', 'git operations beyond the working branch: push, rebase, tags, branch deletion'),
  ('dependencies', 'dependency and package additions'),
  ('cross_service', 'changes reaching other services: deploys, clusters, clouds, remote hosts'),
  ('interactive_spawn', 'interactive mode: the person approves each worker the orchestrator asks for'),
  ('ruled_out_override', 'the orchestrator asked to run an approach a prior handoff ruled out'),
  ('unverified', 'the gate hook could not reach dispatch, so the call was deferred unchecked');

-- A rule: which tool, which input, what to decide. The first matching rule wins (project rules
-- from the project's config first, then this table by priority). The subject a pattern reads is the
-- call's command (Bash), its path (file tools) or its URL; see dispatch.gate_subject.
create table dispatch.gate_rules (
  id              text primary key default 'rule_' || substr(md5(random()::text), 1, 10)
                    check (id ~ '^[a-z0-9][a-z0-9_.-]*$'),
  category        text not null references dispatch.gate_categories,
  tool            text not null default '.*',  -- regular expression on the tool name, anchored
  pattern         text,                        -- case-insensitive regular expression on the subject; null = any
  outside_cwd     boolean not null default false, -- matches only a path outside the task's working directory
  decision        text not null check (decision in ('allow', 'ask', 'deny')),
  reason          text not null check (length(btrim(reason)) > 0),
  priority        integer not null default 100, -- lower is tried first
  timeout_minutes integer check (timeout_minutes > 0), -- an open gate is denied after this long
  project_id      uuid references dispatch.projects, -- null: every project
  enabled         boolean not null default true,
  created_at      timestamptz not null default now()
);
create index gate_rules_order_idx on dispatch.gate_rules (priority, id) where enabled;

-- Regular expressions are checked when the rule is written, not when a worker asks.
create function dispatch.gate_rule_check() returns trigger
  language plpgsql volatile as $$
begin
  perform '' ~ ('^(?:' || new.tool || ')$');
  if new.pattern is not null then
    perform '' ~* new.pattern;
  end if;
  return new;
end $$;
create trigger gate_rules_check before insert or update on dispatch.gate_rules
  for each row execute function dispatch.gate_rule_check();

insert into dispatch.gate_rules (id, category, tool, pattern, outside_cwd, decision, priority, reason) values
  -- Refused outright: the model hears the reason and carries on.
  ('destructive.rm-root', 'destructive', 'Bash',
   '\mrm\s+(-[a-z]*\s+)*-[a-z]*(r[a-z]*f|f[a-z]*r)[a-z]*\s+(-[a-z-]+\s+)*(/|/\*|~|~/|\$HOME|/(etc|usr|bin|boot|home|root|var|lib))/?(\s|$|;|&|\|)',
   false, 'deny', 10, 'recursive delete of the root, home or a system folder is never allowed'),
  ('destructive.mkfs', 'destructive', 'Bash', '\m(mkfs(\.\w+)?|dd\s+[^|;&]*of=/dev/)', false, 'deny', 10,
   'formatting or overwriting a disk is never allowed'),
  -- Parked for a person.
  ('privilege.sudo', 'privilege', 'Bash', '(^|[;&|(`]\s*|\s)(sudo|doas|pkexec|su)(\s|$)', false, 'ask', 20,
   'runs a command with elevated privileges'),
  ('privilege.setuid', 'privilege', 'Bash', '\mchmod\s+[^|;&]*[ugoa]*\+[a-z]*s|\mchown\s+[^|;&]*root', false, 'ask', 20,
   'changes ownership or setuid bits'),
  ('secrets.file', 'secrets', 'Read|Write|Edit|MultiEdit|NotebookEdit',
   '(^|/)(\.env(\.[^/]*)?|[^/]*\.(pem|key|p12|pfx|keystore|jks)|id_[a-z0-9_]+(\.pub)?|credentials(\.json)?|\.netrc|\.npmrc|\.pgpass|secrets?\.(json|ya?ml|toml))$',
   false, 'ask', 30, 'touches a secrets file'),
  ('secrets.bash', 'secrets', 'Bash',
   '(^|[\s/''"=])(\.env(\.\w+)?|[\w.-]*\.pem|[\w.-]*\.key|id_(rsa|ed25519|ecdsa|dsa)|\.netrc|\.pgpass|\.aws/credentials)(\s|$|[''";|&)])',
   false, 'ask', 30, 'reads or writes a secrets file'),
  ('outside.write', 'outside_project', 'Write|Edit|MultiEdit|NotebookEdit', null, true, 'ask', 40,
   'writes outside the task''s working directory'),
  ('git.push', 'git_beyond_branch', 'Bash',
   '\mgit\s+(-[cC]\s+\S+\s+)*(push|rebase|tag|remote\s+(add|set-url|remove)|branch\s+(-[a-z]*[dDmM]|--delete|--move)|reset\s+--hard|filter-branch|update-ref)\M',
   false, 'ask', 50, 'a git operation beyond the working branch'),
  ('dependencies.install', 'dependencies', 'Bash',
   '\m((npm|pnpm|bun)\s+(install|i|add)|yarn\s+add|yarn\s+install|pip3?\s+install|python3?\s+-m\s+pip\s+install|uv\s+(add|pip\s+install)|poetry\s+add|cargo\s+(add|install)|go\s+(get|install)|gem\s+install|apt(-get)?\s+install|brew\s+install|composer\s+require)\M',
   false, 'ask', 60, 'adds or installs a dependency'),
  ('network.config', 'network_config', 'Bash',
   '\m(iptables|ip6tables|nft|ufw|firewall-cmd|ip\s+(route|addr|link)|ifconfig|systemctl\s+(enable|disable|start|stop|restart)|tailscale|wg(-quick)?)\M|/etc/(hosts|resolv\.conf|nginx|ssh|network)',
   false, 'ask', 70, 'changes network-facing configuration'),
  ('network.config-file', 'network_config', 'Write|Edit|MultiEdit',
   '(^|/)(nginx[^/]*\.conf|Caddyfile|traefik[^/]*\.(ya?ml|toml)|\.ssh/[^/]+|sshd_config|docker-compose[^/]*\.ya?ml|compose\.ya?ml)$',
   false, 'ask', 70, 'edits network-facing configuration'),
  ('destructive.data', 'destructive', 'Bash',
   '\m(rm\s+(-[a-z]*\s+)*-[a-z]*(r[a-z]*f|f[a-z]*r)|drop\s+(table|database|schema)|truncate\s+(table\s+)?\w|git\s+clean\s+-[a-z]*f|shred)\M',
   false, 'ask', 80, 'a destructive data operation'),
  ('cross_service.remote', 'cross_service', 'Bash',
   '\m(kubectl|helm|terraform|pulumi|ansible(-playbook)?|aws|gcloud|az|flyctl|heroku|vercel|ssh|scp|rsync\s+[^|;&]*:|docker\s+(push|login)|gh\s+(pr\s+merge|release|repo\s+(delete|edit)))\M',
   false, 'ask', 90, 'reaches another service'),
  ('cross_service.http-write', 'cross_service', 'Bash',
   '\mcurl\M[^|;&]*(-X\s*(POST|PUT|PATCH|DELETE)|--request\s+(POST|PUT|PATCH|DELETE)|(\s|^)-d\s|--data)', false, 'ask', 90,
   'sends a write request to another service');

-- One gate: a call (or a spawn) that waits for a person. `input` is what will run, as asked.
create table dispatch.gates (
  id              uuid primary key default gen_random_uuid(),
  project_id      uuid not null references dispatch.projects,
  task_id         uuid references dispatch.tasks,
  session_id      uuid references dispatch.sessions,
  kind            text not null default 'tool' check (kind in ('tool', 'spawn')),
  category        text not null,
  rule            text,            -- the id of the rule that opened it (a project rule: its own id)
  tool            text not null,
  input           jsonb not null,
  subject         text,            -- what will run: the command, the path, the brief
  tool_use_id     text,            -- the substrate's id of the call: the resumed run asks again with it
  status          text not null default 'open' check (status in ('open', 'approved', 'denied', 'expired')),
  reason          text not null,   -- why it was gated
  decision_reason text,            -- the person's reason
  decided_by      text,
  decided_via     text,
  created_at      timestamptz not null default now(),
  decided_at      timestamptz,
  expires_at      timestamptz,
  check ((status = 'open') = (decided_at is null))
);
create unique index gates_call_key on dispatch.gates (task_id, tool_use_id) where tool_use_id is not null;
create index gates_open_idx on dispatch.gates (created_at desc) where status = 'open';
create index gates_task_idx on dispatch.gates (task_id, created_at desc);
create index gates_expiry_idx on dispatch.gates (expires_at) where status = 'open' and expires_at is not null;

-- The credential of one session's gate hook: it may ask about that session's calls, nothing else.
create table dispatch.gate_tokens (
  token_sha256 text primary key,
  session_id   uuid not null references dispatch.sessions,
  cwd          text not null,
  created_at   timestamptz not null default now(),
  expires_at   timestamptz not null default now() + interval '7 days'
);

insert into dispatch.event_types (name, tier, description) values
  ('gate.checked', 'raw', 'a gate rule matched a tool call (decision, rule, category, subject)'),
  ('gate.requested', 'raw', 'a gate opened: a call or a spawn waits for a person (gate_id)'),
  ('gate.decided', 'raw', 'a gate was decided: approved, denied or expired (gate_id, who, from where)');

-- The decision-doc contract (autonomous mode): auditable without re-reading transcripts. The
-- rule-out for the other options is the existing ruled_out field.
insert into dispatch.contract (field_key, required, read_by, semantics, shape) values
  ('decision_point', false, '{orchestrator,user}',
   'Autonomous mode: the decision the worker had to make on its own, in one sentence.',
   '{"type": "string"}'),
  ('chosen_option', false, '{orchestrator,user}',
   'Autonomous mode: the option the worker chose at that decision point, and why (the others go in ruled_out).',
   '{"type": "string"}'),
  ('gate_triggers', false, '{orchestrator,user}',
   'Autonomous mode: what would have triggered a hard gate (e.g. pushing, installing a dependency), each one line; empty when nothing came near one.',
   '{"type": "array", "items": {"type": "string"}}');
