import { z } from 'zod';
import type { AuditLog } from '../../../core/audit/audit.ts';
import { actorFor } from '../../../core/auth/auth.ts';
import type { Api } from '../../../core/http/api.ts';
import { HearthError } from '../../../core/http/errors.ts';
import { mobileconfig, type TlsService } from './tls.service.ts';

const Certificate = z
  .object({
    subject: z.string(),
    issuer: z.string(),
    names: z.array(z.string()).meta({ description: 'Subject alternative names: DNS names and IP addresses.' }),
    notBefore: z.string(),
    notAfter: z.string(),
    renewAt: z.string().nullable().meta({ description: 'When Hearth renews it (two thirds of its life); null in `files` mode.' }),
    fingerprintSha256: z.string().meta({ description: 'SHA-256 of the DER certificate, colon-separated hex.' }),
  })
  .meta({ id: 'TlsCertificate' });

export const TlsStatusSchema = z
  .object({
    mode: z.enum(['off', 'internal', 'acme', 'files']),
    publicUrl: z.string().meta({ description: 'The one public address (issuer, passkeys, links).' }),
    names: z.array(z.string()).meta({ description: 'The names and addresses the certificate is asked to cover.' }),
    certificate: Certificate.nullable(),
    ca: z
      .object({ subject: z.string(), notAfter: z.string(), fingerprintSha256: z.string() })
      .nullable()
      .meta({ description: "The internal certificate authority's root (`internal` mode), published at `/ca.pem`." }),
    lastRenewalAt: z.string().nullable(),
    lastError: z.object({ message: z.string(), at: z.string() }).nullable().meta({ description: 'The last failed renewal, until one succeeds.' }),
    nextAttemptAt: z.string().nullable(),
    hstsMaxAge: z.number().int().nullable(),
    source: z.record(z.string(), z.unknown()).meta({ description: 'ACME: directory, challenge type, account and last order. Files: the two paths.' }),
  })
  .meta({ id: 'TlsStatus' });
export type TlsStatusBody = z.infer<typeof TlsStatusSchema>;

const notInternal = () =>
  new HearthError(
    'not_found',
    'this server has no certificate authority of its own (it runs with --tls internal only); ask the administrator how its certificate is issued',
  );

/**
 * The TLS routes: the internal root for devices to trust (public, before any sign-in: a phone installs it first), and
 * the status and "renew now" for administrators.
 */
export function registerTlsRoutes(api: Api, tls: TlsService, deps: { publicUrl: () => string; audit: AuditLog }): void {
  const label = () => new URL(deps.publicUrl()).host;
  const root = () =>
    tls.caPem() ??
    (() => {
      throw notInternal();
    })();

  api.route({
    method: 'get',
    path: '/ca.pem',
    operationId: 'tlsCaPem',
    tags: ['Network'],
    access: 'public',
    summary: "The internal certificate authority's root (PEM)",
    description: 'With `--tls internal`: the root certificate devices install to trust Hearth. 404 `not_found` in the other modes.',
    responses: {
      200: { description: 'PEM certificate.', contentType: 'application/x-pem-file', schema: z.string() },
      404: { description: 'TLS is not `internal`: there is no root to install (`not_found`).' },
    },
    handler: (ctx) => {
      const pem = root();
      ctx.type = 'application/x-pem-file';
      ctx.set('Content-Disposition', 'attachment; filename="hearth-ca.pem"');
      ctx.set('Cache-Control', 'no-cache');
      return pem;
    },
  });
  api.route({
    method: 'get',
    path: '/ca.crt',
    operationId: 'tlsCaDer',
    tags: ['Network'],
    access: 'public',
    summary: "The internal certificate authority's root (DER)",
    description: 'The same root as `/ca.pem`, DER-encoded, as Android, Windows and ChromeOS import it.',
    responses: {
      200: { description: 'DER certificate.', contentType: 'application/pkix-cert', schema: z.string() },
      404: { description: 'TLS is not `internal`: there is no root to install (`not_found`).' },
    },
    handler: (ctx) => {
      const pem = root();
      ctx.type = 'application/pkix-cert';
      ctx.set('Content-Disposition', 'attachment; filename="hearth-ca.crt"');
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    },
  });
  api.route({
    method: 'get',
    path: '/ca.mobileconfig',
    operationId: 'tlsCaMobileconfig',
    tags: ['Network'],
    access: 'public',
    summary: 'A configuration profile that installs the root on iOS, iPadOS and macOS',
    description:
      'Open it in Safari, install it in Settings › Profile Downloaded, then turn on full trust in Settings › General › About › Certificate Trust Settings.',
    responses: {
      200: { description: 'Apple configuration profile (unsigned).', contentType: 'application/x-apple-aspen-config', schema: z.string() },
      404: { description: 'TLS is not `internal`: there is no root to install (`not_found`).' },
    },
    handler: (ctx) => {
      const text = mobileconfig(root(), label());
      ctx.type = 'application/x-apple-aspen-config';
      ctx.set('Content-Disposition', 'attachment; filename="hearth-ca.mobileconfig"');
      ctx.set('Cache-Control', 'no-cache');
      return text;
    },
  });
  api.route({
    method: 'get',
    path: '/v1/tls',
    operationId: 'tlsStatus',
    tags: ['Network'],
    access: 'admin',
    summary: 'TLS status',
    description: 'The mode, the public address, the certificate in use and when it renews, the internal root, and the last renewal failure.',
    responses: { 200: { description: 'Status.', schema: TlsStatusSchema } },
    handler: () => ({ ...tls.status(), publicUrl: deps.publicUrl() }),
  });
  api.route({
    method: 'post',
    path: '/v1/tls/renew',
    operationId: 'tlsRenew',
    tags: ['Network'],
    access: 'admin',
    summary: 'Renew the certificate now',
    description:
      'Internal: a new leaf. ACME: a new order. Files: the files are read again. On failure the current certificate stays in use and the answer is 502 `renewal_failed` with the reason. 409 `tls_off` without TLS.',
    responses: {
      200: { description: 'Renewed; the new status.', schema: TlsStatusSchema },
      409: { description: 'TLS is off (`tls_off`).' },
      502: { description: 'The renewal failed; the current certificate stays in use (`renewal_failed`).' },
    },
    handler: async (ctx) => {
      if (!tls.enabled) throw new HearthError('tls_off', 'TLS is off: start Hearth with --tls internal|acme|files to have a certificate to renew');
      try {
        await tls.renew();
      } catch (err) {
        throw new HearthError('renewal_failed', `the certificate was not renewed (the current one stays in use): ${(err as Error).message}`);
      } finally {
        const a = actorFor(ctx);
        await deps.audit.record({
          actor: a.actor,
          action: 'tls.renew',
          target: tls.mode,
          detail: { ok: tls.status().lastError === null },
          requestId: a.requestId,
        });
      }
      return { ...tls.status(), publicUrl: deps.publicUrl() };
    },
  });
}
