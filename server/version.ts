import pkg from '../package.json' with { type: 'json' };

/** Hearth's version (package.json), on its own so that the CLI can print it without loading the server. */
export const VERSION: string = pkg.version;
