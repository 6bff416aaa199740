/**
 * Refuses to start a worker whose LLM agents have a tool naming an activity the worker does not
 * register. Otherwise the mistake would show only when a model first calls that tool, in some task,
 * perhaps days after the deploy.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importModule } from '../config/load-config.js';
import { agentsFromModule } from '../workflows/agent-list.js';
import { ConfigError } from '../config/config-error.js';

export async function checkToolActivities(agentsModule: string | URL, activities: object): Promise<void> {
  const file =
    agentsModule instanceof URL || agentsModule.startsWith('file:')
      ? fileURLToPath(agentsModule)
      : resolve(agentsModule);
  const agents = agentsFromModule(await importModule(file, 'agents module'), file);
  const registered = activities as Record<string, unknown>;
  const missing = agents.flatMap((agent) =>
    Object.entries(agent.llm?.toolActivities ?? {})
      .filter(([, activity]) => typeof registered[activity] !== 'function')
      .map(([tool, activity]) => `the tool ${tool} of agent ${agent.name} names the activity "${activity}"`),
  );
  if (missing.length === 0) return;
  const known = Object.keys(registered).filter((name) => typeof registered[name] === 'function');
  throw new ConfigError(
    `${missing.join('; ')}, which this worker does not register. Export it from the activities module your ` +
      `a2a-temporal config names (registered: ${known.length > 0 ? known.join(', ') : 'none'}).`,
  );
}
