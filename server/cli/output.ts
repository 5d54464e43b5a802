/** Printing helpers shared by CLI commands: JSON for scripts, aligned tables for people. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** One JSON object per line (for `--jsonl`): easy to stream into `jq -c` or a line-oriented tool. */
export function printJsonLines(values: unknown[]): void {
  process.stdout.write(values.map((v) => `${JSON.stringify(v)}\n`).join(''));
}

/** `key  value` lines for a single record, keys aligned. */
export function printFields(fields: Array<[string, unknown]>): void {
  const cell = (v: unknown) => (v === null || v === undefined || v === '' ? '-' : Array.isArray(v) ? v.join(', ') : String(v));
  const width = Math.max(...fields.map(([k]) => k.length));
  process.stdout.write(`${fields.map(([k, v]) => `${(`${k}:`).padEnd(width + 1)}  ${cell(v)}`).join('\n')}\n`);
}

export function printTable(rows: Array<Record<string, unknown>>, columns: string[]): void {
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) =>
    `${vals
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()}\n`;
  process.stdout.write(line(columns.map((c) => c.toUpperCase())));
  for (const r of rows) process.stdout.write(line(columns.map((c) => cell(r[c]))));
}

export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '-';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}
