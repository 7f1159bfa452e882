"""Local servers graphwire assembles and runs itself: Neo4j 5.26 from Maven Central, llama.cpp's
OpenAI-compatible server and its model."""
