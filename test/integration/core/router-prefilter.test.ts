/**
 * The router prefilter (`prefilterMatch`, server/core/http/api.ts) replaces @koa/router's `match` on our router with
 * one that hands the original only the layers a path can match. It leans on the router's internals, which these tests
 * pin: a `stack` of layers with `path` and `methods`, a `match(path, method)` that walks `this.stack` and that the
 * router's middleware calls as `this.match`. And on the real server's route table, every registered route resolves
 * to the same layers with and without the prefilter.
 */
import Router from '@koa/router';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Api } from '../../../server/core/http/api.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

type Layer = { path: unknown; methods: string[]; opts?: unknown };
type MatchResult = { path: Layer[]; pathAndMethod: Layer[]; route: boolean };
type Matching = { stack: Layer[]; match(path: string, method: string): MatchResult };

let s: TestServer;
let router: Matching;
beforeAll(async () => {
  // The server's Api, caught as it registers its first route.
  const spy = vi.spyOn(Api.prototype, 'route');
  let apis: unknown[];
  try {
    s = await startTestServer();
  } finally {
    apis = [...new Set(spy.mock.contexts)];
    spy.mockRestore();
  }
  expect(apis).toHaveLength(1);
  router = (apis[0] as Api).router as unknown as Matching;
});
afterAll(async () => {
  await s?.stop();
});

/** @koa/router's own matcher, as the prefilter calls it. */
const original = (Router.prototype as unknown as Matching).match;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Request paths near a route's path: its parameters filled, a trailing slash, a segment more or less, another case. */
function probes(path: string): string[] {
  const filled = path.replace(/:[A-Za-z_]+/g, (_, i: number) => `v${i}`);
  const out = [
    filled,
    `${filled}/`,
    `${filled}/extra`,
    filled.replace(/\/[^/]*$/, '') || '/',
    filled.toUpperCase(),
    path.replace(/:[A-Za-z_]+/g, 'a%20b'),
    `${filled}//`,
  ];
  if (path.includes('/:')) out.push(path.replace(/:[A-Za-z_]+/g, ''));
  return out;
}

describe('the @koa/router internals the prefilter relies on', () => {
  it('the router keeps its layers in `stack`, each with a string path and upper-case methods', () => {
    expect(Array.isArray(router.stack)).toBe(true);
    const routes = router.stack.filter((l) => l.methods.length > 0);
    expect(routes.length).toBeGreaterThan(100);
    for (const l of routes) {
      expect(typeof l.path).toBe('string');
      expect(l.methods.every((m) => m === m.toUpperCase())).toBe(true);
    }
    expect(routes.some((l) => l.path === '/v1/:ns/tables/:table/rows/:id' && l.methods.includes('GET'))).toBe(true);
  });

  it('match(path, method) walks this.stack and answers {path, pathAndMethod, route}', () => {
    expect(original.length).toBe(2);
    expect(original.call({ stack: [] } as unknown as Matching, '/v1/namespaces', 'GET')).toEqual({ path: [], pathAndMethod: [], route: false });
    const one = router.stack.find((l) => l.path === '/v1/namespaces' && l.methods.includes('GET'))!;
    const r = original.call({ stack: [one] } as unknown as Matching, '/v1/namespaces', 'GET');
    expect(r.path).toEqual([one]);
    expect(r.pathAndMethod).toEqual([one]);
    expect(r.route).toBe(true);
  });

  it("the router's middleware routes through this.match (the prefilter's own), not a private copy", async () => {
    expect(Object.hasOwn(router, 'match')).toBe(true);
    const prefiltered = router.match;
    const seen: string[] = [];
    router.match = function (this: Matching, path: string, method: string) {
      seen.push(`${method} ${path}`);
      return prefiltered.call(this, path, method);
    };
    try {
      expect((await s.api('/v1/namespaces')).status).toBe(200);
    } finally {
      router.match = prefiltered;
    }
    expect(seen).toContain('GET /v1/namespaces');
  });
});

describe('the prefilter on the real route table', () => {
  it('every registered route resolves to the same layers with and without it', () => {
    const index = new Map(router.stack.map((l, i) => [l, i]));
    const ids = (r: MatchResult) => ({ path: r.path.map((l) => index.get(l)), pathAndMethod: r.pathAndMethod.map((l) => index.get(l)), route: r.route });
    let compared = 0;
    let routed = 0;
    for (const layer of router.stack) {
      if (typeof layer.path !== 'string') continue;
      for (const p of probes(layer.path)) {
        for (const m of METHODS) {
          const want = ids(original.call(router, p, m));
          expect(ids(router.match(p, m)), `${m} ${p}`).toEqual(want);
          compared++;
          if (want.route) routed++;
        }
      }
      // The route itself is found for each of its methods.
      for (const m of layer.methods) expect(router.match(layer.path.replace(/:[A-Za-z_]+/g, 'x'), m).pathAndMethod, `${m} ${layer.path}`).toContain(layer);
    }
    expect(compared).toBeGreaterThan(1000);
    expect(routed).toBeGreaterThan(100);
  });
});
