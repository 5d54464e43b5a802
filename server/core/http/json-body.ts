/**
 * A JSON answer handed to Koa as its text. Koa serializes an object body itself, but its body setter first asks
 * whether the value is a `Response`, and the first read of that global loads Node's whole fetch implementation
 * (undici): 20–100 ms and a few MB on the server's first JSON answer — the `/healthz` a supervisor waits for. Text
 * skips those checks; what goes out is the same: `JSON.stringify` of the value, a `Content-Length`, and a JSON content
 * type (`application/json; charset=utf-8` unless the route set another JSON type, such as `application/jwk-set+json`).
 * That type is set as the header itself: Koa's `ctx.type = 'json'` asks mime-types, whose tables the bundle builds on
 * first use (build/shims.ts), and the first answer would pay for them.
 *
 * Everything that is not a plain object or array (text, a Buffer, a stream, a Blob, a `Response`) goes to Koa as it is.
 */
import type { Context } from 'koa';

export function setBody(ctx: Pick<Context, 'body' | 'type' | 'set'>, value: unknown): void {
  if (
    value !== null &&
    typeof value === 'object' &&
    (Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)
  ) {
    if (!/\bjson\b/i.test(ctx.type)) ctx.set('Content-Type', 'application/json; charset=utf-8');
    ctx.body = JSON.stringify(value);
    return;
  }
  ctx.body = value;
}
