"""Runs A2A interop kit (a2aproject/a2a-itk) scenarios against agents scripts/itk.sh has started.

The kit builds each scenario's nested instruction and checks its answer (test_suite.create_test_suite,
testlib.execute_itk_test); this program only says where the agents listen, adds the a2a-temporal node
to the kit's agents as `a2a_temporal`, and prints the matrix. The kit's own process handling is not used:
it kills whatever holds a port (`fuser -k`), and the agents here are started and stopped by itk.sh by PID.

Environment (set by itk.sh): ITK_DIR (the kit checkout), ITK_AGENTS (JSON: agent name -> [http port,
grpc port]), ITK_NOTIFY_PORT (the push scenarios' notification server), ITK_LOGS (a folder for its log).
"""

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

KIT = Path(os.environ['ITK_DIR']).resolve()
sys.path.insert(0, str(KIT))

import httpx  # noqa: E402
import run_tests  # noqa: E402  (the kit's scenario list)
import test_suite  # noqa: E402
import testlib  # noqa: E402

NODE = 'a2a_temporal'
TRANSPORTS = ['jsonrpc', 'grpc', 'http_json']
# The kit's runner enters at its first agent's `<card URL>/jsonrpc/`, a path of the kit's agents only,
# so the node is never first: it is called by, and calls, the agents around it.
V10_RING = ['python_v10', NODE, 'go_v10']
V03_RING = ['python_v03', NODE, 'go_v03']
V10_FAMILIES = [
    ('core', {'behavior': 'send_message'}),
    ('streaming', {'behavior': 'send_message', 'streaming': True}),
    ('push', {'behavior': 'push_notification'}),
    ('resubscribe', {'behavior': 'resubscribe', 'streaming': True}),
]
V03_FAMILIES = [
    ('core', {'behavior': 'send_message'}),
    ('streaming', {'behavior': 'send_message', 'streaming': True}),
]


def node_scenarios(ring: list[str], version: str, families, transports) -> list[dict]:
    """One scenario per behaviour and transport, every edge of the ring (both ways) once."""
    return [
        {
            'name': f'a2a-temporal-{version}-{family}-{transport}',
            'sdks': ring,
            'protocols': [transport],
            'edges': None,
            **options,
        }
        for family, options in families
        for transport in transports
    ]


def node_calls_v03(v03_agent: str) -> list[dict]:
    """The node calling a v0.3 agent, which answers through a v1.0 one: python_v10 -> node -> v0.3 -> back."""
    return [
        {
            'name': f'a2a-temporal-calls-{v03_agent.replace("_", "-")}-{family}-{transport}',
            'sdks': ['python_v10', NODE, v03_agent],
            'protocols': [transport],
            'edges': ['0->1', '1->2', '2->0'],
            **options,
        }
        for family, options in V03_FAMILIES
        for transport in ['jsonrpc', 'grpc']
    ]


def scenarios(agents: set[str]) -> list[dict]:
    """The node's scenarios whose agents all run, then the kit's own v1.0 and v0.3 ones, as a baseline."""
    ours = node_scenarios(V10_RING, 'v10', V10_FAMILIES, TRANSPORTS)
    # v0.3 agents speak JSON-RPC and gRPC to each other (the kit's v0.3 scenarios use no other).
    ours += node_scenarios(V03_RING, 'v03', V03_FAMILIES, ['jsonrpc', 'grpc'])
    ours += node_calls_v03('python_v03') + node_calls_v03('go_v03')
    baseline = [
        case
        for case in run_tests.TEST_CASES
        if not case.get('build_subtests') and not case['name'].startswith('failing-')
    ]
    return [case for case in ours + baseline if set(case['sdks']) <= agents]


class NotificationServers:
    """The kit's notification server, started for each push scenario and stopped by its PID."""

    def __init__(self, logs: Path):
        self.logs = logs
        self.running: list[subprocess.Popen] = []

    async def start(self, port: int, test_name: str) -> subprocess.Popen:
        log = open(self.logs / 'notifications.log', 'a')  # noqa: SIM115 (the process writes to it)
        proc = subprocess.Popen(  # noqa: S603
            [sys.executable, '-m', 'uvicorn', 'notifications_app:create_notifications_app', '--factory',
             '--host', '127.0.0.1', '--port', str(port)],
            cwd=KIT, stdout=log, stderr=subprocess.STDOUT,
        )
        self.running.append(proc)
        async with httpx.AsyncClient() as client:
            for _ in range(100):
                try:
                    if (await client.get(f'http://127.0.0.1:{port}/health')).status_code == 200:
                        return proc
                except httpx.HTTPError:
                    pass
                await asyncio.sleep(0.2)
        raise RuntimeError(f'the notification server did not start for {test_name} (see {log.name})')

    def stop_all(self) -> None:
        for proc in self.running:
            proc.terminate()
            proc.wait(timeout=10)
        self.running.clear()


class PushWitness:
    """Which tasks pushed in a push scenario. The kit's check passes as soon as the first agent's task
    pushes its answer (which holds every hop's text), so it cannot tell whether the other tasks pushed;
    this counts the tasks that did, against the one task per hop (and the first agent's) of the chain."""

    def __init__(self, read_texts):
        self.read_texts = read_texts
        self.tasks: set[str] = set()

    async def read(self, url: str) -> list[str]:
        async with httpx.AsyncClient() as client:
            notifications = (await client.get(f'{url}/notifications')).json()['notifications']
        for notification in notifications:
            event = notification['event']
            update = event.get('statusUpdate') or event.get('artifactUpdate') or {}
            task_id = update.get('taskId') or event.get('task', {}).get('id') or event.get('taskId') or event.get('id')
            if task_id:
                self.tasks.add(task_id)
        return await self.read_texts(url)


def tasks_in_chain(case: dict) -> int:
    """One task per hop (an edge of the graph, once per transport), and the first agent's."""
    agents = len(case['sdks'])
    edges = len(case['edges']) if case['edges'] else agents * (agents - 1)
    return edges * len(case['protocols']) + 1


def use_agents_started_here(agents: dict[str, list[int]], notify_port: int, servers: NotificationServers) -> None:
    """Points the kit at the agents itk.sh started, and keeps it from killing or starting processes."""
    for name, (http_port, grpc_port) in agents.items():
        test_suite._AGENT_DEFS.setdefault(name, {'launcher': None})  # noqa: SLF001
        test_suite._AGENT_DEFS[name].update(httpPort=http_port, grpcPort=grpc_port)  # noqa: SLF001
    testlib._clean_ports = lambda *ports: None  # noqa: SLF001  (it runs `fuser -k` on them)
    testlib._get_free_port = lambda: notify_port  # noqa: SLF001  (the notification server's)
    testlib.start_notification_server = servers.start


def watch_pushes() -> PushWitness:
    witness = PushWitness(testlib.read_push_notifications)
    testlib.read_push_notifications = witness.read
    return witness


async def run(cases: list[dict], servers: NotificationServers, timeout: float) -> dict[str, str]:
    results = {}
    for case in cases:
        print(f'--- {case["name"]} ({", ".join(case["sdks"])})', flush=True)
        pushes = watch_pushes() if case['behavior'] == 'push_notification' else None
        try:
            outcome = await asyncio.wait_for(
                testlib.execute_itk_test(
                    sdks=case['sdks'],
                    behavior=case['behavior'],
                    edges=case['edges'],
                    scenario_name=case['name'],
                    protocols=case.get('protocols'),
                    streaming=case.get('streaming', False),
                ),
                timeout,
            )
            results[case['name']] = 'pass' if all(r['passed'] for r in outcome.values()) else 'FAIL'
            if pushes:
                results[case['name']] += f'; {len(pushes.tasks)} of {tasks_in_chain(case)} tasks pushed'
        except TimeoutError:
            # A chain that waits for ever (e.g. for a held task nobody ends) would hold up the whole run.
            results[case['name']] = f'TIMEOUT ({timeout:.0f} s)'
        except Exception as error:  # noqa: BLE001 (a scenario that errs is a result, the run goes on)
            results[case['name']] = f'ERROR: {type(error).__name__}: {str(error)[:120]}'
        finally:
            servers.stop_all()
            if pushes:
                testlib.read_push_notifications = pushes.read_texts
        print(f'--- {case["name"]}: {results[case["name"]]}', flush=True)
    return results


def matrix(cases: list[dict], results: dict[str, str]) -> str:
    lines = ['| scenario | agents | transports | behaviour | result |', '| --- | --- | --- | --- | --- |']
    for case in cases:
        behaviour = case['behavior'] + (' (streaming)' if case.get('streaming') else '')
        lines.append(
            f'| {case["name"]} | {", ".join(case["sdks"])} | {", ".join(case["protocols"])} | {behaviour} '
            f'| {results[case["name"]]} |'
        )
    return '\n'.join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--only', help='run only scenarios whose name contains this')
    parser.add_argument('--matrix', type=Path, help='also write the matrix (Markdown) here')
    parser.add_argument('--timeout', type=float, default=180, help='seconds a scenario may take (default 180)')
    args = parser.parse_args()
    # Stopped (itk.sh ends, Ctrl-C), it still stops the notification server it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    agents = {name: ports for name, ports in json.loads(os.environ['ITK_AGENTS']).items()}
    logs = Path(os.environ['ITK_LOGS'])
    servers = NotificationServers(logs)
    use_agents_started_here(agents, int(os.environ['ITK_NOTIFY_PORT']), servers)
    cases = [case for case in scenarios(set(agents)) if not args.only or args.only in case['name']]
    results = asyncio.run(run(cases, servers, args.timeout))

    table = matrix(cases, results)
    print(table)
    if args.matrix:
        args.matrix.write_text(table + '\n')
    sys.exit(0 if all(result.startswith('pass') for result in results.values()) else 1)


if __name__ == '__main__':
    main()
