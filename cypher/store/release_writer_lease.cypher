// core/stores/store_lease.py: give the writer lease back, if $owner still holds it.
MATCH (l:WriterLease {workspace: $workspace, id: 'writer'})
WHERE l.owner = $owner
DELETE l
RETURN count(*) AS released
