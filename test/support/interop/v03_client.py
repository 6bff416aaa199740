"""A v0.3 client (the Python a2a-sdk 0.3.x) drives the expense approval through the gateway.

Usage: python v03_client.py AGENT_URL STREAMING(0|1); prints one JSON line with what it saw.
"""
import asyncio
import json
import sys
import uuid

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import Message, Part, Role, TextPart


def text_message(text, task=None):
    return Message(
        role=Role.user,
        message_id=str(uuid.uuid4()),
        parts=[Part(root=TextPart(text=text))],
        task_id=task.id if task else None,
        context_id=task.context_id if task else None,
    )


async def last_task(client, message):
    task = None
    async for event in client.send_message(message):
        task = event[0] if isinstance(event, tuple) else event
    return task


async def main(agent_url, streaming):
    async with httpx.AsyncClient(timeout=60) as http:
        resolver = A2ACardResolver(http, agent_url, agent_card_path="v0.3/.well-known/agent-card.json")
        card = await resolver.get_agent_card()
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=streaming)).create(card)
        waiting = await last_task(client, text_message("Please approve an expense of 120 USD for a team lunch"))
        done = await last_task(client, text_message("approve", waiting))
        print(json.dumps({
            "protocolVersion": card.protocol_version,
            "first": waiting.status.state.value,
            "second": done.status.state.value,
            "sameTask": waiting.id == done.id,
            "artifacts": [artifact.name for artifact in done.artifacts or []],
        }))


asyncio.run(main(sys.argv[1], sys.argv[2] == "1"))
