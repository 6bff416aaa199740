/**
 * A mistake in the configuration (the config file, an environment variable, a file it names): the
 * process refuses to start and the message names the setting and what to set. The one type for all
 * of them, so the CLI can answer every such mistake as a usage error (exit 1).
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
