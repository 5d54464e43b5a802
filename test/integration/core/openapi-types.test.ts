/**
 * The admin UI's API types are the published OpenAPI document's. `ui/src/lib/api/openapi.ts` is generated from
 * `GET /v1/openapi.json` (build/openapi.ts) and committed; this test generates it again in memory and fails when the
 * committed file is not what the server publishes now. The rules a UI form checks before sending are held to the
 * same document: the identity contract's (server/identity/contract.ts), and the constants the UI still writes itself
 * because their server declarations live inside zod schema modules, which no contract can re-export to a browser
 * bundle without zod.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { OpenAPI3 } from 'openapi-typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { fetchOpenApiDocument, OPENAPI_TYPES_FILE, openApiTypes } from '../../../build/openapi.ts';
import { ACCOUNT_CATEGORIES, GROUP_PATTERN, LOGIN_PATTERN, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../server/identity/contract.ts';
import { MIN_PASSPHRASE_LENGTH } from '../../../ui/src/lib/api/backups.ts';
import { LINUX_ID_MAX, LINUX_ID_MIN, OAUTH_LIST_MAX, OAUTH_NAME_MAX, PASSKEY_NAME_MAX, PER_PAGE_MAX } from '../../../ui/src/lib/api/identity.ts';
import {
  APP_ID_PATTERN,
  DEFAULT_MAX_ATTACHMENT_BYTES,
  DEFAULT_PACE_PER_MINUTE,
  MAX_ATTACHMENT_BYTES,
  PROFILE_KEY_PATTERN,
  RETENTION_MAX_DAYS,
} from '../../../ui/src/lib/api/mail.ts';
import { DEFAULT_CONFIG, LIMITS, NAMESPACE_NAME } from '../../../ui/src/lib/api/namespaces.ts';

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; items?: Schema; $ref?: string };

let doc: OpenAPI3;
beforeAll(async () => {
  doc = await fetchOpenApiDocument();
});

/** A named schema of the document, or a member of one (`'NamespaceConfig.busy_timeout'`), with `$ref`s followed. */
function schema(at: string): Schema {
  const [name, ...members] = at.split('.');
  const resolve = (s: Schema): Schema => (s.$ref ? resolve(named(s.$ref.split('/').pop()!)) : s);
  const named = (n: string) => {
    const s = (doc.components?.schemas as Record<string, Schema> | undefined)?.[n];
    if (!s) throw new Error(`the document has no schema ${n}`);
    return s;
  };
  let s = resolve(named(name!));
  for (const m of members) {
    const next = m === '[]' ? s.items : s.properties?.[m];
    if (!next) throw new Error(`${at}: no member ${m}`);
    s = resolve(next);
  }
  return s;
}

/** A member of an operation's JSON request body (`'registerPasskey', 'name'`). */
function bodyMember(operationId: string, member: string): Schema {
  for (const item of Object.values(doc.paths ?? {}))
    for (const op of Object.values(item as Record<string, { operationId?: string; requestBody?: { content: Record<string, { schema: Schema }> } }>))
      if (op.operationId === operationId) return op.requestBody!.content['application/json']!.schema.properties![member]!;
  throw new Error(`the document has no operation ${operationId}`);
}

/** A query parameter of an operation (`'listAccounts', 'per_page'`). */
function queryParam(operationId: string, name: string): Schema {
  for (const item of Object.values(doc.paths ?? {}))
    for (const op of Object.values(item as Record<string, { operationId?: string; parameters?: Array<{ in: string; name: string; schema: Schema }> }>))
      if (op.operationId === operationId) return op.parameters!.find((p) => p.in === 'query' && p.name === name)!.schema;
  throw new Error(`the document has no operation ${operationId}`);
}

describe('the UI types are generated from the published document', () => {
  it(`${OPENAPI_TYPES_FILE} is up to date (otherwise run npm run build:openapi)`, async () => {
    const committed = fs.readFileSync(path.resolve(import.meta.dirname, '../../..', OPENAPI_TYPES_FILE), 'utf8');
    const fresh = await openApiTypes(doc);
    if (committed !== fresh) expect.fail(`${OPENAPI_TYPES_FILE} is not generated from the server's current OpenAPI document: run npm run build:openapi`);
  });

  it('documents where a validation error is (`in`, `field`) in the error envelope', () => {
    expect(schema('Error.in')).toMatchObject({ type: 'string', enum: ['body', 'query', 'path'] });
    expect(schema('Error.field')).toMatchObject({ type: 'string' });
    expect(schema('Error').required).toEqual(['error', 'message']);
  });
});

describe('the rules UI forms check are the server’s', () => {
  it('identity contract: logins, group names, account categories, password lengths', () => {
    expect(schema('CreateAccount.login').pattern).toBe(LOGIN_PATTERN.source);
    expect(schema('CreateGroup.name').pattern).toBe(GROUP_PATTERN.source);
    expect(schema('AccountCategoryPolicy.allowedCategories.[]').enum).toEqual([...ACCOUNT_CATEGORIES]);
    expect(schema('SetPassword.password')).toMatchObject({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH });
  });

  it('namespaces: the name, the configuration’s defaults and bounds', () => {
    expect(schema('CreateNamespace.name').pattern).toBe(NAMESPACE_NAME.source);
    for (const [key, value] of Object.entries(DEFAULT_CONFIG)) expect([key, schema(`NamespaceConfig.${key}`).default]).toEqual([key, value]);
    expect(schema('NamespaceConfig.busy_timeout')).toMatchObject({ minimum: LIMITS.busy_timeout.min, maximum: LIMITS.busy_timeout.max });
    expect(schema('NamespaceConfig.query_timeout')).toMatchObject({ minimum: LIMITS.query_timeout.min, maximum: LIMITS.query_timeout.max });
    expect(schema('NamespaceConfig.max_db_size').minimum).toBe(LIMITS.max_db_size.min);
  });

  it('identity: page sizes, OAuth clients, passkey names, the Linux range', () => {
    expect(queryParam('listAccounts', 'per_page').maximum).toBe(PER_PAGE_MAX);
    expect(schema('CreateOAuthClient.name').maxLength).toBe(OAUTH_NAME_MAX);
    expect(schema('CreateOAuthClient.redirectUris').maxItems).toBe(OAUTH_LIST_MAX);
    expect(bodyMember('registerPasskey', 'name').maxLength).toBe(PASSKEY_NAME_MAX);
    expect(schema('LinuxIdentityConfig.rangeStart')).toMatchObject({ minimum: LINUX_ID_MIN, maximum: LINUX_ID_MAX });
  });

  it('mail: profile keys, application ids, pace, attachments, retention', () => {
    expect(schema('MailSend.profile').pattern).toBe(PROFILE_KEY_PATTERN.source);
    expect(schema('MailRegisterApp.appId').pattern).toBe(APP_ID_PATTERN.source);
    expect(schema('MailProfileWrite.pacePerMinute').default).toBe(DEFAULT_PACE_PER_MINUTE);
    expect(schema('MailProfileWrite.maxAttachmentBytes')).toMatchObject({ default: DEFAULT_MAX_ATTACHMENT_BYTES, maximum: MAX_ATTACHMENT_BYTES });
    expect(schema('MailRetention.contentDays').maximum).toBe(RETENTION_MAX_DAYS);
  });

  it('backups: the passphrase length', () => {
    expect(schema('CreateBackup.passphrase').minLength).toBe(MIN_PASSPHRASE_LENGTH);
  });
});
