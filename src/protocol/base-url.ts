/**
 * Base URLs as the gateway, the CLI and the telemetry settings join paths onto them: one trailing
 * slash or many (as people type them) would otherwise double the slash before the path.
 */

/** `url` without trailing slashes: `http://host:8080/` is `http://host:8080`. */
export function withoutTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}
