// The audit log in order (cypher/curation/edits.cypher, later_edits.cypher).
CREATE INDEX edit_seq IF NOT EXISTS FOR (e:Edit) ON (e.seq)
