/**
 * Shared by bench/oauth.bench.ts and bench/tls.bench.ts: the `client_credentials` token request both servers get,
 * the confidential client made on Hearth (and given to oidc-provider: the same id and secret), oidc-provider's
 * RSA key, and the check that an answer is a JWT access token verifying against the server's JWKS.
 */
import crypto from 'node:crypto';
import { createLocalJWKSet, type JWK, type JWTPayload, jwtVerify } from 'jose';
import { keepAliveAgent, request, type TlsClient } from './lib.ts';
import { RawConnection } from './rows-http.ts';

export const FORM = 'grant_type=client_credentials&scope=read';

export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

/** The bytes of one token request (the same for every request: HTTP Basic client authentication, form body). */
export function tokenRequest(base: string, endpoint: string, authorization: string): Buffer {
  const host = new URL(base).host;
  return Buffer.from(
    `POST ${endpoint} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${authorization}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
      `Accept: application/json\r\nContent-Length: ${Buffer.byteLength(FORM)}\r\n\r\n${FORM}`,
    'latin1',
  );
}

export interface Checked {
  header: Record<string, unknown>;
  claims: JWTPayload;
  bytes: number;
  tokenType: string;
  expiresIn: unknown;
}

/** One token request on a fresh connection; the answer must be a JWT access token that verifies against `jwksUrl`. */
export async function checkToken(name: string, base: string, req: Buffer, jwksUrl: string, audience: string, tlsClient?: TlsClient): Promise<Checked> {
  const c = await RawConnection.open(base, tlsClient);
  let body: Buffer;
  try {
    const res = await c.send(req);
    if (res.status !== 200) throw new Error(`${name}: token request → ${res.status} ${res.body.toString('utf8', 0, 300)}`);
    body = res.body;
  } finally {
    c.close();
  }
  const json = JSON.parse(body.toString('utf8')) as { access_token?: string; token_type?: string; expires_in?: unknown; scope?: string };
  const at = json.access_token;
  if (typeof at !== 'string' || at.split('.').length !== 3) throw new Error(`${name}: the access token is not a JWT: ${body.toString('utf8', 0, 300)}`);
  const agent = keepAliveAgent(1, tlsClient);
  const jwks = await request(agent, jwksUrl);
  agent.destroy();
  if (jwks.status !== 200) throw new Error(`${name}: ${jwksUrl} → ${jwks.status}`);
  const { payload, protectedHeader } = await jwtVerify(at, createLocalJWKSet(JSON.parse(jwks.body) as { keys: JWK[] }), { audience, algorithms: ['RS256'] });
  if (json.scope !== 'read' || payload.scope !== 'read')
    throw new Error(`${name}: expected scope "read", got ${JSON.stringify(json.scope)} / ${JSON.stringify(payload.scope)}`);
  return {
    header: protectedHeader as Record<string, unknown>,
    claims: payload,
    bytes: body.length,
    tokenType: String(json.token_type),
    expiresIn: json.expires_in,
  };
}

export interface BenchClient {
  clientId: string;
  clientSecret: string;
  /** `Basic …` for the token request. */
  authorization: string;
  /** The namespace's API as the client's audience. */
  audience: string;
  /** The service account the client acts as. */
  sub: string;
}

/**
 * On Hearth (admin token): namespace `ns` when `createNamespace` (else it must exist), a service account bound to
 * it and a confidential client bound to that account, with scopes read and write and the namespace's URL as audience.
 */
export async function createBenchClient(
  hearthUrl: string,
  adminToken: string,
  ns: string,
  opts: { createNamespace?: boolean; tlsClient?: TlsClient } = {},
): Promise<BenchClient> {
  const agent = keepAliveAgent(1, opts.tlsClient);
  try {
    const admin = async (p: string, body: unknown, expect: number) => {
      const r = await request(agent, hearthUrl + p, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (r.status !== expect) throw new Error(`POST ${p} → ${r.status} ${r.body.slice(0, 300)}`);
      return JSON.parse(r.body) as Record<string, any>;
    };
    if (opts.createNamespace) await admin('/v1/namespaces', { name: ns }, 201);
    const sa = await admin('/api/admin/core/service-accounts', { appId: 'hearth-db', resourceType: 'namespace', resourceId: ns }, 201);
    const audience = `${hearthUrl}/v1/${ns}`;
    const created = await admin(
      '/api/admin/oauth/clients',
      { name: 'Bench job', serviceAccountId: sa.sub, scopes: ['read', 'write'], audiences: [audience] },
      201,
    );
    const clientId = created.client.clientId as string;
    const clientSecret = created.clientSecret as string;
    return { clientId, clientSecret, authorization: basic(clientId, clientSecret), audience, sub: sa.sub as string };
  } finally {
    agent.destroy();
  }
}

/** A fresh RSA 2048 private JWK (with `kid`, `alg: RS256`, `use: sig`) for oidc-provider. */
export function providerJwk(): JWK & { kid: string } {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...(privateKey.export({ format: 'jwk' }) as JWK), kid: `bench-${crypto.randomBytes(6).toString('base64url')}`, alg: 'RS256', use: 'sig' };
}
