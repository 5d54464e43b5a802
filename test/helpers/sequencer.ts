/**
 * The order Vitest runs the files in: the longest first, so that the last minutes of a run are not one slow file
 * running alone on a machine with room for four (longest-processing-time-first scheduling). Vitest does the same from
 * its own cache of the last run's durations, which a clean clone (CI) does not have: it then starts the largest
 * files first, and one project's files before the other's, and the desktop supervisor's five minutes started a
 * quarter of the way in.
 *
 * The durations are test/durations.json: seconds each file took in a measured run of `npm test` under load (the
 * longer of its two projects), written from that run's test-results/logs/vitest.json by
 * `node test/helpers/sequencer.ts test-results/logs/vitest.json`. A file it does not list (a new one) starts first,
 * as Vitest starts files it has no result for; then the longest known, each project's copy of a file together.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TABLE = path.join(ROOT, 'test', 'durations.json');

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = JSON.parse(fs.readFileSync(TABLE, 'utf8')) as Record<string, number>;
    const known = (spec: TestSpecification) => seconds[path.relative(ROOT, spec.moduleId).split(path.sep).join('/')];
    const unknown = files.filter((spec) => known(spec) === undefined);
    const listed = files.filter((spec) => known(spec) !== undefined);
    listed.sort((a, b) => known(b)! - known(a)! || (a.project.name < b.project.name ? -1 : a.project.name > b.project.name ? 1 : 0));
    return [...(await super.sort(unknown)), ...listed];
  }
}

// `node test/helpers/sequencer.ts <vitest.json>`: rewrites test/durations.json from a run's JSON report.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const report = process.argv[2];
  if (!report) throw new Error('usage: node test/helpers/sequencer.ts <vitest.json of a run>');
  const runRoot = path.resolve(path.dirname(report), '../..'); // the report is <checkout>/test-results/logs/vitest.json
  const { testResults } = JSON.parse(fs.readFileSync(report, 'utf8')) as { testResults: Array<{ name: string; startTime: number; endTime: number }> };
  const table: Record<string, number> = {};
  for (const r of testResults) {
    const file = path.relative(runRoot, r.name).split(path.sep).join('/');
    table[file] = Math.max(table[file] ?? 0, Math.round((r.endTime - r.startTime) / 1000));
  }
  const sorted = Object.entries(table).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  fs.writeFileSync(TABLE, `${JSON.stringify(Object.fromEntries(sorted), null, 2)}\n`);
  console.log(`test/durations.json: ${sorted.length} files`);
}
