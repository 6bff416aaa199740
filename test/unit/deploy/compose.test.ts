/**
 * docker-compose.yml cannot run here (no Docker engine), so keep it honest: every environment
 * variable it gives our services is read by the code, every port it publishes is one the code
 * listens on, and every command it runs is a command of the package's CLI on a config that exists.
 * The observability profile's Prometheus scrapes the ports our services serve metrics on, and
 * their traces go where its Jaeger listens.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SETTINGS } from '../../../src/config/settings.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<
    string,
    {
      build?: string;
      image?: string;
      command?: string[];
      environment?: Record<string, unknown>;
      ports?: string[];
      profiles?: string[];
      volumes?: string[];
    }
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
    expect([SETTINGS.PORT.default, SETTINGS.GRPC_PORT.default]).toEqual([8080, 8081]);
  });
});

describe('the observability profile', () => {
  const profiled = Object.entries(compose.services).filter(([, service]) =>
    service.profiles?.includes('observability'),
  );
  const prometheus = compose.services.prometheus!;
  /** Where in the container each file comes from. */
  const mounted = (service: { volumes?: string[] }): Record<string, string> =>
    Object.fromEntries((service.volumes ?? []).map((volume) => volume.split(':')).map(([from, to]) => [to!, from!]));

  it('adds Jaeger and Prometheus, and nothing that `docker compose up` alone would start', () => {
    expect(profiled.map(([name]) => name).sort()).toEqual(['jaeger', 'prometheus']);
    for (const [, service] of ours) expect(service.profiles).toBeUndefined();
  });

  it('mounts Prometheus config files that exist, with the rule file it names', () => {
    const files = mounted(prometheus);
    for (const from of Object.values(files)) expect(existsSync(join(ROOT, from))).toBe(true);
    const config = parse(readFileSync(join(ROOT, files['/etc/prometheus/prometheus.yml']!), 'utf8'));
    for (const rules of config.rule_files) expect(files[rules], `${rules} is not mounted`).toBeDefined();
  });

  it('scrapes the ports the gateway and the worker serve metrics on', () => {
    const config = parse(readFileSync(join(ROOT, mounted(prometheus)['/etc/prometheus/prometheus.yml']!), 'utf8'));
    const targets = config.scrape_configs.flatMap((job: any) =>
      job.dns_sd_configs.flatMap((sd: any) => sd.names.map((name: string) => `${name}:${sd.port}`)),
    );
    const gateway = compose.services.gateway!.environment!;
    const worker = compose.services.worker!.environment!;
    expect(targets.sort()).toEqual([`gateway:${gateway.A2A_METRICS_PORT}`, `worker:${worker.A2A_WORKER_METRICS_PORT}`]);
    // Scraped inside the compose network only: unauthenticated endpoints are never published.
    for (const [, service] of ours) {
      for (const port of [gateway.A2A_METRICS_PORT, worker.A2A_WORKER_METRICS_PORT]) {
        expect(service.ports ?? []).not.toContain(`${port}:${port}`);
      }
    }
  });

  it('sends the traces, when turned on, to Jaeger over OTLP/HTTP', () => {
    const jaeger = compose.services.jaeger!;
    expect(jaeger.environment?.COLLECTOR_OTLP_ENABLED).toBe('true');
    for (const name of ['gateway', 'worker']) {
      const environment = compose.services[name]!.environment!;
      expect(environment.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('${OTEL_EXPORTER_OTLP_ENDPOINT:-http://jaeger:4318}');
      expect(environment.OTEL_TRACES_EXPORTER).toBe('${OTEL_TRACES_EXPORTER:-none}');
    }
  });
});
