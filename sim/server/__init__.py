"""The knowledge base's face to agents: tool definitions, argument validation, result text,
the MCP server, the stdio transport, resources, the call log and its report. Imports the store
(``sim.kb``); the store never imports this package."""
