"""Document jobs: posted documents ingested in the background, one job at a time, persisted across restarts."""
