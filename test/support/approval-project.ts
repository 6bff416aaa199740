/**
 * A project in a temporary folder whose agent notifies and audits, then asks for an approval, in
 * versions that differ in the order of those two calls: what deploy-safety tests change under
 * waiting tasks. The reply ends "<answer> on <VERSION>", so a test sees which code finished a task.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A notifies, then audits; B audits first (no patch: breaks A's waiting tasks); C audits first behind
 * a patch; D audits again before the question (an inserted activity, no patch: breaks A's tasks too).
 */
const APPROVAL_STEPS = {
  a: 'await notify(ctx.taskId);\n      await audit(ctx.taskId);',
  b: 'await audit(ctx.taskId);\n      await notify(ctx.taskId);',
  c: `if (ctx.patched('audit-first')) {\n        await audit(ctx.taskId);\n        await notify(ctx.taskId);\n      } else {\n        await notify(ctx.taskId);\n        await audit(ctx.taskId);\n      }`,
  d: 'await notify(ctx.taskId);\n      await audit(ctx.taskId);\n      await audit(ctx.taskId);',
} as const;

export type ApprovalVersion = keyof typeof APPROVAL_STEPS;

export interface ApprovalAgentOptions {
  /** Goes into a comment (a save that changes only it is harmless). */
  note?: string;
  /** The agent's own Worker Versioning behaviour. */
  versioning?: 'pinned' | 'auto-upgrade';
}

/** The agents module of `version`. */
export function approvalAgentsModule(
  agent: string,
  version: ApprovalVersion,
  options: ApprovalAgentOptions = {},
): string {
  return `import { defineAgent } from '${ROOT}src/index.ts';
import type * as activities from './activities.ts';

// ${options.note ?? `version ${version}`}
export default [
  defineAgent({
    name: '${agent}',
    description: 'Notifies and audits, then asks for an approval.',${options.versioning ? `\n    versioning: '${options.versioning}',` : ''}
    skills: [{ id: 'approve', name: 'Approve', description: 'Approve', tags: [] }],
    async run(ctx) {
      const { notify, audit } = ctx.activities<typeof activities>({ startToCloseTimeout: '1 minute' });
      ${APPROVAL_STEPS[version]}
      const reply = await ctx.ask('Approve?');
      return \`\${reply.text} on ${version.toUpperCase()}\`;
    },
  }),
];
`;
}

/** The project's package.json and activities, shared by every version. */
export function writeApprovalProjectBase(dir: string): void {
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(
    join(dir, 'activities.ts'),
    'export async function notify(taskId: string) { return `notified ${taskId}`; }\n' +
      'export async function audit(taskId: string) { return `audited ${taskId}`; }\n',
  );
}

/** One config per version (`<version>.config.ts`, naming `agents-<version>.ts`), side by side; their paths. */
export function writeApprovalProject<V extends ApprovalVersion>(
  dir: string,
  agent: string,
  versions: readonly V[],
  options: Omit<ApprovalAgentOptions, 'note'> = {},
): Record<V, string> {
  writeApprovalProjectBase(dir);
  const configs = {} as Record<V, string>;
  for (const version of versions) {
    writeFileSync(join(dir, `agents-${version}.ts`), approvalAgentsModule(agent, version, options));
    configs[version] = join(dir, `${version}.config.ts`);
    writeFileSync(
      configs[version],
      `export default { agents: './agents-${version}.ts', activities: './activities.ts' };\n`,
    );
  }
  return configs;
}
