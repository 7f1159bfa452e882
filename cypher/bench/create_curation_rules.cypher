// Curation rules written directly (bench/curation_rules.py measures what honouring them costs an ingest).
UNWIND $rules AS rule
CREATE (x:CurationRule)
SET x = rule
