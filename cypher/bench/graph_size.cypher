// The graph size bench/retrieval_latency reports beside its timings.
RETURN COUNT { (:Document) } AS documents, COUNT { (:Entity)-->(:Entity) } AS relationships
