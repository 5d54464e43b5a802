import { z } from 'zod';
import { requireNamespaceAccess } from '../core/auth/auth.ts';
import { actorOf } from '../core/auth/tokens.service.ts';
import type { AppContext, HotContext } from '../core/http/app-context.ts';
import { HearthError, quoteInput } from '../core/http/errors.ts';
import type { TenantDb } from './namespaces/handles.ts';
import type { NamespaceConfig } from './namespaces/namespaces.schemas.ts';
import type { NamespaceService } from './namespaces/namespaces.service.ts';

export interface Tenant {
  ns: string;
  db: TenantDb;
  config: NamespaceConfig;
  /** The caller, for `_meta.actor` when the body gives none. */
  actor: string;
}

export const NsParams = z.object({ ns: z.string().meta({ description: 'Namespace name.' }) });

/**
 * The data-plane gate every `/v1/{ns}/…` handler passes: token scope (403), namespace existence (404),
 * and for writes the namespace's `read_only` flag (409 `namespace_read_only`).
 */
export function openTenant(ctx: AppContext | HotContext, namespaces: NamespaceService, ns: string, mode: 'read' | 'write'): Tenant {
  const principal = requireNamespaceAccess(ctx, ns, mode);
  ctx.state.namespace = ns;
  const { db, config } = namespaces.tenant(ns);
  if (mode === 'write' && config.read_only) {
    throw new HearthError('namespace_read_only', `namespace ${quoteInput(ns)} is read-only (config read_only: true): writes are refused`);
  }
  return { ns, db, config, actor: actorOf(principal) };
}

/**
 * A signal that fires when the client goes away before its response is finished, so a read running for it in a
 * query process is stopped at once instead of at its time limit.
 */
export function abandonSignal(ctx: { res: AppContext['res'] }): AbortSignal {
  const abandoned = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableEnded) abandoned.abort();
  });
  return abandoned.signal;
}
