/**
 * `init [DIR]`: a new project with one agent that asks a human, its activities, a test and the
 * config that names them. Never overwrites a file; adds to an existing package.json what it lacks.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from '../command.js';
import { ExitCode, UsageError } from '../errors.js';
import type { Io } from '../io.js';

type InitCommand = Extract<Command, { kind: 'init' }>;

const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TEMPLATE = join(PACKAGE_ROOT, 'templates', 'project');
/** npm leaves `.gitignore` files out of packages, so the template ships it without the dot. */
const RENAMED = new Map([['gitignore', '.gitignore']]);

interface PackageJson {
  name?: string;
  type?: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  [key: string]: unknown;
}

export async function runInit(command: InitCommand, io: Io): Promise<ExitCode> {
  const dir = resolve(command.dir);
  mkdirSync(dir, { recursive: true });
  const name = command.name ?? packageName(basename(dir));
  const written: string[] = [];
  const kept: string[] = [];
  for (const file of templateFiles(TEMPLATE)) {
    const target = join(dir, RENAMED.get(file) ?? file);
    if (existsSync(target)) {
      kept.push(relative(dir, target));
      continue;
    }
    mkdirSync(join(target, '..'), { recursive: true });
    copyFileSync(join(TEMPLATE, file), target);
    written.push(relative(dir, target));
  }
  const previousType = readPackageType(dir);
  written.push(writePackageJson(dir, name));
  if (!existsSync(join(dir, 'README.md'))) {
    writeFileSync(join(dir, 'README.md'), readme(name));
    written.push('README.md');
  } else kept.push('README.md');

  io.out(`Created an a2a-temporal project in ${dir}`);
  io.out(`  wrote: ${written.join(', ')}`);
  if (kept.length > 0) io.out(`  kept (already there): ${kept.join(', ')}`);
  if (previousType && previousType !== 'module') {
    io.out(`  package.json: "type" is now "module" (was "${previousType}"): the project files are ES modules`);
  }
  io.out('');
  io.out('Next:');
  if (dir !== process.cwd()) io.out(`  cd ${relative(process.cwd(), dir) || '.'}`);
  io.out('  npm install');
  io.out('  npm run dev    # Temporal dev server + UI, worker and A2A gateway; reloads when you save');
  io.out('  npm test       # the agent end to end against a real Temporal dev server');
  return ExitCode.Ok;
}

function readPackageType(dir: string): string | undefined {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return undefined;
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as PackageJson).type;
  } catch {
    return undefined; // writePackageJson reports it
  }
}

function templateFiles(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? templateFiles(dir, join(prefix, entry.name)) : [join(prefix, entry.name)],
  );
}

/** Adds scripts and dependencies the project lacks; what is there (e.g. a2a-temporal from a tarball) stays. */
function writePackageJson(dir: string, name: string): string {
  const file = join(dir, 'package.json');
  let existing: PackageJson = {};
  if (existsSync(file)) {
    try {
      existing = JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
    } catch (error) {
      throw new UsageError(`${file} is not valid JSON (${(error as Error).message})`);
    }
  }
  const own = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as PackageJson & {
    version: string;
  };
  const versionOf = (pkg: string) => own.dependencies?.[pkg] ?? own.devDependencies?.[pkg];
  const merged: PackageJson = {
    name,
    version: '0.1.0',
    private: true,
    ...existing,
    // The project's files are ES modules (`npm init` writes "commonjs" these days).
    type: 'module',
    scripts: {
      dev: 'a2a-temporal dev',
      test: 'vitest run',
      typecheck: 'tsc --noEmit',
      worker: 'a2a-temporal worker',
      gateway: 'a2a-temporal gateway',
      // In the deploy pipeline, against production's namespace: fails when waiting tasks would break.
      'check-deploy': 'a2a-temporal check-deploy',
      ...withoutPlaceholders(existing.scripts),
    },
    dependencies: { 'a2a-temporal': `^${own.version}`, ...existing.dependencies },
    devDependencies: {
      '@types/node': versionOf('@types/node')!,
      typescript: versionOf('typescript')!,
      vitest: versionOf('vitest')!,
      ...existing.devDependencies,
    },
    // npm 11 asks before running install scripts; Temporal's bundler needs none of these.
    allowScripts: { protobufjs: false, '@swc/core': false, esbuild: false, ...(existing.allowScripts as object) },
  };
  writeFileSync(file, `${JSON.stringify(merged, null, 2)}\n`);
  return 'package.json';
}

/** `npm init` writes a test script that only fails; ours replaces it. */
const NPM_INIT_TEST_SCRIPT = /^echo "Error: no test specified" && exit 1$/;

function withoutPlaceholders(scripts: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(
    Object.entries(scripts).filter(([name, script]) => !(name === 'test' && NPM_INIT_TEST_SCRIPT.test(script))),
  );
}

function packageName(folder: string): string {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9-~._]+/g, '-')
    .replace(/^[-._]+|-+$/g, '');
  return name || 'my-agents';
}

function readme(name: string): string {
  return `# ${name}

A2A agents that run durably on Temporal, with [a2a-temporal](https://www.npmjs.com/package/a2a-temporal).

\`\`\`sh
npm install
npm run dev     # Temporal dev server + UI (http://127.0.0.1:8233), worker and A2A gateway (http://127.0.0.1:8080)
npm test        # the agent end to end, against a real Temporal dev server
\`\`\`

Then, in another terminal:

\`\`\`sh
npx a2a-temporal send purchase-approval "Buy 3 monitors for 450 EUR"   # -> input-required
npx a2a-temporal tasks reply <taskId> approve --agent purchase-approval # -> completed
\`\`\`

Stop \`npm run dev\` while the task waits, start it again, and answer: nothing is lost. Saving a file restarts
the worker and the gateway; waiting tasks keep waiting.

- \`a2a-temporal.config.ts\` names the agents module and the activities module.
- \`src/agents.ts\`: the agents (durable workflow code: deterministic, no I/O).
- \`src/activities.ts\`: their I/O.
- \`test/agent.test.ts\`: the agent end to end.
- \`test/deploy-safety.test.ts\`: replays a recorded waiting task (\`test/histories/\`, commit it) on the code as it
  is now, so a change that would break waiting tasks fails the tests.

In production run \`npm run worker\` and \`npm run gateway\` (any number of each) against your Temporal cluster
(\`TEMPORAL_ADDRESS\`, \`TEMPORAL_NAMESPACE\`, \`TEMPORAL_API_KEY\`, ...), after \`npx a2a-temporal setup\` once per namespace.

Before each deploy, run \`npm run check-deploy\` with the same settings: it replays the open tasks on the new code and
exits non-zero when any would break (then guard the change with \`ctx.patched('...')\`).
`;
}
