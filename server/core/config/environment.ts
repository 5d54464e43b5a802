/**
 * The process environment, read in one place (a test keeps every other file under server/ from touching
 * `process.env`). The server's settings are declared in config.ts; this module holds the rest, and stays free of
 * dependencies so the CLI can load it cheaply:
 *  - the CLI's variables (which server, which token, which data folder, where credentials live, which CA to trust);
 *  - the cache folder of the headless binary's extracted assets;
 *  - process plumbing between Hearth's own processes (the SQLite addon's location) and what a child process inherits;
 *  - the test suite's one switch, HEARTH_TEST_PASSWORD_HASHING (testPasswordHashing below).
 * An empty value counts as unset, as for the server's settings.
 */

/** The environment variables of the `hearth` command (docs/operations/running.md, "The hearth command"). */
export const CLI_ENV = {
  url: 'HEARTH_URL',
  token: 'HEARTH_TOKEN',
  adminToken: 'HEARTH_ADMIN_TOKEN',
  dataDir: 'HEARTH_DATA_DIR',
  configDir: 'HEARTH_CONFIG_DIR',
  caFile: 'HEARTH_CA_FILE',
  databaseUrl: 'HEARTH_DATABASE_URL',
} as const;

const read = (name: string): string | undefined => {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
};

export interface CliEnvironment {
  /** HEARTH_URL: the server the commands talk to. */
  url?: string;
  /** HEARTH_TOKEN, else HEARTH_ADMIN_TOKEN. */
  token?: string;
  /** HEARTH_DATA_DIR: the data folder of the commands that work on it directly. */
  dataDir?: string;
  /** HEARTH_CONFIG_DIR, else `$XDG_CONFIG_HOME/hearth` (when absolute), else `~/.config/hearth`. */
  configDir?: string;
  xdgConfigHome?: string;
  /** HEARTH_CA_FILE: extra roots to trust for HTTPS. */
  caFile?: string;
  /** HEARTH_DATABASE_URL: the core store on PostgreSQL, for the commands that open it directly (tokens, setup). */
  databaseUrl?: string;
}

export function cliEnvironment(): CliEnvironment {
  return {
    url: read(CLI_ENV.url),
    token: read(CLI_ENV.token) ?? read(CLI_ENV.adminToken),
    dataDir: read(CLI_ENV.dataDir),
    configDir: read(CLI_ENV.configDir),
    xdgConfigHome: read('XDG_CONFIG_HOME'),
    caFile: read(CLI_ENV.caFile),
    databaseUrl: read(CLI_ENV.databaseUrl),
  };
}

/** The whole environment: what `startServer` reads settings from unless given its own, and what the CLI's `serve` passes on. */
export function processEnvironment(): NodeJS.ProcessEnv {
  return process.env;
}

/** The given variables of this process (those set), for a child process's allow-listed environment. */
export function inherit(names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of names) {
    const v = process.env[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** A value one Hearth process hands to the processes it starts later (they inherit the environment). */
export function handoff(name: string): string | undefined {
  return read(name);
}

export function setHandoff(name: string, value: string): void {
  process.env[name] = value;
}

/**
 * `HEARTH_TEST_PASSWORD_HASHING=light`: the test suite's switch (vitest.config.ts, the Playwright servers) for Argon2id
 * at the lowest cost a stored hash may name (8 MiB, one pass) instead of 64 MiB and three passes, because the suite signs
 * in thousands of times and the production parameters made Argon2 a third of its CPU time. The same code runs; only the
 * numbers in the PHC string differ (test/integration/identity/sessions.test.ts checks the production ones with it unset).
 * Never for a real installation: identity says so in its start-up log while it is set.
 */
export function testPasswordHashing(): 'light' | undefined {
  return read('HEARTH_TEST_PASSWORD_HASHING') === 'light' ? 'light' : undefined;
}
