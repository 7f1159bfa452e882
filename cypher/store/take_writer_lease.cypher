// core/stores/store_lease.py: take the store's writer lease, or renew it ($owner holds it already). The touch write locks
// the node before it is read, so two writers racing for a free lease are serialized and the second sees the first's
// owner. Free: nobody holds it, its holder let it expire (server time, so the machines' clocks do not matter), or
// $take_over names the holder (a crashed process of the caller's machine).
MERGE (l:WriterLease {workspace: $workspace, id: 'writer'})
SET l.touched = true
WITH l, datetime() AS now
WITH l, now, coalesce(l.owner IS NULL OR l.expires_at < now OR l.owner IN [$owner, $take_over], false) AS granted
SET l += CASE WHEN granted THEN {owner: $owner, host: $host, pid: $pid, purpose: $purpose,
                                 since: CASE WHEN l.owner = $owner THEN l.since ELSE now END,
                                 expires_at: now + duration({milliseconds: $ttl_ms})} ELSE {} END
REMOVE l.touched
RETURN granted, l.owner AS owner, l.host AS host, l.pid AS pid, l.purpose AS purpose, toString(l.since) AS since,
       duration.inSeconds(now, l.expires_at).seconds AS expires_in_s
