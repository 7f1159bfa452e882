// Edits (not undos) applied after the one with sequence $seq that touch one of $keys and stand: undo refuses then.
MATCH (ed:Edit {workspace: $workspace})
WHERE ed.seq > $seq AND ed.undone_by IS NULL AND ed.undoes IS NULL AND any(k IN ed.keys WHERE k IN $keys)
RETURN ed.id AS id, ed.kind AS kind, ed.by AS by
ORDER BY ed.seq
