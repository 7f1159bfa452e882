// Every curation rule removed (bench/curation_rules.py: the rounds without rules).
MATCH (x:CurationRule)
DELETE x
