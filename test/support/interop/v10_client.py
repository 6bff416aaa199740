"""A v1.0 client (the Python a2a-sdk 1.x) drives the expense approval and every task call through the gateway.

Usage: python v10_client.py AGENT_URL BINDING(JSONRPC|HTTP+JSON|GRPC) STREAMING(0|1) API_KEY
It reads the card, authenticates as its security schemes say (the SDK's AuthInterceptor), and prints
one JSON line with what it saw.
"""
import asyncio
import json
import sys
import uuid

import grpc
import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.auth import AuthInterceptor
from a2a.client.auth.credentials import CredentialService
from a2a.types import (
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    SubscribeToTaskRequest,
    TaskPushNotificationConfig,
    TaskState,
)

EXPENSE_REQUEST = "Please approve an expense of 120 USD for a team lunch"


class ApiKey(CredentialService):
    """The one API key, for whichever scheme the card names."""

    def __init__(self, key):
        self.key = key

    async def get_credentials(self, security_scheme_name, context):
        return self.key


def send(text, task=None):
    return SendMessageRequest(message=Message(
        role=Role.ROLE_USER,
        message_id=str(uuid.uuid4()),
        parts=[Part(text=text)],
        task_id=task["id"] if task else "",
        context_id=task["contextId"] if task else "",
    ))


def state_name(state):
    return TaskState.Name(state)


async def last_task(client, request):
    """The task as the last event of the answer (one event when not streaming) tells it."""
    task = {}
    async for event in client.send_message(request):
        if event.HasField("task"):
            task = {"id": event.task.id, "contextId": event.task.context_id, "state": state_name(event.task.status.state)}
        elif event.HasField("status_update"):
            task["state"] = state_name(event.status_update.status.state)
    return task


async def listed_soon(client, context_id):
    """ListTasks of the context, asked again for a while: the gateway's listing lags by a second or so."""
    for _ in range(50):
        listed = await client.list_tasks(ListTasksRequest(context_id=context_id))
        if listed.tasks:
            return listed
        await asyncio.sleep(0.2)
    return listed


async def main(agent_url, binding, streaming, api_key):
    async with httpx.AsyncClient(timeout=60) as http:
        card = await A2ACardResolver(http, agent_url).get_agent_card()
        config = ClientConfig(
            httpx_client=http,
            streaming=streaming,
            supported_protocol_bindings=[binding],
            grpc_channel_factory=grpc.aio.insecure_channel,
        )
        client = ClientFactory(config).create(card, interceptors=[AuthInterceptor(ApiKey(api_key))])
        waiting = await last_task(client, send(EXPENSE_REQUEST))
        done = await last_task(client, send("approve", waiting))
        fetched = await client.get_task(GetTaskRequest(id=done["id"], history_length=10))
        listed = await listed_soon(client, done["contextId"])
        hook = TaskPushNotificationConfig(task_id=done["id"], id="hook", url="https://example.com/hook")
        created = await client.create_task_push_notification_config(hook)
        read = await client.get_task_push_notification_config(
            GetTaskPushNotificationConfigRequest(task_id=done["id"], id="hook"))
        configs = await client.list_task_push_notification_configs(
            ListTaskPushNotificationConfigsRequest(task_id=done["id"]))
        await client.delete_task_push_notification_config(
            DeleteTaskPushNotificationConfigRequest(task_id=done["id"], id="hook"))
        after_delete = await client.list_task_push_notification_configs(
            ListTaskPushNotificationConfigsRequest(task_id=done["id"]))
        other = await last_task(client, send(EXPENSE_REQUEST))
        subscribed = None
        if streaming:
            # SubscribeToTask streams: its first event is the task; the task still waits, so stop there.
            async for event in client.subscribe(SubscribeToTaskRequest(id=other["id"])):
                subscribed = state_name(event.task.status.state)
                break
        canceled = await client.cancel_task(CancelTaskRequest(id=other["id"]))
        await client.close()
        print(json.dumps({
            "securitySchemes": sorted(card.security_schemes.keys()),
            "first": waiting["state"],
            "second": done["state"],
            "sameTask": waiting["id"] == done["id"],
            "getTask": [state_name(fetched.status.state), [artifact.name for artifact in fetched.artifacts]],
            "listTasks": [task.id == done["id"] for task in listed.tasks],
            "pushConfigs": [created.id, read.url, [c.id for c in configs.configs], len(after_delete.configs)],
            "subscribe": subscribed,
            "cancel": state_name(canceled.status.state),
        }))


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]))
