/**
 * The baseline of the OAuth benchmark: panva's `oidc-provider` in its own process (forked by bench/lib.ts
 * `startChild`), configured for the same grant Hearth serves: `client_credentials` for one confidential client
 * (`client_secret_basic`), resource indicators resolving every request to one resource server whose access tokens
 * are RS256 JWTs signed with the 2048-bit RSA key given by the parent. With `tls` (a PEM certificate and key), it
 * serves `node:https` presenting that certificate and its issuer is `https://…` (bench/tls.bench.ts).
 *
 * Parent → child: {type: 'start', jwk, clientId, clientSecret, audience, tls?: {cert, key}}, {type: 'stop'}.
 * Child → parent: {type: 'ready', url}, {type: 'error', message}.
 * The child exits when told to stop or when the parent goes away.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

interface StartMessage {
  type: 'start';
  /** Private RSA JWK (with `kid`, `alg: RS256`, `use: sig`). */
  jwk: Record<string, unknown>;
  clientId: string;
  clientSecret: string;
  audience: string;
  /** Serve https with this certificate (PEM, leaf first) and key. */
  tls?: { cert: string; key: string };
}

if (!process.send) {
  console.error('bench/oauth-provider-child.ts must be started with child_process.fork (it talks over IPC)');
  process.exit(2);
}
const send = (msg: Record<string, unknown>) => process.send!(msg);

let server: http.Server | null = null;
let stopping = false;

function stop(code: number): void {
  if (stopping) return;
  stopping = true;
  if (!server) process.exit(code);
  server.closeAllConnections();
  server.close(() => process.exit(code));
  setTimeout(() => process.exit(code), 2000).unref();
}

async function start(m: StartMessage): Promise<string> {
  const srv = m.tls ? https.createServer({ cert: m.tls.cert, key: m.tls.key }) : http.createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve());
  });
  server = srv;
  const { port } = srv.address() as AddressInfo;
  const issuer = `${m.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const resourceServer = {
    scope: 'read',
    audience: m.audience,
    accessTokenFormat: 'jwt' as const,
    accessTokenTTL: 3600,
    jwt: { sign: { alg: 'RS256' } },
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: m.clientId,
        client_secret: m.clientSecret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'read',
      },
    ],
    jwks: { keys: [m.jwk] },
    scopes: ['read'],
    ttl: { ClientCredentials: 3600 },
    cookies: { keys: ['bench-cookie-key-not-secret-0123456789'] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => m.audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string) => {
          if (resourceIndicator !== m.audience) throw new Error(`unexpected resource ${resourceIndicator}`);
          return resourceServer;
        },
      },
    },
  });
  // Errors answered to clients (4xx) are not logged; anything else is.
  provider.on('server_error', (_ctx: unknown, err: Error) => console.error('oauth-provider-child: server_error:', err));
  srv.on('request', provider.callback());
  return issuer;
}

process.on('disconnect', () => stop(0));
process.on('message', (raw) => {
  const msg = raw as { type: string } & Partial<StartMessage>;
  if (msg.type === 'start') {
    start(msg as StartMessage).then(
      (url) => send({ type: 'ready', url }),
      (err: unknown) => {
        send({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
        process.exit(1);
      },
    );
  } else if (msg.type === 'stop') {
    stop(0);
  }
});
