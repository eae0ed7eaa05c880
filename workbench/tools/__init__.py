"""Tools: the registry (the capability boundary), built-ins, and the MCP transport."""
