/**
 * Configuration is declared once: nothing under server/ reads `process.env` but server/core/config/, and the operator
 * guide's configuration table (docs/operations/running.md) is the one generated from the declaration of the settings
 * (server/core/config/settings.ts, build/settings-doc.ts): every declared variable has a row, every row names a
 * declared one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { guideWithTable } from '../../../build/settings-doc.ts';
import { CONFIG_FILE, DEFAULTS, ENV_NAMES } from '../../../server/core/config/config.ts';

const repo = path.resolve(import.meta.dirname, '../../..');
const guide = fs.readFileSync(path.join(repo, 'docs/operations/running.md'), 'utf8');
const section = guide.slice(guide.indexOf('## Configuration'), guide.indexOf('\n## ', guide.indexOf('## Configuration') + 5));
/** Rows of the table: the variables named in the first cell, and the default cell. */
const rows = section
  .split('\n')
  .filter((l) => /^\| `[A-Z_]+`/.test(l))
  .map((l) => {
    const cells = l.split(' | ');
    return { names: [...cells[0]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!), defaultCell: cells[3] ?? '' };
  });

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.(ts|mts|cts|js|mjs|cjs)$/.test(e.name) ? [p] : [];
  });
}

describe('one place reads the environment', () => {
  it('no file under server/ but server/core/config/ mentions process.env', () => {
    const offenders = sources(path.join(repo, 'server'))
      .filter((f) => !f.startsWith(path.join(repo, 'server/core/config') + path.sep))
      .filter((f) => /\bprocess\s*\.\s*env\b|\bprocess\s*\[\s*['"]env['"]\s*\]/.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(repo, f));
    expect(offenders).toEqual([]);
  });
});

describe('the configuration table in docs/operations/running.md', () => {
  it('is the table generated from settings.ts (run `node build/settings-doc.ts` after changing a setting)', () => {
    expect(guideWithTable(guide)).toBe(guide);
  });

  it('has a row for every declared setting and none for an undeclared one', () => {
    const documented = new Set(rows.flatMap((r) => r.names));
    const declared = new Set([...Object.values(ENV_NAMES), CONFIG_FILE.env]);
    expect([...declared].filter((n) => !documented.has(n)).sort()).toEqual([]);
    expect([...documented].filter((n) => !declared.has(n)).sort()).toEqual([]);
  });

  it('gives the declared default of every numeric setting', () => {
    for (const [key, value] of Object.entries(DEFAULTS)) {
      if (typeof value !== 'number') continue;
      const name = ENV_NAMES[key as keyof typeof ENV_NAMES];
      const row = rows.find((r) => r.names.includes(name));
      expect(row, name).toBeDefined();
      expect(row!.defaultCell, name).toContain(`\`${value}\``);
    }
  });
});
