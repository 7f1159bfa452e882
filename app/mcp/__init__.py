"""The MCP server: tools and resources over the API's functions (server.py, tools.py, document_tools.py), served over
stdio by `graphwire mcp` (stdio.py) and over streamable HTTP at /mcp of the API (http.py). docs/mcp.md."""
