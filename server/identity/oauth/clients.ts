/**
 * OAuth clients: the seeded first-party client, client administration (`/api/admin/oauth/clients`) and dynamic
 * registration (RFC 7591). Hearth's own choices (also in docs/api/oauth.md):
 * - Client IDs: `hc_` + 16 random bytes (managed), `hd_` + 16 random bytes (dynamic), `hearth-cli` (first party).
 *   Client secrets: `hcs_` + 32 random bytes, shown once; stored as SHA-256 (`client-auth.ts` compares them).
 * - Managed clients get `authorization_code` and `refresh_token`, plus `client_credentials` when confidential and
 *   bound to a resource-bound service account. The first-party client cannot be edited, given a secret, revoked or
 *   deleted; a dynamic client cannot be edited (revoke or delete it).
 * - Dynamic registration makes public clients only (PKCE, a `resource` on this origin and consent are required at
 *   authorization); registrations that never start an authorization are removed after 24 hours.
 */

import type { z } from 'zod';
import { HearthError, quoteInput } from '../../core/http/errors.ts';
import type { Actor } from '../accounts/accounts.service.ts';
import {
  ABANDONED_REGISTRATION_MS,
  type Client,
  clientOf,
  FIRST_PARTY_CLI,
  type OAuthContext,
  oauthError,
  parseScope,
  random,
  rowOf,
  sha256,
} from './action-context.ts';
import { DEVICE_CODE_GRANT } from './device.ts';
import { absoluteUri, type CreateClientBody, DELEGATED_SCOPES, PLATFORM_AUDIENCE, type RegisterBody, type UpdateClientBody } from './oauth.schemas.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function presentClient(c: Client) {
  return {
    clientId: c.clientId,
    origin: c.origin,
    name: c.name,
    description: c.description,
    redirectUris: c.redirectUris,
    logoutUri: c.logoutUri,
    scopes: c.scopes,
    audiences: c.audiences,
    serviceAccountId: c.serviceAccountId,
    allowedProfiles: c.allowedProfiles,
    accessMode: c.accessMode,
    allowedUserIds: c.allowedUserIds,
    allowedGroupIds: c.allowedGroupIds,
    isPublic: c.isPublic,
    hasSecret: c.secretHash !== null,
    grantTypes: c.grantTypes,
    createdAt: iso(c.createdAt)!,
    updatedAt: iso(c.updatedAt)!,
    secretRotatedAt: iso(c.secretRotatedAt),
    revokedAt: iso(c.revokedAt),
  };
}

function isLoopbackHost(host: string) {
  return host === '127.0.0.1' || host === '[::1]' || host === 'localhost';
}

const grantTypesFor = (c: Pick<Client, 'isPublic' | 'serviceAccountId'>) => [
  'authorization_code',
  'refresh_token',
  ...(!c.isPublic && c.serviceAccountId ? ['client_credentials'] : []),
];

function newSecret() {
  const secret = `hcs_${random(32)}`;
  return { secret, hash: sha256(secret) };
}

function protect(c: Client, action: string) {
  if (c.origin === 'first_party') throw new HearthError('client_protected', `${c.clientId} is a protected first-party client: it cannot be ${action}`);
}

export function createClients(ctx: OAuthContext) {
  const { store, accounts, accountStore, now, record, getClient } = ctx;

  /** The client; `lock` inside a transaction: row-locked until it ends, for callers that write it back changed. */
  const clientOrThrow = async (id: string, lock = true): Promise<Client> => {
    const c = await getClient(id, lock);
    if (!c) throw new HearthError('client_not_found', `no OAuth client with id ${id}`);
    return c;
  };

  async function validateBinding(serviceAccountId: string | null, isPublic: boolean) {
    if (serviceAccountId === null) return;
    if (isPublic) throw new HearthError('invalid_request', 'a client bound to a service account must be confidential (isPublic: false)');
    if (!(await accounts.getServiceAccount(serviceAccountId))) {
      throw new HearthError('invalid_request', `serviceAccountId: no active resource-bound service account ${serviceAccountId}`);
    }
  }

  async function validateAccessLists(userIds: string[], groupIds: string[]) {
    for (const sub of userIds) {
      const row = await accountStore.getAccount(sub);
      if (row?.kind !== 'person') throw new HearthError('invalid_request', `allowedUserIds: no account ${sub}`);
    }
    for (const id of groupIds) {
      try {
        await accounts.getGroup(id);
      } catch {
        throw new HearthError('invalid_request', `allowedGroupIds: no group ${id}`);
      }
    }
  }

  /** Removes dynamic registrations that never started an authorization within 24 hours; returns how many. */
  async function purgeAbandoned(at: number) {
    const ids = await store.abandonedClients(at - ABANDONED_REGISTRATION_MS);
    for (const id of ids) await store.deleteClient(id);
    return ids.length;
  }

  return {
    purgeAbandoned,

    /** Seeds the protected first-party client used by `hearth login` (idempotent). */
    async seed() {
      const at = now();
      const existing = await getClient(FIRST_PARTY_CLI);
      const base: Client = {
        clientId: FIRST_PARTY_CLI,
        origin: 'first_party',
        name: 'Hearth command-line tool',
        description: 'Used by hearth login, token refresh and hearth logout.',
        redirectUris: ['http://127.0.0.1/callback', 'http://[::1]/callback'],
        logoutUri: null,
        scopes: ['openid', 'profile', 'email', 'offline_access', 'read', 'write', 'admin'],
        audiences: [PLATFORM_AUDIENCE],
        serviceAccountId: null,
        allowedProfiles: ['user', 'guest'],
        accessMode: 'profiles',
        allowedUserIds: [],
        allowedGroupIds: [],
        isPublic: true,
        secretHash: null,
        grantTypes: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
        applicationType: 'native',
        createdAt: existing?.createdAt ?? at,
        updatedAt: existing?.updatedAt ?? at,
        secretRotatedAt: null,
        firstUsedAt: existing?.firstUsedAt ?? null,
        revokedAt: null,
      };
      if (!existing) await store.seedClient(rowOf(base));
      else if (
        JSON.stringify({ ...rowOf(existing), updated_at: 0, first_used_at: 0 }) !== JSON.stringify({ ...rowOf(base), updated_at: 0, first_used_at: 0 })
      ) {
        await store.updateClient(rowOf({ ...base, updatedAt: at }));
      }
    },

    // ---- client administration ----
    async listClients(p: { page: number; per_page: number; search?: string }) {
      const search = p.search ? p.search.toLowerCase() : null;
      return {
        data: (await store.listClients(search, p.per_page, (p.page - 1) * p.per_page)).map((r) => presentClient(clientOf(r))),
        page: p.page,
        per_page: p.per_page,
        total: await store.countClients(search),
      };
    },
    getClientInfo: async (id: string) => presentClient(await clientOrThrow(id, false)),

    async createClient(input: z.infer<typeof CreateClientBody>, a: Actor) {
      await validateBinding(input.serviceAccountId, input.isPublic);
      await validateAccessLists(input.allowedUserIds, input.allowedGroupIds);
      const at = now();
      const secret = input.isPublic ? null : newSecret();
      const client: Client = {
        clientId: `hc_${random(16)}`,
        origin: 'managed',
        name: input.name,
        description: input.description ?? null,
        redirectUris: input.redirectUris,
        logoutUri: input.logoutUri ?? null,
        scopes: input.scopes,
        audiences: input.audiences,
        serviceAccountId: input.serviceAccountId,
        allowedProfiles: input.allowedProfiles,
        accessMode: input.accessMode,
        allowedUserIds: input.allowedUserIds,
        allowedGroupIds: input.allowedGroupIds,
        isPublic: input.isPublic,
        secretHash: secret?.hash ?? null,
        grantTypes: [],
        applicationType: null,
        createdAt: at,
        updatedAt: at,
        secretRotatedAt: secret ? at : null,
        firstUsedAt: null,
        revokedAt: null,
      };
      client.grantTypes = grantTypesFor(client);
      await store.transaction(async () => {
        await store.insertClient(rowOf(client));
        await record(a, 'oauth.client.create', client.clientId, {
          name: client.name,
          isPublic: client.isPublic,
          scopes: client.scopes,
          audiences: client.audiences,
        });
      });
      return { client: presentClient(client), clientSecret: secret?.secret ?? null };
    },

    updateClient(id: string, input: z.infer<typeof UpdateClientBody>, a: Actor) {
      return store.transaction(async () => {
        const c = await clientOrThrow(id);
        protect(c, 'edited');
        if (c.origin === 'dynamic') throw new HearthError('client_protected', 'a dynamically registered client cannot be edited: revoke or delete it');
        if (c.revokedAt !== null) throw new HearthError('client_revoked', 'the client is revoked');
        const next: Client = { ...c };
        for (const [k, v] of Object.entries(input)) if (v !== undefined) (next as unknown as Record<string, unknown>)[k] = v;
        await validateBinding(next.serviceAccountId, next.isPublic);
        if (input.allowedUserIds || input.allowedGroupIds) await validateAccessLists(input.allowedUserIds ?? [], input.allowedGroupIds ?? []);
        next.grantTypes = grantTypesFor(next);
        next.updatedAt = now();
        await store.updateClient(rowOf(next));
        await record(a, 'oauth.client.update', id, { fields: Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined) });
        return { client: presentClient(next) };
      });
    },

    rotateSecret(id: string, a: Actor) {
      return store.transaction(async () => {
        const c = await clientOrThrow(id);
        protect(c, 'given a secret');
        if (c.isPublic) throw new HearthError('client_is_public', 'a public client has no secret to rotate');
        if (c.revokedAt !== null) throw new HearthError('client_revoked', 'the client is revoked');
        const secret = newSecret();
        const at = now();
        const next = { ...c, secretHash: secret.hash, secretRotatedAt: at, updatedAt: at };
        await store.updateClient(rowOf(next));
        await record(a, 'oauth.client.secret.rotate', id, {});
        return { client: presentClient(next), clientSecret: secret.secret };
      });
    },

    /** Revokes a client: it cannot authenticate or authorize any more, its refresh grants end and its access tokens stop verifying. */
    revokeClient(id: string, a: Actor) {
      return store.transaction(async () => {
        const c = await clientOrThrow(id);
        protect(c, 'revoked');
        if (c.revokedAt !== null) return { client: presentClient(c) };
        const at = now();
        const next = { ...c, revokedAt: at, updatedAt: at };
        await store.updateClient(rowOf(next));
        const ended = await store.revokeClientFamilies(id, at, 'client_revoked');
        await record(a, 'oauth.client.revoke', id, { origin: c.origin, endedGrants: ended });
        return { client: presentClient(next) };
      });
    },

    async deleteClient(id: string, a: Actor) {
      await store.transaction(async () => {
        const c = await clientOrThrow(id);
        protect(c, 'deleted');
        await store.deleteClient(id);
        await record(a, 'oauth.client.delete', id, { origin: c.origin, name: c.name });
      });
    },

    // ---- RFC 7591 ----
    async register(body: z.infer<typeof RegisterBody>, a: Actor) {
      for (const uri of body.redirect_uris) {
        const u = absoluteUri(uri);
        if (!u) throw oauthError('invalid_redirect_uri', `redirect URI ${quoteInput(uri)} is not an absolute URI without fragment`);
        if (u.username || u.password || uri.includes('@'))
          throw oauthError('invalid_redirect_uri', `redirect URI ${quoteInput(uri)} must not carry user information`);
        if (!(u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname)))) {
          throw oauthError('invalid_redirect_uri', `redirect URI ${quoteInput(uri)} must be https, or http on localhost, 127.0.0.1 or ::1`);
        }
      }
      if (new Set(body.redirect_uris).size !== body.redirect_uris.length) throw oauthError('invalid_redirect_uri', 'redirect_uris has duplicates');
      for (const uri of body.post_logout_redirect_uris ?? []) {
        const u = absoluteUri(uri);
        if (!u || u.username || u.password || !(u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname)))) {
          throw oauthError('invalid_client_metadata', `post_logout_redirect_uris: ${quoteInput(uri)} is not allowed`);
        }
      }
      let scopes: string[] = [...DELEGATED_SCOPES];
      if (body.scope !== undefined) {
        const asked = parseScope(body.scope)!;
        const bad = asked.find((s) => !(DELEGATED_SCOPES as readonly string[]).includes(s));
        if (bad !== undefined)
          throw oauthError('invalid_client_metadata', `scope ${quoteInput(bad)} cannot be registered; allowed: ${DELEGATED_SCOPES.join(' ')}`);
        if (asked.length === 0) throw oauthError('invalid_client_metadata', 'scope must not be empty');
        scopes = asked;
      }
      const grantTypes = [...new Set(body.grant_types)];
      const appType = body.application_type ?? 'web';
      const at = now();
      const name = body.client_name ?? `Application at ${new URL(body.redirect_uris[0]!).host}`;
      const client: Client = {
        clientId: `hd_${random(16)}`,
        origin: 'dynamic',
        name,
        description: null,
        redirectUris: body.redirect_uris,
        logoutUri: body.post_logout_redirect_uris?.[0] ?? null,
        scopes,
        audiences: [],
        serviceAccountId: null,
        allowedProfiles: ['user', 'guest'],
        accessMode: 'profiles',
        allowedUserIds: [],
        allowedGroupIds: [],
        isPublic: true,
        secretHash: null,
        grantTypes,
        applicationType: appType,
        createdAt: at,
        updatedAt: at,
        secretRotatedAt: null,
        firstUsedAt: null,
        revokedAt: null,
      };
      await store.transaction(async () => {
        await purgeAbandoned(at);
        await store.insertClient(rowOf(client));
        await record(a, 'oauth.client.register', client.clientId, { name, redirectUris: client.redirectUris, scopes });
      });
      return {
        client_id: client.clientId,
        client_id_issued_at: Math.floor(at / 1000),
        client_name: name,
        redirect_uris: client.redirectUris,
        token_endpoint_auth_method: 'none' as const,
        grant_types: grantTypes,
        response_types: ['code' as const],
        application_type: appType as 'native' | 'web',
        scope: scopes.join(' '),
        ...(client.logoutUri ? { post_logout_redirect_uris: [client.logoutUri] } : {}),
      };
    },
  };
}
