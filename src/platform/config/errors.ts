/** A configuration that cannot be used: the message names the key (check-config and serve exit 2 with it). */
export class ConfigError extends Error {}
