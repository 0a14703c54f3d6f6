-- Gates read what a call does, not how it is spelled: a rule may match a fact of the call's reading
-- (core/gates/: the programs a Bash command runs after its wrappers, the paths it touches resolved
-- against the working tree, variables revealed, packages installed, git refs moved, SQL sent, what
-- could not be read). The defaults are replaced by rules over those facts; docs/gates.md lists them.
alter table dispatch.gate_rules add column fact text; -- case-insensitive regular expression on one fact; null = any

delete from dispatch.gate_rules where project_id is null and id in (
  'destructive.rm-root', 'destructive.mkfs', 'privilege.sudo', 'privilege.setuid', 'secrets.file', 'secrets.bash',
  'outside.write', 'git.push', 'dependencies.install', 'network.config', 'network.config-file', 'destructive.data',
  'cross_service.remote', 'cross_service.http-write');

insert into dispatch.gate_rules (id, category, tool, fact, decision, priority, reason) values
  ('unverified.unreadable', 'unverified', '.*', '^unverified ', 'ask', 5,
   'the gate cannot read what this call would do, so a person decides'),
  ('destructive.rm-root', 'destructive', '.*', '^delete-r outside (/[^/]*|/home/[^/]+|/Users/[^/]+)/?$', 'deny', 10,
   'recursive delete of the root, home or a system folder is never allowed'),
  ('destructive.mkfs', 'destructive', '.*', '^run (mkfs(\.\w+)?|wipefs|sfdisk|fdisk|parted)( |$)|^write \w+ /dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|loop)', 'deny', 10,
   'formatting or overwriting a disk is never allowed'),
  ('privilege.sudo', 'privilege', '.*', '^run (sudo|doas|pkexec|su|runuser|sg)( |$)', 'ask', 20,
   'runs a command with elevated privileges'),
  ('privilege.setuid', 'privilege', '.*', '^run chmod (.* )?([ugoa]*\+[rwxt]*s|[2467][0-7]{3})( |$)|^run (chown|chgrp) (.* )?root\M|^run setcap ', 'ask', 20,
   'changes ownership, setuid bits or capabilities'),
  ('secrets.env', 'secrets', '.*', '^env (\*|[a-z0-9_]*(token|key|secret|passw(or)?d|pass|credentials?|auth|cookie|session)[a-z0-9_]*)$', 'ask', 30,
   'reveals secret environment variables'),
  ('secrets.path', 'secrets', '.*',
   '^(read|write|delete|delete-r) \w+ ((.*/)?(\.env(\.(?!(example|sample|template|dist)$)[^/]+)?|[^/]*\.(pem|key|p12|pfx|keystore|jks|kdbx|asc)|id_(rsa|ed25519|ecdsa|dsa)(\.pub)?|\.netrc|\.npmrc|\.pypirc|\.pgpass|\.git-credentials|\.?credentials(\.json)?|secrets?\.(json|ya?ml|toml)|\.claude\.json)|.*/\.(aws|ssh|gnupg|kube|docker)/.*|.*/\.config/(gh|gcloud)/.*|/proc/[^/]+/environ)$',
   'ask', 30, 'touches a secrets file'),
  ('network.config-file', 'network_config', '.*',
   '^write \w+ ((.*/)?(nginx[^/]*\.conf|Caddyfile|traefik[^/]*\.(ya?ml|toml)|sshd?_config|docker-compose[^/]*\.ya?ml|compose\.ya?ml)|/etc/(hosts|resolv\.conf|nginx|ssh|network|netplan|iptables|nftables|systemd)(/.*)?)$',
   'ask', 35, 'edits network-facing configuration'),
  ('outside.write', 'outside_project', '.*', '^(write|delete|delete-r) outside ', 'ask', 40,
   'writes outside the task''s working directory'),
  ('git.beyond-branch', 'git_beyond_branch', '.*', '^(git-ref other|git-push|git-config global|git-remote|git-rewrite|git-checkout other) ', 'ask', 50,
   'a git operation beyond the working branch'),
  ('dependencies.install', 'dependencies', '.*', '^install ', 'ask', 60, 'adds or installs a dependency'),
  ('dependencies.manifest', 'dependencies', '.*', '^adds-dependency ', 'ask', 60, 'adds a dependency to a manifest'),
  ('dependencies.manifest-shell', 'dependencies', 'Bash', '^write \w+ .*/(package\.json|requirements[^/]*\.txt|pyproject\.toml|Cargo\.toml|go\.mod|Gemfile)$', 'ask', 60,
   'edits a dependency manifest from the shell (the change cannot be compared)'),
  ('network.config', 'network_config', '.*',
   '^run (iptables|ip6tables|nft|ufw|firewall-cmd|ifconfig|route|tailscale|wg|wg-quick|netplan|nmcli|resolvectl)( |$)|^run ip (-\S+ )*(route|r|addr|address|a|link|l|rule|neigh|n) (add|del|delete|set|flush|change|replace|append)\M|^listen ',
   'ask', 70, 'changes network-facing configuration or opens a listener'),
  ('destructive.data', 'destructive', '.*',
   '^delete-r (tree|unknown) |^delete-r inside (?!.*/(dist|build|out|node_modules|coverage|\.next|\.nuxt|\.turbo|\.cache|\.parcel-cache|\.vite|target|__pycache__|\.pytest_cache|\.mypy_cache|\.ruff_cache|tmp|\.tmp|storybook-static|[^/]*\.egg-info|\.venv|venv|\.tox)(/\*)?/?$)|^sql (drop|truncate|flushall|flushdb)\M|^sql (delete|update)\M(?!.*\mwhere\M)|^run git (.* )?(clean (.* )?(-[a-z]*f|--force)|reset (.* )?--hard|stash (drop|clear))|^run (shred|srm|dropdb)( |$)|^run docker (system prune|volume (rm|prune)|image prune)',
   'ask', 80, 'a destructive data operation'),
  ('cross_service.remote', 'cross_service', '.*',
   '^run (kubectl|helm|terraform|pulumi|ansible|ansible-playbook|aws|gcloud|gsutil|az|flyctl|fly|heroku|vercel|netlify|wrangler|doctl|eksctl|firebase|railway|ssh|scp|sftp|mosh)( |$)|^run rsync .*\S+:|^run docker (push|login)|^run docker(-compose)? (compose )?(up|down|restart|stop|kill)\M|^run gh (pr (merge|close)|release|repo (delete|edit|create)|secret|workflow run|api .*-X)|^remote-exec ',
   'ask', 90, 'reaches another service'),
  ('cross_service.publish', 'cross_service', '.*', '^run ((npm|pnpm|yarn|bun) publish|cargo publish|twine upload|gem push|poetry publish|dotnet nuget push)\M', 'ask', 90,
   'publishes a package'),
  ('cross_service.services', 'cross_service', '.*',
   '^run systemctl (.* )?(start|stop|restart|reload|enable|disable|mask|unmask|kill|isolate|daemon-reload)\M|^run service \S+ (start|stop|restart|reload)|^run (launchctl|supervisorctl) |^run pm2 (start|stop|restart|delete|kill)',
   'ask', 90, 'starts, stops or reconfigures a service'),
  ('cross_service.http-write', 'cross_service', '.*', '^http (post|put|patch|delete) (?!(https?://)?(localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0)([:/]|$))', 'ask', 90,
   'sends a write request to another service');
