// docs/configuration.md from the settings' declarations (src/config/settings/), and a check that the
// code reads no variable they do not declare (`npm run lint` runs `--check`; `--write` regenerates).
// Reads are found in src/ as `process.env.X`, `env.X`, `env['X']` and commander's `.env('X')`;
// `process.env` itself only in the files listed in ENVIRONMENT_READERS, each for its reason.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { SETTING_GROUPS, type Declaration } from '../src/config/setting.js';
import { SETTINGS } from '../src/config/settings.js';
import { TEMPORAL_GRPC_META_PREFIX } from '../src/config/settings/temporal.js';

const root = resolve(import.meta.dirname, '..');
const DOC = join(root, 'docs', 'configuration.md');

/** Where the code may touch `process.env`, and why. */
const ENVIRONMENT_READERS: Record<string, string> = {
  'src/config/settings.ts': 'readSettings, the one reading of the declared variables',
  'src/cli/io.ts': "the CLI's entrypoint hands the environment to its commands",
  'src/cli/args.ts': "commander's Option.env() reads process.env: swapped for the CLI's own during a parse",
  'src/cli/format.ts': "how this process was started (npm's npm_command), for the commands it prints",
  'src/dev/serve-process.ts': "the dev stack's serving process: its entrypoint",
  'src/temporal/dev-server.ts': 'the environment passed on to the Temporal CLI child process',
  'src/logging.ts': 'the process logger exists before any entrypoint runs (LOG_LEVEL, LOG_FORMAT as declared)',
  'src/testing/test-environment.ts': "startTestEnvironment, a test's entrypoint",
  'src/testing/deploy-check.ts': "replayOpenTasks and replayHistoryFiles, a test's entrypoints",
  'src/delegation/remote-agents.ts': 'variables the project config names (urlEnv, credentials), read per call',
  'src/llm/mcp-connections.ts': 'variables the project config names for MCP servers, read per connection',
};

/** Variables of the system, not of this package. */
const SYSTEM_VARIABLES = new Set(['PATH', 'npm_command']);

const GROUP_INTROS: Partial<Record<keyof typeof SETTING_GROUPS, string>> = {
  dev: '`a2a-temporal dev` runs with no variable set: a dev server, the worker and the gateway on loopback, without authentication. These change where its dev server listens.',
  auth: '`a2a-temporal gateway` refuses to start without `A2A_AUTH` (`none` must be said explicitly). See [Authentication](security.md).',
};

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function defaultOf(declaration: Declaration): string {
  if (declaration.defaultText !== undefined) return declaration.defaultText;
  const value = declaration.default;
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return 'none';
  return `\`${Array.isArray(value) ? value.join(',') : String(value)}\``;
}

async function table(): Promise<string> {
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated from src/config/settings/ by `npx tsx scripts/config-table.ts --write`; `npm run lint` checks it. -->',
    '',
    'Every environment variable the package reads, by what you need it for. `a2a-temporal config` prints the value each has where you run it, and whether it comes from the environment, the project config or the default, secrets masked. A blank variable counts as unset; a wrong value stops the command with exit 1, naming the variable.',
  ];
  for (const [group, title] of Object.entries(SETTING_GROUPS)) {
    lines.push('', `## ${title}`, '');
    const intro = GROUP_INTROS[group as keyof typeof SETTING_GROUPS];
    if (intro) lines.push(intro, '');
    lines.push('| variable | default | what it does |', '| --- | --- | --- |');
    for (const [name, declaration] of Object.entries(SETTINGS) as [string, Declaration][]) {
      if (declaration.group !== group) continue;
      const secret = declaration.secret ? ' Secret.' : '';
      lines.push(`| \`${name}\` | ${cell(defaultOf(declaration))} | ${cell(declaration.description)}${secret} |`);
    }
    if (group === 'temporal') {
      lines.push(`| \`${TEMPORAL_GRPC_META_PREFIX}*\` | none | gRPC metadata sent with every Temporal call. |`);
    }
  }
  lines.push(
    '',
    "Besides these, the project config can name variables of its own: a remote agent's `urlEnv` and credentials (see [Delegation](delegation.md)), and the environment of MCP servers (see [LLM agents](llm-agents.md)). The worker reads them when it calls.",
    '',
  );
  const options = (await resolveConfig(DOC)) ?? {};
  return format(lines.join('\n'), { ...options, parser: 'markdown' });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js)$/.test(entry.name) ? [path] : [];
  });
}

/** The code without its comments (TSDoc examples show readers' own variables). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

/** Every problem: a variable read but not declared, or process.env touched where it should not be. */
function undeclaredReads(): string[] {
  const declared = new Set(Object.keys(SETTINGS));
  const problems: string[] = [];
  for (const file of sourceFiles(join(root, 'src'))) {
    const path = relative(root, file);
    const text = code(readFileSync(file, 'utf8'));
    if (/\bprocess\.env\b/.test(text) && !(path in ENVIRONMENT_READERS)) {
      problems.push(`${path} reads process.env: take the value from the settings its entrypoint read`);
    }
    const reads = [
      ...text.matchAll(/\benv\??\.([A-Za-z_][A-Za-z0-9_]*)\b/g),
      ...text.matchAll(/\benv\[\s*['"`]([A-Za-z_][A-Za-z0-9_]*)['"`]\s*\]/g),
      ...text.matchAll(/\.env\(\s*['"`]([A-Za-z_][A-Za-z0-9_]*)['"`]\s*\)/g),
    ].map((match) => match[1]!);
    for (const name of reads) {
      if (!/^[A-Z][A-Z0-9_]*$|^npm_/.test(name)) continue;
      if (!declared.has(name) && !SYSTEM_VARIABLES.has(name) && !name.startsWith(TEMPORAL_GRPC_META_PREFIX)) {
        problems.push(`${path} reads ${name}, which no file of src/config/settings/ declares`);
      }
    }
  }
  return problems;
}

const mode = process.argv[2];
if (mode !== '--check' && mode !== '--write') {
  console.error('Usage: tsx scripts/config-table.ts --check | --write');
  process.exit(2);
}
const problems = undeclaredReads();
const expected = await table();
if (mode === '--write') writeFileSync(DOC, expected);
else if (readFileSync(DOC, 'utf8') !== expected) {
  problems.push('docs/configuration.md is not what the settings say: run `npx tsx scripts/config-table.ts --write`');
}
for (const problem of problems) console.error(problem);
process.exit(problems.length > 0 ? 1 : 0);
