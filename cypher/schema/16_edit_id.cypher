// One audit record per applied edit (ingest/curation/), found by id for undo.
CREATE CONSTRAINT edit_id IF NOT EXISTS FOR (e:Edit) REQUIRE e.id IS UNIQUE
