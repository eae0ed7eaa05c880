"""The MCP client's settings: each default, and the environment variable that changes it.

==============================  ==========================  =============================
variable                        default                     what it bounds
==============================  ==========================  =============================
``WORKBENCH_MCP_TIMEOUT``       30 s                        a call's wait for its reply
``WORKBENCH_MCP_MAX_RESULT``    16 MiB                      one reply's size (past it:
                                                            ``tool_error`` "result too
                                                            large", session kept)
``WORKBENCH_MCP_LOG_MAX``       4 MiB                       server text kept per log
``WORKBENCH_MCP_LOG_DIR``       ``<tmp>/workbench-mcp``     where connection logs go
==============================  ==========================  =============================

A scenario's ``servers:`` entry may set its own ``timeout`` (seconds), which wins.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from workbench.errors import ConfigError

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_LOG_MAX",
    "DEFAULT_MAX_RESULT",
    "DEFAULT_TIMEOUT",
    "default_log_dir",
    "env_number",
    "log_max",
]

#: Seconds a call may wait for its reply unless told otherwise (``WORKBENCH_MCP_TIMEOUT``).
DEFAULT_TIMEOUT = 30.0
#: Seconds to spawn a server and finish the handshake.
DEFAULT_CONNECT_TIMEOUT = 60.0
#: Bytes one reply may have (``WORKBENCH_MCP_MAX_RESULT``).
DEFAULT_MAX_RESULT = 16 * 1024 * 1024
#: Bytes of server-supplied text one connection's log keeps (``WORKBENCH_MCP_LOG_MAX``).
DEFAULT_LOG_MAX = 4 * 1024 * 1024


def env_number(env: Mapping[str, str], key: str, default: float) -> float:
    """A positive number from ``env[key]``, or ``default`` when unset.

    Raises:
        ConfigError: it is set but not a finite number above 0.
    """
    raw = env.get(key, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise ConfigError("environment", key, f"{raw!r} is not a number above 0; unset it "
                          f"or give e.g. {default:g}")
    return value


def log_max() -> int:
    """``WORKBENCH_MCP_LOG_MAX`` in bytes, or :data:`DEFAULT_LOG_MAX`."""
    return int(env_number(os.environ, "WORKBENCH_MCP_LOG_MAX", DEFAULT_LOG_MAX))


def default_log_dir() -> Path:
    """Where connection logs go: ``WORKBENCH_MCP_LOG_DIR`` or ``<tmp>/workbench-mcp``."""
    configured = os.environ.get("WORKBENCH_MCP_LOG_DIR")
    return Path(configured) if configured else Path(tempfile.gettempdir()) / "workbench-mcp"
