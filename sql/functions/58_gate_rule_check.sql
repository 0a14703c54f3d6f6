-- The check of a gate rule's regular expressions, re-applied on every migrate (the gates'
-- functions are in 60_gates.sql). A rule whose tool or pattern is not a valid regular expression is
-- refused when it is written, not when a worker asks.
create or replace function dispatch.gate_rule_check() returns trigger
  language plpgsql volatile as $$
begin
  perform '' ~ ('^(?:' || new.tool || ')$');
  if new.pattern is not null then
    perform '' ~* new.pattern;
  end if;
  if new.fact is not null then
    perform '' ~* new.fact;
  end if;
  return new;
end $$;

select dispatch.define_trigger('dispatch.gate_rules', 'gate_rules_check', $$
create or replace trigger gate_rules_check before insert or update on dispatch.gate_rules
  for each row execute function dispatch.gate_rule_check()
$$);
