"""A remote A2A v0.3 agent from another ecosystem (the Python a2a-sdk 0.3.x), for the delegation
test: it asks for approval (input-required), then completes with a decision artifact on the answer.

Usage: v03_agent.py PORT
"""

import sys

import uvicorn
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentSkill, DataPart, Part
from a2a.utils import new_agent_text_message


class ApprovalExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        text = context.get_user_input()
        if context.current_task is None:
            await updater.submit()
            question = f"Python approves {text}?"
            message = new_agent_text_message(question, context.context_id, context.task_id)
            await updater.requires_input(message, final=True)
            return
        await updater.add_artifact([Part(root=DataPart(data={"approved": text == "yes", "by": "python"}))],
                                   name="decision")
        await updater.complete(new_agent_text_message(f"python says {text}", context.context_id, context.task_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def main() -> None:
    port = int(sys.argv[1])
    card = AgentCard(
        name="python-approval",
        description="Approves purchases, in Python (a2a-sdk 0.3).",
        url=f"http://127.0.0.1:{port}/",
        version="1.0.0",
        protocol_version="0.3.0",
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain", "application/json"],
        capabilities=AgentCapabilities(streaming=True),
        skills=[AgentSkill(id="approve", name="Approve", description="Approves a purchase", tags=[])],
    )
    handler = DefaultRequestHandler(agent_executor=ApprovalExecutor(), task_store=InMemoryTaskStore())
    app = A2AStarletteApplication(agent_card=card, http_handler=handler).build()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
