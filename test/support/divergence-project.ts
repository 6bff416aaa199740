/**
 * A project in a temporary folder with one agent per kind of breaking change, each in the version
 * its waiting tasks recorded (A) and in a changed version deployed over them (B) without
 * `ctx.patched`: what the deploy check must put in the user's words.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const QUESTION = 'Approve the purchase?';

/** Each agent's steps before (A) and after (B) the change. */
export const DIVERGENCES = {
  'divergence-inserted': {
    a: [`await notify(ctx.taskId);`, `await ctx.ask('${QUESTION}');`],
    b: [`await notify(ctx.taskId);`, `await audit(ctx.taskId);`, `await ctx.ask('${QUESTION}');`],
  },
  'divergence-removed': {
    a: [`await notify(ctx.taskId);`, `await audit(ctx.taskId);`, `await ctx.ask('${QUESTION}');`],
    b: [`await notify(ctx.taskId);`, `await ctx.ask('${QUESTION}');`],
  },
  // Its tasks answer the first question and wait on the second: `audit` ran after the first.
  'divergence-reordered': {
    a: [
      `await notify(ctx.taskId);`,
      `await ctx.ask('${QUESTION}');`,
      `await audit(ctx.taskId);`,
      `await ctx.ask('Ship it?');`,
    ],
    b: [
      `await notify(ctx.taskId);`,
      `await audit(ctx.taskId);`,
      `await ctx.ask('${QUESTION}');`,
      `await ctx.ask('Ship it?');`,
    ],
  },
  'divergence-renamed': {
    a: [`await notify(ctx.taskId);`, `await ctx.ask('${QUESTION}');`],
    b: [`await notifyOwner(ctx.taskId);`, `await ctx.ask('${QUESTION}');`],
  },
  'divergence-question': {
    a: [`await notify(ctx.taskId);`, `await ctx.ask('${QUESTION}');`],
    b: [`await notify(ctx.taskId);`, `await ctx.ask('Approve the purchase of 3 laptops?');`],
  },
  // A took the patched path; B dropped the check while tasks that recorded it still wait.
  'divergence-patch': {
    a: [
      `if (ctx.patched('audit-first')) await audit(ctx.taskId);`,
      `else await notify(ctx.taskId);`,
      `await ctx.ask('${QUESTION}');`,
    ],
    b: [`await audit(ctx.taskId);`, `await ctx.ask('${QUESTION}');`],
  },
} as const;

export type DivergenceAgent = keyof typeof DIVERGENCES;

function agentsModule(version: 'a' | 'b'): string {
  const agents = Object.entries(DIVERGENCES).map(
    ([name, steps]) => `  defineAgent({
    name: '${name}',
    description: 'Calls activities and asks, as version ${version.toUpperCase()} does.',
    skills: [{ id: 'approve', name: 'Approve', description: 'Approve', tags: [] }],
    async run(ctx) {
      const { notify, notifyOwner, audit } = ctx.activities<typeof activities>({ startToCloseTimeout: '1 minute' });
      void notifyOwner;
      ${steps[version].join('\n      ')}
      return 'done';
    },
  }),`,
  );
  return `import { defineAgent } from '${ROOT}src/index.ts';
import type * as activities from './activities.ts';

export default [
${agents.join('\n')}
];
`;
}

/** Writes the project into `dir`; the configs of A and B. */
export function writeDivergenceProject(dir: string): Record<'a' | 'b', string> {
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(
    join(dir, 'activities.ts'),
    ['notify', 'notifyOwner', 'audit']
      .map((name) => `export async function ${name}(taskId: string) { return \`${name} \${taskId}\`; }\n`)
      .join(''),
  );
  const configs = { a: join(dir, 'a.config.ts'), b: join(dir, 'b.config.ts') };
  for (const version of ['a', 'b'] as const) {
    writeFileSync(join(dir, `agents-${version}.ts`), agentsModule(version));
    writeFileSync(
      configs[version],
      `export default { agents: './agents-${version}.ts', activities: './activities.ts' };\n`,
    );
  }
  return configs;
}
