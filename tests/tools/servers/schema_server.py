"""An MCP server whose tool takes nested, typed arguments, for the ToolCaller's tests.

Run as ``python tests/tools/servers/schema_server.py`` (stdio). Its ``plan_trip`` tool
takes one ``trip`` object; MCPServer derives the input schema from the pydantic models
below, as real servers do: ``$defs`` and ``$ref`` for the nested models, an ``enum``
for the travel mode, ``anyOf`` with ``null`` for optional values, an array of objects,
defaults. The result echoes the arguments as the server parsed them, so a test can prove
what arrived.
"""

from __future__ import annotations

from typing import Any, Literal

from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field


class Traveller(BaseModel):
    name: str = Field(description="Full name")
    age: int | None = Field(default=None, description="Years, if it matters")


class Stop(BaseModel):
    city: str = Field(description="Where to stop")
    nights: int = Field(default=1, ge=1, description="Nights to stay")


class Trip(BaseModel):
    title: str = Field(description="A name for the trip")
    mode: Literal["rail", "road", "sea"] = "rail"
    lead: Traveller
    stops: list[Stop] = Field(default_factory=list)
    flexible: bool = False


server = MCPServer("schema", log_level="WARNING")


@server.tool(description="Plan a trip: a lead traveller and the stops on the way.",
             annotations=ToolAnnotations(read_only_hint=True))
def plan_trip(trip: Trip) -> dict[str, Any]:
    nights = sum(stop.nights for stop in trip.stops)
    return {"summary": f"{trip.title}: {trip.lead.name} by {trip.mode}, "
                       f"{len(trip.stops)} stops, {nights} nights",
            "received": trip.model_dump()}


if __name__ == "__main__":
    server.run()
