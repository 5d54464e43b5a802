import { actorFor } from '../../core/auth/auth.ts';
import type { Api } from '../../core/http/api.ts';
import type { AppContext } from '../../core/http/app-context.ts';
import { JWKS_MAX_AGE_S, type Purpose } from './keys.lifecycle.ts';
import { Jwks, KeyList, KidParams, RevokeBody, RevokeResult, RewrapResult } from './keys.schemas.ts';
import type { KeysService } from './keys.service.ts';
import { JWKS_PATHS } from './keys.tokens.ts';

const tags = ['Identity keys'];

const JWKS_DOCS: Record<Purpose, { operationId: string; summary: string }> = {
  session: { operationId: 'sessionJwks', summary: 'Session token public keys' },
  invocation: { operationId: 'invocationJwks', summary: 'Invocation token public keys' },
  oauth: { operationId: 'oauthJwks', summary: 'OAuth / OpenID Connect public keys' },
};

/** Whether an `If-None-Match` header matches `etag` (weak comparison, RFC 9110 13.1.2). */
function matches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

export function registerKeyRoutes(api: Api, keys: KeysService): void {
  for (const purpose of ['session', 'invocation', 'oauth'] as const) {
    api.route({
      method: 'get',
      path: JWKS_PATHS[purpose],
      operationId: JWKS_DOCS[purpose].operationId,
      tags,
      access: 'public',
      summary: JWKS_DOCS[purpose].summary,
      description:
        `The ${purpose} purpose's pending, active and not yet withdrawn retired public keys${purpose === 'oauth' ? ' (OAuth keys only; session and invocation keys have their own documents)' : ''}. ` +
        `A strong \`ETag\` per document; \`If-None-Match\` answers 304; \`Cache-Control: public, max-age=${JWKS_MAX_AGE_S}\`.`,
      responses: {
        200: { description: 'The JWK set.', schema: () => Jwks, contentType: 'application/jwk-set+json' },
        304: { description: 'Not modified (the `If-None-Match` ETag is current).' },
      },
      handler: async (ctx: AppContext) => {
        const { body, etag } = await keys.jwks(purpose);
        ctx.set('ETag', etag);
        ctx.set('Cache-Control', `public, max-age=${JWKS_MAX_AGE_S}`);
        const inm = ctx.get('if-none-match');
        if (inm && matches(inm, etag)) {
          ctx.status = 304;
          return undefined;
        }
        ctx.type = 'application/jwk-set+json';
        ctx.body = body;
        return undefined;
      },
    });
  }

  api.route({
    method: 'get',
    path: '/api/admin/identity/keys',
    operationId: 'listSigningKeys',
    tags,
    access: 'admin',
    summary: 'List signing keys and the KEK fingerprint',
    description:
      'Answers `{kekFingerprint, kek: {fingerprint, source, next, previous}, verifierJwks: {session, invocation, oauth}, keys: [SigningKey]}`: the lifecycle metadata of every key ' +
      '(state, publication, activation, 30-day deadline, retirement, JWKS withdrawal, revocation reason, `encryptionKeyId`), the current ' +
      'KEK fingerprint, and the URLs verifiers in other processes fetch each key set from (`HEARTH_IDENTITY_JWKS_ORIGIN`, `HEARTH_OAUTH_JWKS_ORIGIN`, else the issuer). Never contains key material. `Cache-Control: no-store`.',
    responses: { 200: { description: 'Keys and KEK fingerprints.', schema: () => KeyList } },
    handler: (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      return keys.list();
    },
  });

  api.route({
    method: 'post',
    path: '/api/admin/identity/keys/rewrap',
    operationId: 'rewrapSigningKeys',
    tags,
    access: 'admin',
    summary: 'Re-encrypt every private key under the current KEK',
    description:
      'Decrypts each private key with the current, previous or next KEK, validates its key pair, encrypts it with the current KEK only, and ' +
      'updates all rows in one transaction. Idempotent: a repeat answers `rewrapped: 0`. Answers `{rewrapped, unchanged, encryptionKeyId}`. ' +
      'Audited as `identity.keys.rewrap`. 503 (`service_unavailable`) when a key cannot be decrypted or its pair does not match.',
    responses: { 200: { description: 'Rewrapped.', schema: () => RewrapResult }, 503: { description: 'A stored key is unreadable (`service_unavailable`).' } },
    handler: async (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      return await keys.rewrap(actorFor(ctx));
    },
  });

  api.route({
    method: 'post',
    path: '/api/admin/identity/keys/:kid/revoke',
    operationId: 'revokeSigningKey',
    tags,
    access: 'admin',
    summary: 'Emergency revocation of a signing key',
    description:
      'Revokes an active or pending key with a durable incident `reason`: it leaves its JWKS at once, no process signs with it again, and when ' +
      'it was active an immediately active replacement is created (no prepublication). Already issued tokens stay valid until they expire or ' +
      'until verifiers drop their cached key set (at most five minutes). Answers `{revoked: SigningKey, replacementKid}`. Audited as `identity.key.revoke`.',
    params: () => KidParams,
    body: () => RevokeBody,
    responses: {
      200: { description: 'Revoked.', schema: () => RevokeResult },
      404: { description: 'No such key (`key_not_found`).' },
      409: { description: 'The key is already retired or revoked (`key_not_revocable`).' },
    },
    handler: async (ctx, { params, body }) => {
      ctx.set('Cache-Control', 'no-store');
      return await keys.revoke(params.kid, body.reason, actorFor(ctx));
    },
  });
}
