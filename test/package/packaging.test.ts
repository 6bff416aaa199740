/**
 * a2a-temporal as its users get it: `npm pack` this package, install the tarball in a fresh project
 * outside the repository, `a2a-temporal init`, type-check and run the scaffolded tests (the deploy-safety
 * one also on a change that would break a waiting task), then run
 * `a2a-temporal dev` and take the scaffolded agent's approval through a reload and a full restart.
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
import { locateTemporalCli } from '../../src/temporal/cli.js';
import { freePort } from '../../src/temporal/dev-server.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const PROJECT_AGENT = 'purchase-approval';

let work: string;
let project: string;
let env: NodeJS.ProcessEnv;

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
  const cli = locateTemporalCli();
  // A user's shell: none of this run's npm lifecycle variables, nothing pointing at this repository's server.
  env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'TEMPORAL_ADDRESS'),
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
  await run('npm', install, project);
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the published package', () => {
  it('scaffolds a project whose own test passes against a real Temporal dev server', { timeout: 300_000 }, async () => {
    const output = await run('npm', ['test'], project);
    expect(output).toMatch(/3 passed/);
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

    const second = await startDev(ports);
    try {
      const done = await rpc(url, 'SendMessage', { message: message('approve', taskId) });
      expect(done.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(done.task.artifacts[0].parts[0].data).toMatchObject({ item: '3 monitors', amount: 450 });
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });
});

interface DevProcess {
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Ctrl-C; resolves with the exit code once the whole tree is gone. */
  stop(): Promise<number | null>;
}

async function startDev(ports: Record<string, number>): Promise<DevProcess> {
  const child: ChildProcess = spawn(process.execPath, ['node_modules/a2a-temporal/bin/a2a-temporal.js', 'dev'], {
    cwd: project,
    env: { ...env, GRPC_PORT: 'off', ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
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
    stop() {
      child.kill('SIGINT');
      return exited;
    },
  };
  await dev.waitFor(/a2a-temporal is running\./);
  return dev;
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
