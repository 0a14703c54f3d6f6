-- Web Push bookkeeping, re-applied on every migrate.

-- A subscription the push service called gone (404/410): removed, and the removal journalled.
create or replace function dispatch.remove_push_subscription(subscription_id uuid, status integer)
  returns boolean language plpgsql volatile as $$
begin
  delete from dispatch.push_subscriptions s where s.id = remove_push_subscription.subscription_id;
  if not found then
    return false;
  end if;
  insert into dispatch.events (event_type, payload)
    values ('push.subscription_removed',
            jsonb_build_object('subscription_id', remove_push_subscription.subscription_id, 'status', remove_push_subscription.status));
  return true;
end $$;
