/**
 * a2a-temporal as its users get it: `npm pack` this package, install the tarball in a fresh project
 * outside the repository, `a2a-temporal init`, type-check and run the scaffolded tests (the deploy-safety
 * one also on a change that would break a waiting task), then run
 * `a2a-temporal dev` and take the scaffolded agent's approval through a reload and a full restart
 * (started the second time with docs/llm-agents.md's command for a model, answered first with docs/gateway.md's
 * `curl`).
 * A passing `npm test` prints a few lines, and `npm install` after `init` warns of no install scripts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateTemporalCli } from '../../../src/temporal/cli.js';
import { freePort } from '../../../src/temporal/dev-server.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const PROJECT_AGENT = 'purchase-approval';

let work: string;
let project: string;
let env: NodeJS.ProcessEnv;
/** What `npm install` printed in the scaffolded project. */
let projectInstall: string;

/** Runs a command to completion; rejects with its output when it fails. */
function run(command: string, args: string[], cwd: string, timeoutMs = 300_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output.slice(-4000)}`));
    });
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'a2a-temporal-package-'));
  project = join(work, 'my-agents');
  const cli = locateTemporalCli(process.env);
  // A user's shell: none of this run's npm lifecycle variables, nothing pointing at this repository's server.
  env = Object.fromEntries(
    // (LOG_LEVEL: this repository's vitest config sets it for its own tests.)
    Object.entries(process.env).filter(
      ([name]) => !/^npm_/i.test(name) && name !== 'TEMPORAL_ADDRESS' && name !== 'LOG_LEVEL',
    ),
  );
  if (cli.kind === 'path') env.TEMPORAL_CLI_PATH = cli.path;
  env.LOG_FORMAT = 'json';

  await run('npm', ['pack', '--pack-destination', work], REPO);
  const tarball = readdirSync(work).find((file) => file.endsWith('.tgz'))!;
  // As a user starts: an empty folder, `npm init`, the package, then `a2a-temporal init` and `npm install`.
  mkdirSync(project);
  await run('npm', ['init', '--yes'], project);
  const install = ['install', '--prefer-offline', '--no-audit', '--no-fund'];
  await run('npm', [...install, join(work, tarball)], project);
  await run(process.execPath, ['node_modules/a2a-temporal/bin/a2a-temporal.js', 'init'], project);
  projectInstall = await run('npm', install, project);
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the published package', () => {
  it('scaffolds a project whose own test passes against a real Temporal dev server', { timeout: 300_000 }, async () => {
    const output = await run('npm', ['test'], project);
    expect(output).toMatch(/3 passed/);
    // The rejection a test asks for logs a warning: shown only for a failing test (a2a-temporal/testing, vitest.config.ts).
    expect(output).not.toMatch(/Workflow failed|Agent failed|taskToken|\bat .*\.ts:\d+/);
    expect(output.split('\n').filter((line) => line.trim()).length, output).toBeLessThanOrEqual(15);
  });

  it('installs with no install script to approve once `init` wrote the project', () => {
    expect(projectInstall).not.toMatch(/install-scripts|install scripts/i);
  });

  it(
    "has the scaffold's deploy-safety test fail on a change that would break a waiting task",
    { timeout: 300_000 },
    async () => {
      // The first `npm test` recorded a waiting approval's history.
      expect(existsSync(join(project, 'test/histories/purchase-approval-waiting.json'))).toBe(true);
      const agents = join(project, 'src/agents.ts');
      const original = readFileSync(agents, 'utf8');
      // One more activity call before the question: the approvals already waiting never made it.
      const ask = '    const reply = await ctx.ask({';
      expect(original).toContain(ask);
      writeFileSync(agents, original.replace(ask, `    await readPurchase(ctx.message.text);\n${ask}`));
      try {
        const failure = await run('npx', ['vitest', 'run', 'test/deploy-safety.test.ts'], project).then(
          () => 'passed',
          (error: Error) => error.message,
        );
        expect(failure).toMatch(/1 task would break/);
        expect(failure).toContain("ctx.patched('my-change')");
      } finally {
        writeFileSync(agents, original);
      }
    },
  );

  it(
    "gives TypeScript users every subpath, typed, and no `any` in its declarations; README's agent typechecks",
    { timeout: 120_000 },
    async () => {
      writeFileSync(
        join(project, 'src/uses-every-subpath.ts'),
        [
          "import { AgentFailure, defineAgent, defineConfig, defineLlmAgent, defineTool } from 'a2a-temporal';",
          "import type { AgentContext, Reply } from 'a2a-temporal';",
          "import { z } from 'zod';",
          "import { withHeartbeats } from 'a2a-temporal/activity';",
          "import { agentsPlugin, bundleAgents, createAgentWorker } from 'a2a-temporal/worker';",
          "import { createGatewayApp, startGateway } from 'a2a-temporal/gateway';",
          "import { startTestEnvironment, stateOf, type WireTask } from 'a2a-temporal/testing';",
          'export const used = [AgentFailure, defineAgent, defineConfig, withHeartbeats, agentsPlugin, bundleAgents];',
          'export const more = [createAgentWorker, createGatewayApp, startGateway, startTestEnvironment];',
          "export const state = (task: WireTask): 'completed' | string => stateOf(task);",
          'export const llm = defineLlmAgent({',
          "  name: 'buyer', description: 'Buys', skills: [], instructions: 'Buy things.',",
          '  tools: {',
          "    order: defineTool({ description: 'Orders', input: z.object({ total: z.number() }), activity: 'placeOrder',",
          "      approval: ({ total }) => (total > 100 ? 'over 100' : false) }),",
          '  },',
          '});',
          'export async function asks(ctx: AgentContext): Promise<string> {',
          "  const reply: Reply<{ ok: boolean }> = await ctx.ask<{ ok: boolean }>({ question: 'ok?' });",
          '  return reply.value.ok ? reply.text : String(reply.timedOut);',
          '}',
          '',
        ].join('\n'),
      );
      // README's "Writing an agent", verbatim, beside the scaffold it describes: its config and its agent
      // (whose activities must be the ones the activities module exports) typecheck there.
      const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
      const config = /```ts\n(import \{ defineConfig \} from 'a2a-temporal';[\s\S]*?)```/.exec(readme)?.[1];
      const agent = /The scaffolded agent:\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
      expect(config && agent, "README's config and agent blocks").toBeTruthy();
      writeFileSync(join(project, 'readme.config.ts'), config!);
      writeFileSync(join(project, 'src/readme-agents.ts'), agent!);
      await run('npx', ['tsc', '--noEmit'], project);
      // Each subpath also loads in Node from the build.
      const subpaths = ['a2a-temporal', 'a2a-temporal/activity', 'a2a-temporal/worker', 'a2a-temporal/gateway'];
      const loaded = await run(
        process.execPath,
        [
          '-e',
          `Promise.all(${JSON.stringify([...subpaths, 'a2a-temporal/testing'])}.map((s) => import(s))).then((m) => console.log(m.length))`,
        ],
        project,
      );
      expect(loaded.trim()).toBe('5');

      const anys = declarationFiles(join(project, 'node_modules/a2a-temporal/dist')).flatMap(anyKeywords);
      expect(anys).toEqual([]);
    },
  );

  it('`a2a-temporal dev` keeps a waiting approval across a reload and a restart', { timeout: 300_000 }, async () => {
    const ports = { PORT: await freePort(), TEMPORAL_PORT: await freePort(), TEMPORAL_UI_PORT: await freePort() };
    const url = `http://127.0.0.1:${ports.PORT}/agents/${PROJECT_AGENT}`;

    const first = await startDev(ports);
    let taskId: string;
    try {
      // docs/gateway.md's curl, as printed there (the default agent, at the gateway's root).
      const curl = /```sh\n(curl -s http:\/\/127\.0\.0\.1:8080\/[\s\S]*?)\n# {2}->/.exec(doc('gateway.md'))?.[1];
      expect(curl, "docs/gateway.md's curl example").toBeDefined();
      const curled = JSON.parse(await run('sh', ['-c', curl!.replace(':8080/', `:${ports.PORT}/`)], project));
      expect(curled.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

      const waiting = await rpc(url, 'SendMessage', { message: message('Buy 3 monitors for 450 EUR') });
      expect(waiting.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      taskId = waiting.task.id;

      // Saving a project file restarts the worker and the gateway; the task keeps waiting.
      appendFileSync(join(project, 'src/agents.ts'), '\n// saved again\n');
      await first.waitFor(/Reloaded: purchase-approval/);
      expect((await rpc(url, 'GetTask', { id: taskId })).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    } finally {
      expect(await first.stop()).toBe(0);
    }

    // docs/llm-agents.md's command for a model, as a user types it in the project.
    const withModel = /\(`(A2A_MODEL_BASE_URL=\.\.\. A2A_MODEL=\.\.\. npm run dev)`\)/.exec(doc('llm-agents.md'))?.[1];
    expect(withModel, "docs/llm-agents.md's LLM run command").toBeDefined();
    const typed = withModel!.replace('A2A_MODEL_BASE_URL=...', 'A2A_MODEL_BASE_URL=http://127.0.0.1:9/v1');
    const second = await startDev(ports, typed.replace('A2A_MODEL=...', 'A2A_MODEL=some-model'));
    try {
      const done = await rpc(url, 'SendMessage', { message: message('approve', taskId) });
      expect(done.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(done.task.artifacts[0].parts[0].data).toMatchObject({ item: '3 monitors', amount: 450 });
    } finally {
      // npm ends by the Ctrl-C it forwarded, as in a terminal (exit status 130 there).
      expect(await second.stop()).toBe('SIGINT');
    }
  });
});

interface DevProcess {
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Ctrl-C; resolves with the exit code (or the signal it ended by) once the whole tree is gone. */
  stop(): Promise<number | NodeJS.Signals | null>;
}

/** `a2a-temporal dev`, or `commandLine` in a shell of its own (Ctrl-C then reaches its whole process group, as in a terminal). */
async function startDev(ports: Record<string, number>, commandLine?: string): Promise<DevProcess> {
  const options = {
    cwd: project,
    env: { ...env, GRPC_PORT: 'off', ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) },
    detached: commandLine !== undefined,
  };
  const child: ChildProcess = commandLine
    ? spawn('sh', ['-c', commandLine], options)
    : spawn(process.execPath, ['node_modules/a2a-temporal/bin/a2a-temporal.js', 'dev'], options);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  const dev: DevProcess = {
    async waitFor(pattern, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(output)) {
        if (child.exitCode !== null || Date.now() > deadline) {
          child.kill('SIGKILL');
          throw new Error(`dev never printed ${pattern}:\n${output.slice(-4000)}`);
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async stop() {
      if (!commandLine) {
        child.kill('SIGINT');
        return exited;
      }
      process.kill(-child.pid!, 'SIGINT');
      const ended = await exited;
      // The shell and npm may end before `dev` has stopped the dev server: wait for the whole group.
      while (processGroupLives(child.pid!)) await new Promise((r) => setTimeout(r, 200));
      return ended;
    },
  };
  await dev.waitFor(/a2a-temporal is running\./);
  return dev;
}

function processGroupLives(id: number): boolean {
  try {
    process.kill(-id, 0);
    return true;
  } catch {
    return false;
  }
}

/** A page of the documentation, whose commands the test runs as printed. */
function doc(name: string): string {
  return readFileSync(join(REPO, 'docs', name), 'utf8');
}

function message(text: string, taskId?: string) {
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(taskId && { taskId }) };
}

async function rpc(url: string, method: string, params: unknown): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: unknown };
  if (!body.result) throw new Error(`${method}: ${JSON.stringify(body)}`);
  return body.result;
}

function declarationFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return declarationFiles(path);
    return name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every `any` type written in a declaration file, as file:line. */
function anyKeywords(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.AnyKeyword) {
      found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
