/**
 * docker-compose.yml cannot run here (no Docker engine), so keep it honest: every environment
 * variable it gives our services is read by the code, every port it publishes is one the code
 * listens on, and every command it runs is a command of the package's CLI on a config that exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<
    string,
    { build?: string; command?: string[]; environment?: Record<string, unknown>; ports?: string[] }
  >;
};
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const ours = Object.entries(compose.services).filter(([, service]) => service.build === '.');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}
const source = sourceFiles(join(ROOT, 'src'))
  .map((file) => readFileSync(file, 'utf8'))
  .join('\n');

describe('docker-compose.yml', () => {
  it('builds the gateway, the worker and the setup job from this repository', () => {
    expect(ours.map(([name]) => name).sort()).toEqual(['gateway', 'setup', 'worker']);
  });

  it.each(ours)('%s: every environment variable is read by the code', (_name, service) => {
    for (const variable of Object.keys(service.environment ?? {})) {
      expect(source, `${variable} is not read anywhere in src/`).toMatch(new RegExp(`\\b${variable}\\b`));
    }
  });

  it.each(ours)('%s: runs a command of the package CLI the image holds', (name, service) => {
    const [node, bin, command, config] = service.command ?? [];
    expect([node, bin]).toEqual(['node', 'bin/a2a-temporal.js']);
    expect(command).toBe(name);
    if (config !== undefined) expect(existsSync(join(ROOT, config))).toBe(true);
    for (const copied of ['bin', 'examples', config?.split('/')[0]].filter(Boolean)) {
      expect(dockerfile, `the image lacks ${copied}/`).toMatch(new RegExp(`^COPY ${copied} `, 'm'));
    }
  });

  it('publishes the gateway ports the code listens on by default', () => {
    const gateway = compose.services.gateway!;
    expect(gateway.ports).toEqual(['8080:8080', '8081:8081']);
    expect(source).toMatch(/env\.PORT \?\? 8080/);
    expect(source).toMatch(/env\.GRPC_PORT \?\? 8081/);
  });
});
