/**
 * What the launcher (server/entry/launch.ts) and the CLI (index.ts) both read from a command line before anything is
 * loaded: which top-level command it names, and whether that command needs the server's code. No imports, so the
 * launcher stays small.
 *
 * The headless build makes two bundles of the CLI: the server's (`hearth-server.cjs`, everything) and the CLI's own
 * (`hearth-cli.cjs`, the commands that only talk to a running server: a fifth of the size, so such a command reads and
 * compiles a fifth). The launcher runs the commands listed here, and every helper, from the server's bundle; build/
 * headless.ts leaves their modules out of the CLI's bundle and fails when that bundle still reaches the server.
 */

/** The top-level commands that open a data folder or run the server (their modules import it when they run). */
export const SERVER_BUNDLE_COMMANDS: readonly string[] = ['serve', 'tokens', 'setup', 'backup', 'migrate-store'];

/**
 * The top-level command an argument list runs (the arguments after `hearth`), or null for none (`--version`, `--help`,
 * no arguments), read as commander reads it: the first operand after the root options (`--ca-file` takes a value;
 * after `--` every argument is an operand), or the operand after `help` (`hearth help ns`).
 */
export function commandNamed(args: readonly string[]): string | null {
  let help = false;
  let operandsOnly = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!operandsOnly && a === '--') operandsOnly = true;
    else if (!operandsOnly && a === '--ca-file') i++;
    else if (!operandsOnly && a.startsWith('-') && a !== '-') continue;
    else if (a === 'help' && !help) help = true;
    else return a;
  }
  return null;
}

/** Whether the arguments after `hearth` run from the server's bundle (see above); false for `--help` and unknown names. */
export function needsServerBundle(args: readonly string[]): boolean {
  const name = commandNamed(args);
  return name !== null && SERVER_BUNDLE_COMMANDS.includes(name);
}
