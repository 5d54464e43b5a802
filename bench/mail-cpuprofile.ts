/**
 * Summarises a V8 CPU profile (.cpuprofile, as written by test/helpers/server-child.ts) for the mail benchmark:
 * self time by function, and inclusive time by area (a package under node_modules, a folder of server/, Node's
 * internals, GC, idle), counted once per sample however often an area appears on the stack.
 */
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  /** [area, inclusive ms] sorted descending (areas that sit on the stack of a sample, each counted once). */
  areas: Array<[string, number]>;
  /** [function @ file:line, self ms] sorted descending. */
  selfTop: Array<[string, number]>;
  /** Like selfTop, but time in frames without a script (native code, builtins) is charged to the nearest JS caller. */
  selfJsTop: Array<[string, number]>;
}

/** The area of a stack frame: `nodemailer`, `server/mail/delivery`, `node:net`, `(garbage collector)`… */
function areaOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const srv = url.indexOf('/server/');
  if (srv >= 0) {
    const parts = url.slice(srv + 1).split('/');
    return parts.slice(0, Math.min(3, parts.length - 1)).join('/');
  }
  if (url.startsWith('node:'))
    return url
      .replace(/^node:internal\//, 'node:')
      .split('/')
      .slice(0, 2)
      .join('/');
  return url
    .replace(/^file:\/\//, '')
    .split('/')
    .slice(-2)
    .join('/');
}

export function summarizeProfile(file: string): ProfileSummary {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Time per node from samples × time deltas (µs), which is more precise than hitCount × interval.
  const nodeUs = new Map<number, number>();
  const samples = p.samples ?? [];
  const deltas = p.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const dt = deltas[i + 1] ?? deltas[i] ?? 0;
    nodeUs.set(samples[i]!, (nodeUs.get(samples[i]!) ?? 0) + Math.max(0, dt));
  }
  const totalUs = [...nodeUs.values()].reduce((a, b) => a + b, 0);
  const self = new Map<string, number>();
  const selfJs = new Map<string, number>();
  const frameKey = (cf: ProfileNode['callFrame']) =>
    `${cf.functionName || '(anonymous)'} @ ${areaOf(cf.url, cf.functionName)}${cf.url ? `/${cf.url.split('/').pop()}:${cf.lineNumber + 1}` : ''}`;
  const areas = new Map<string, number>();
  let idleUs = 0;
  for (const [id, us] of nodeUs) {
    const n = byId.get(id)!;
    const cf = n.callFrame;
    if (cf.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    const key = frameKey(cf);
    self.set(key, (self.get(key) ?? 0) + us);
    let js: number | undefined = id;
    while (js !== undefined && !byId.get(js)!.callFrame.url) js = parent.get(js);
    const jsKey =
      js === undefined || byId.get(js)!.callFrame.functionName === '(root)' ? key : frameKey(byId.get(js)!.callFrame) + (js === id ? '' : ' (+native)');
    selfJs.set(jsKey, (selfJs.get(jsKey) ?? 0) + us);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      if (f.functionName === '(root)') continue;
      seen.add(areaOf(f.url, f.functionName));
    }
    for (const a of seen) areas.set(a, (areas.get(a) ?? 0) + us);
  }
  const sort = (m: Map<string, number>) => [...m].map(([k, v]) => [k, v / 1000] as [string, number]).sort((a, b) => b[1] - a[1]);
  return { totalMs: totalUs / 1000, idleMs: idleUs / 1000, areas: sort(areas), selfTop: sort(self), selfJsTop: sort(selfJs) };
}
