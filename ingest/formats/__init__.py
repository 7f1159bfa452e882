"""Readers of document formats (PDF, DOCX, HTML) and of URLs, behind `ingest.loaders`: each turns bytes into one
record in the corpus field names plus `segments` (pages or heading paths), or raises DocumentError with a reason."""
