/**
 * The writers of the key table: scheduled rotation (the lifecycle's plan applied), emergency revocation, and the KEK
 * roll (re-encrypting private keys under the current KEK). Part of the keys service (keys.service.ts composes it and
 * runs each of these inside its `exclusive` chain); it stays in `server/identity/keys`, the only folder that touches
 * a private key.
 *
 * - Keys are generated outside the database transaction (RSA generation is slow); the transaction then plans again
 *   on the rows as they are (SQLite's BEGIN IMMEDIATE, PostgreSQL's table lock `lockKeys`: replicas never create two
 *   active keys; the table's partial unique indexes enforce one active and one pending key per purpose as well) and
 *   retries, at most three rounds, when another replica moved the keys meanwhile. A change notifies every replica at
 *   commit (`notifyChanged`), so their signers and verifiers reload at once.
 * - Revocation takes a key out of the JWKS at once; an active key is replaced by an immediately active one.
 * - Re-encryption opens each envelope under its own KEK and seals it under the current one, writing a row only if
 *   its envelope is still the one that was read.
 */
import type { AuditLog } from '../../core/audit/audit.ts';
import { HearthError, quoteInput } from '../../core/http/errors.ts';
import type { Logger } from '../../core/logging/logger.ts';
import { type KekSet, seal } from './keys.crypto.ts';
import {
  type LifecycleAction,
  type LifecycleKey,
  PURPOSES,
  type Purpose,
  planMaintenance,
  SIGNING_LIFETIME_MS,
  verificationWindowMs,
} from './keys.lifecycle.ts';
import type { KeyMaterial, Material } from './keys.material.ts';
import type { KeyRow, KeyStore } from './keys.store.ts';
import { ALGORITHM } from './keys.tokens.ts';

export interface Actor {
  actor: string;
  requestId?: string | null;
}

export interface RotationDeps {
  store: KeyStore;
  log: Logger;
  audit: AuditLog;
  now: () => number;
  material: KeyMaterial;
  requireKeks: () => KekSet;
  /** Keys of these purposes changed in this process: signers and verifiers reload. */
  changed: (purposes: Iterable<Purpose>) => void;
}

const toLifecycle = (r: KeyRow): LifecycleKey => ({
  kid: r.kid,
  purpose: r.purpose,
  state: r.state,
  createdAt: r.created_at,
  activatesAt: r.activates_at,
  retiresAt: r.retires_at,
  withdrawsAt: r.withdraws_at,
  withdrawnAt: r.withdrawn_at,
});

export function createRotation(deps: RotationDeps) {
  const { store, log, now, material } = deps;

  function insertMaterial(m: Material, state: 'active' | 'pending', at: number, activatesAt: number) {
    return store.insert({
      kid: m.kid,
      purpose: m.purpose,
      state,
      algorithm: ALGORITHM,
      public_jwk: m.publicJwk,
      thumbprint: m.thumbprint,
      private_key_envelope: m.envelope,
      encryption_key_id: m.encryptionKeyId,
      created_at: at,
      activates_at: state === 'active' ? at : activatesAt,
      activated_at: state === 'active' ? at : null,
      retires_at: state === 'active' ? at + SIGNING_LIFETIME_MS : null,
    });
  }

  /** Applies planned actions; returns one log entry per change. */
  async function apply(actions: LifecycleAction[], pool: Map<Purpose, Material[]>, t: number) {
    const done: Array<{ purpose: Purpose; kid: string; change: string; reason?: string }> = [];
    for (const a of actions) {
      if (a.type === 'retire') {
        await store.retire(a.kid, t, a.reason, t + verificationWindowMs(a.purpose));
        done.push({ purpose: a.purpose, kid: a.kid, change: 'retired', reason: a.reason });
      } else if (a.type === 'activate') {
        await store.activate(a.kid, t, t + SIGNING_LIFETIME_MS);
        done.push({ purpose: a.purpose, kid: a.kid, change: 'activated' });
      } else if (a.type === 'withdraw') {
        await store.withdraw(a.kid, t);
        done.push({ purpose: a.purpose, kid: a.kid, change: 'withdrawn from the JWKS' });
      } else {
        const m = pool.get(a.purpose)!.shift()!;
        await insertMaterial(m, a.state, t, a.activatesAt);
        done.push({ purpose: a.purpose, kid: m.kid, change: a.state === 'active' ? 'created active' : 'created pending (published)' });
      }
    }
    return done;
  }

  /** Applies what the lifecycle plans for now (generating keys outside the transaction). Call inside `exclusive`. */
  async function maintainNow() {
    for (let round = 0; round < 3; round++) {
      const planned = planMaintenance((await store.listLive()).map(toLifecycle), now());
      if (planned.length === 0) return [];
      const pool = new Map<Purpose, Material[]>();
      const creates = planned.filter((a) => a.type === 'create');
      const made = await Promise.all(creates.map((a) => material.generate(a.purpose)));
      for (const m of made) pool.set(m.purpose, [...(pool.get(m.purpose) ?? []), m]);
      const applied = await store.transaction(async () => {
        await store.lockKeys();
        const t = now();
        // Plan again inside the transaction: another process may have moved the keys meanwhile.
        const fresh = planMaintenance((await store.listLive()).map(toLifecycle), t);
        for (const p of PURPOSES) {
          const need = fresh.filter((a) => a.type === 'create' && a.purpose === p).length;
          if (need > (pool.get(p)?.length ?? 0)) return null;
        }
        const done = await apply(fresh, pool, t);
        if (done.length) await store.notifyChanged(new Set(done.map((a) => a.purpose)));
        return done;
      });
      if (applied) {
        if (applied.length) deps.changed(new Set(applied.map((a) => a.purpose)));
        for (const { change, ...entry } of applied) log.info(entry, `signing key ${change}`);
        return applied;
      }
    }
    throw new Error('signing-key maintenance did not settle: another process keeps changing the keys');
  }

  /** Emergency revocation of a pending or active key; the kid of its replacement (an active key's), else null. Call inside `exclusive`. */
  async function revokeNow(kid: string, reason: string, actor: Actor): Promise<string | null> {
    for (let round = 0; round < 3; round++) {
      const row = await store.get(kid);
      if (!row) throw new HearthError('key_not_found', `no signing key ${quoteInput(kid)}`);
      if (row.state !== 'active' && row.state !== 'pending') throw new HearthError('key_not_revocable', `signing key ${kid} is already ${row.state}`);
      const made = row.state === 'active' ? await material.generate(row.purpose) : null;
      const outcome = await store.transaction(async () => {
        await store.lockKeys();
        const cur = (await store.get(kid))!;
        if (cur.state !== 'active' && cur.state !== 'pending') return { retry: false as const, conflict: cur.state };
        if (cur.state === 'active' && !made) return { retry: true as const };
        const t = now();
        await store.revoke(kid, t, reason, actor.actor);
        if (cur.state === 'active') await insertMaterial(made!, 'active', t, t);
        const replacementKid = cur.state === 'active' ? made!.kid : null;
        await deps.audit.record({
          actor: actor.actor,
          action: 'identity.key.revoke',
          target: kid,
          detail: { purpose: cur.purpose, previousState: cur.state, reason, replacementKid },
          requestId: actor.requestId ?? null,
        });
        await store.notifyChanged([cur.purpose]);
        return { retry: false as const, replacementKid, purpose: cur.purpose };
      });
      if ('conflict' in outcome) throw new HearthError('key_not_revocable', `signing key ${kid} is already ${outcome.conflict}`);
      if (outcome.retry) continue;
      deps.changed([outcome.purpose!]);
      log.warn({ kid, purpose: outcome.purpose, replacementKid: outcome.replacementKid }, 'signing key revoked');
      return outcome.replacementKid ?? null;
    }
    throw new HearthError('conflict', `signing key ${kid} keeps changing; try again`);
  }

  /**
   * Re-encrypts under the current KEK the private keys sealed under the previous KEK (`previous`, at start-up) or
   * under any other KEK (`all`, the administrator's rewrap). Audited when an administrator asked or a key changed.
   * Call inside `exclusive`.
   */
  async function rewrapNow(only: 'previous' | 'all', actor: Actor | null) {
    const k = deps.requireKeks();
    const rows = await store.listSealed();
    const todo = rows.filter((r) => r.encryption_key_id !== k.current.id && (only === 'all' || (k.previous !== null && r.encryption_key_id === k.previous.id)));
    const updates: Array<{ row: KeyRow; envelope: string }> = [];
    for (const row of todo) {
      const { jwkText } = await material.unseal(row);
      updates.push({ row, envelope: seal(k.current, jwkText, row.kid, row.purpose) });
    }
    const rewrapped = await store.transaction(async () => {
      const t = now();
      let n = 0;
      for (const u of updates) if (await store.rewrap(u.row.kid, u.row.private_key_envelope!, u.envelope, k.current.id, t)) n++;
      if (actor || n > 0) {
        await deps.audit.record({
          actor: actor?.actor ?? 'system',
          action: 'identity.keys.rewrap',
          target: k.current.id,
          detail: { rewrapped: n, encryptionKeyId: k.current.id, keys: updates.map((u) => u.row.kid) },
          requestId: actor?.requestId ?? null,
        });
      }
      return n;
    });
    if (rewrapped) log.info({ rewrapped, encryptionKeyId: k.current.id }, 'signing keys rewrapped under the current KEK');
    return { rewrapped, unchanged: rows.length - todo.length, encryptionKeyId: k.current.id };
  }

  return { maintainNow, revokeNow, rewrapNow };
}
