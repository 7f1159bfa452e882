"""What every layer shares: settings, the Neo4j driver, the Chroma client, the embedder, the LLM client."""

import os

# onnxruntime queues telemetry events unless this is set before it is imported.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
