/**
 * Every error code and its status live in the one `ERROR_CODES` table (errors.ts): a source scan of `server/` fails
 * when a `new HearthError(…)` — or a call of a function that forwards its code or options to one — passes a `status`
 * (the options' type has none; the scan also catches a spread that could carry one) or names a code the table does
 * not have. An answer whose status differs from its code's (say an OAuth error at another status) gets a code of its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, HearthError } from './errors.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/**
 * Code arguments that are not string literals, each checked another way: `f.code` is narrowed to literal codes by the
 * `switch` around it (the typecheck holds it to `ErrorCode`), `codeForStatus` is typed to return an `ErrorCode`, and
 * `answer.code` is typed `ErrorCode`.
 */
const CHECKED_ELSEWHERE = new Set([
  'server/db/sql/sql.service.ts: f.code',
  'server/core/http/middleware.ts: codeForStatus(err.status)',
  // A CSV import's refusal, made as a HearthError in its worker thread and carried over as its parts (typed ErrorCode).
  'server/db/rows/csv.ts: answer.code',
]);

/**
 * The helpers that pass their code (and options) on to `new HearthError`: their call sites are checked like the
 * constructor's. A new helper that forwards a code makes the scan fail until it is named here.
 */
const FORWARDERS: Array<{ name: string; module: string; code: number; opts: number | null }> = [
  { name: 'notFound', module: 'server/core/http/errors.ts', code: 0, opts: null },
  { name: 'oauthError', module: 'server/identity/oauth/action-context.ts', code: 0, opts: 2 },
  { name: 'oauthError', module: 'server/identity/oauth/oauth.service.ts', code: 0, opts: 2 }, // re-exports action-context.ts's
  { name: 'pollError', module: 'server/identity/oauth/device.ts', code: 0, opts: null },
];

/** The forwarders a file can call: those it declares, and those it imports from the module that declares them. */
function forwardersOf(file: string, sf: ts.SourceFile): Map<string, { code: number; opts: number | null }> {
  const out = new Map<string, { code: number; opts: number | null }>();
  for (const f of FORWARDERS) if (f.module === file) out.set(f.name, f);
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || !st.importClause?.namedBindings) continue;
    if (!ts.isNamedImports(st.importClause.namedBindings)) continue;
    const from = path.posix.normalize(path.posix.join(path.posix.dirname(file), st.moduleSpecifier.text));
    for (const el of st.importClause.namedBindings.elements) {
      const f = FORWARDERS.find((x) => x.module === from && x.name === (el.propertyName ?? el.name).text);
      if (f) out.set(el.name.text, f);
    }
  }
  return out;
}

/** The codes an expression can be when each is written out (a literal, or a conditional between literals); else null. */
function literalCodes(e: ts.Expression): string[] | null {
  if (ts.isParenthesizedExpression(e)) return literalCodes(e.expression);
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return [e.text];
  if (ts.isConditionalExpression(e)) {
    const a = literalCodes(e.whenTrue);
    const b = literalCodes(e.whenFalse);
    return a && b ? [...a, ...b] : null;
  }
  return null;
}

type Site = { file: string; line: number; text: string };

function sources(): Array<{ file: string; sf: ts.SourceFile }> {
  const out: Array<{ file: string; sf: ts.SourceFile }> = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts')) {
        const file = path.relative(ROOT, full).split(path.sep).join('/');
        out.push({ file, sf: ts.createSourceFile(file, fs.readFileSync(full, 'utf8'), ts.ScriptTarget.Latest, true) });
      }
    }
  };
  walk(path.join(ROOT, 'server'));
  return out;
}

function visit(node: ts.Node, fn: (n: ts.Node) => void): void {
  fn(node);
  node.forEachChild((c) => visit(c, fn));
}

const calleeName = (n: ts.NewExpression | ts.CallExpression): string | null =>
  ts.isIdentifier(n.expression) ? n.expression.text : ts.isPropertyAccessExpression(n.expression) ? n.expression.name.text : null;

/** The parameter names of the function that most closely encloses `n`, with the name it is bound to. */
function enclosingFunction(n: ts.Node): { name: string | null; params: string[] } | null {
  for (let p = n.parent; p; p = p.parent) {
    if (ts.isArrowFunction(p) || ts.isFunctionExpression(p) || ts.isFunctionDeclaration(p) || ts.isMethodDeclaration(p)) {
      const params = p.parameters.map((x) => (ts.isIdentifier(x.name) ? x.name.text : '')).filter(Boolean);
      let name: string | null = null;
      if ((ts.isFunctionDeclaration(p) || ts.isMethodDeclaration(p)) && p.name && ts.isIdentifier(p.name)) name = p.name.text;
      else if (p.parent && ts.isVariableDeclaration(p.parent) && ts.isIdentifier(p.parent.name)) name = p.parent.name.text;
      else if (p.parent && ts.isPropertyAssignment(p.parent) && ts.isIdentifier(p.parent.name)) name = p.parent.name.text;
      return { name, params };
    }
  }
  return null;
}

function scan() {
  const files = sources();
  let forwarders = new Map<string, { code: number; opts: number | null }>();
  const makers = (n: ts.Node): n is ts.NewExpression | ts.CallExpression =>
    (ts.isNewExpression(n) && calleeName(n) === 'HearthError') ||
    (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && forwarders.has(n.expression.text));
  const shape = (n: ts.NewExpression | ts.CallExpression) => (ts.isNewExpression(n) ? { code: 0, opts: 2 } : forwarders.get(calleeName(n)!)!);
  let seen = 0;
  const unknownCodes: Site[] = [];
  const unchecked: Site[] = [];
  const statuses: Site[] = [];
  for (const { file, sf } of files) {
    if (file === 'server/core/http/errors.ts') continue;
    forwarders = forwardersOf(file, sf);
    visit(sf, (n) => {
      if (!makers(n)) return;
      seen++;
      const { code, opts } = shape(n);
      const site = (node: ts.Node): Site => ({ file, line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.getText() });
      const c = code === null ? undefined : n.arguments?.[code];
      const f = enclosingFunction(n);
      // A forwarder's own body passes its parameter on; its call sites are the ones checked.
      const forwarded = (a: ts.Node | undefined) => !!a && ts.isIdentifier(a) && !!f?.name && forwarders.has(f.name) && f.params.includes(a.text);
      const codes = c ? literalCodes(c) : null;
      if (codes) {
        if (codes.some((x) => !Object.hasOwn(ERROR_CODES, x))) unknownCodes.push(site(c!));
      } else if (c && !forwarded(c) && !CHECKED_ELSEWHERE.has(`${file}: ${c.getText()}`)) {
        unchecked.push(site(c));
      }
      const o = opts === null ? undefined : n.arguments?.[opts];
      if (o && ts.isObjectLiteralExpression(o)) {
        const status = o.properties.find((p) => (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && p.name.getText() === 'status');
        const spread = o.properties.some((p) => ts.isSpreadAssignment(p));
        if (status || spread) statuses.push(site(o));
      } else if (o && !forwarded(o)) {
        unchecked.push(site(o));
      }
    });
  }
  return { seen, unknownCodes, unchecked, statuses };
}

describe('ERROR_CODES is the one table of codes and statuses', () => {
  const result = scan();

  it('sees the error constructions of server/', () => {
    expect(result.seen).toBeGreaterThan(250);
  });

  it('no HearthError in server/ passes its own status', () => {
    expect(result.statuses).toEqual([]);
  });

  it('every code an error is made with is in the table', () => {
    expect(result.unknownCodes).toEqual([]);
    expect(result.unchecked).toEqual([]);
  });

  it("the status of an error is its code's", () => {
    expect(new HearthError('device_limit', 'x').status).toBe(409);
    expect(new HearthError('approval_unavailable', 'x', { headers: { 'Retry-After': '1' } }).status).toBe(503);
    for (const [code, status] of Object.entries(ERROR_CODES)) expect(status, code).toBeGreaterThanOrEqual(400);
  });
});
