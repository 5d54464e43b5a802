/**
 * The signed device channel `POST /device` of `hearth-app-approval-v1`: every command a device sends, each signed
 * with the device's key in the proof format of proof.ts.
 *
 * Checks, in order: the body and proof shapes (400), the issuer is this instance (403 `wrong_issuer`), the device
 * exists (403 `device_unknown`), the proof times (400 `invalid_proof`), the signature (DER or other encodings 400
 * `invalid_signature`; not verifying 403 `bad_signature`), the device is active (403 `device_revoked`), then the
 * command runs in one transaction with the consumption of `(deviceId, jti)` (replay 409 `proof_replayed`): a command
 * that fails consumes nothing. Only a command that succeeds updates the device's last use (`lastUsedAt`).
 */
import { HearthError } from '../../core/http/errors.ts';
import { type ApprovalCore, err, iso, sameText } from './approval.core.ts';
import { APPROVAL_LIMITS } from './approval.schemas.ts';
import type { ChangeRow, DeviceRow, LoginRow } from './approval.store.ts';
import type { Devices } from './devices.ts';
import type { NoticeOutbox } from './notice-outbox.ts';
import type { Pairing } from './pairing.ts';
import { appDeviceProofMessage, checkProofTimes, type DeviceCommand, DeviceProof, type DevicePublicKey, ProofError, verifyProofSignature } from './proof.ts';
import type { SignInRequests } from './sign-in-requests.ts';

const L = APPROVAL_LIMITS;
const notPending = () => new HearthError('change_not_pending', 'this device change was decided meanwhile');

type LoginEntry = {
  requestId: string;
  challenge: string;
  comparison: string;
  createdAt: string;
  expiresAt: string;
  context?: unknown;
  terminal?: { client: { id: string; name: string }; scopes: string[]; lifetimeSeconds: number };
};
type ChangeEntry = {
  changeId: string;
  kind: 'pair' | 'revoke';
  device: { id: string; name: string };
  endSessions: boolean;
  createdAt: string;
  expiresAt: string;
};
export type InboxBody = {
  logins: LoginEntry[];
  actions: unknown[];
  moreActions: number;
  changes?: ChangeEntry[];
  moreChanges?: number;
  pollAfterSeconds: number;
};

const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

/**
 * Fits an inbox into `limit` bytes (the 8 KiB response budget): action summaries go first (counted in `moreActions`), then the
 * context of logins from the last one backwards, then the newest device changes (counted in `moreChanges`, at most
 * five). A login is never dropped.
 */
export function fitInbox(body: InboxBody, pendingChanges: number, limit: number = L.responseBytes): InboxBody {
  const out: InboxBody = {
    ...body,
    logins: body.logins.map((l) => ({ ...l })),
    actions: [...body.actions],
    ...(body.changes ? { changes: [...body.changes] } : {}),
  };
  while (size(out) > limit && out.actions.length > 0) {
    out.actions.pop();
    out.moreActions++;
  }
  for (let i = out.logins.length - 1; i >= 0 && size(out) > limit; i--) {
    if ('context' in out.logins[i]!) {
      const { context: _dropped, ...rest } = out.logins[i]!;
      out.logins[i] = rest;
    }
  }
  if (out.changes) {
    while (size(out) > limit && out.changes.length > 0) out.changes.pop();
    out.moreChanges = Math.min(L.changesPerInbox, pendingChanges - out.changes.length);
  }
  return out;
}

/** The flows whose requests the channel decides: sign-ins, device changes (pairing and removal), the device itself. */
export function createDeviceChannel(parts: { core: ApprovalCore; pairing: Pairing; devices: Devices; requests: SignInRequests; notices: NoticeOutbox }) {
  const { core } = parts;
  const x = {
    ...core,
    sameText,
    wake: parts.requests.wake,
    enrol: parts.pairing.enrol,
    deliverNotices: parts.notices.deliverNotices,
    revokeDevice: parts.devices.revokeDevice,
    sessionStore: core.deps.sessionStore,
    loginContext: core.deps.loginContext,
    issuer: core.deps.issuer,
  };
  const { store } = x;

  function loginEntry(r: LoginRow, withContext: boolean, deviceIp: string): LoginEntry {
    const e: LoginEntry = { requestId: r.id, challenge: r.challenge, comparison: r.comparison, createdAt: iso(r.created_at), expiresAt: iso(r.expires_at) };
    if (r.kind === 'terminal' && r.terminal) e.terminal = JSON.parse(r.terminal);
    if (withContext && r.kind === 'browser' && r.context && x.loginContext) {
      const context = JSON.parse(r.context) as Record<string, unknown>;
      let same = false;
      try {
        same = x.loginContext.sameNetwork(r.start_ip, deviceIp);
      } catch {
        same = false;
      }
      e.context = same ? { ...context, sameNetwork: true } : context;
    }
    return e;
  }
  const changeEntry = (c: ChangeRow): ChangeEntry => ({
    changeId: c.id,
    kind: c.kind,
    device: { id: c.target_id, name: c.target_name },
    endSessions: c.end_sessions === 1,
    createdAt: iso(c.created_at),
    expiresAt: iso(c.expires_at),
  });
  const actor = async (d: DeviceRow, requestId: string) => {
    const account = await x.accountStore.getAccount(d.sub);
    return { actor: `account:${account?.login ?? d.sub}`, requestId };
  };

  /** Runs a command inside the channel's transaction; `afterCommit` collects what must wait until it committed. */
  async function run(d: DeviceRow, c: DeviceCommand, ip: string, requestId: string, afterCommit: Array<() => void>): Promise<Record<string, unknown>> {
    const at = x.now();
    switch (c.operation) {
      case 'pending': {
        const context = (c.accept ?? []).includes('login-context') && !!x.loginContext;
        const logins = (await store.pendingLogins(d.sub, at)).filter((r) => r.kind === 'browser').map((r) => loginEntry(r, context, ip));
        const fitted = fitInbox({ logins, actions: [], moreActions: 0, pollAfterSeconds: L.pollAfterSeconds }, 0);
        return { requests: fitted.logins, pollAfterSeconds: L.pollAfterSeconds };
      }
      case 'inbox': {
        const accept = [...new Set(c.accept ?? [])];
        await store.setAccept(d.id, accept);
        const context = accept.includes('login-context') && !!x.loginContext;
        const terminal = accept.includes('terminal-logins');
        const logins = (await store.pendingLogins(d.sub, at)).filter((r) => r.kind === 'browser' || terminal).map((r) => loginEntry(r, context, ip));
        const body: InboxBody = { logins, actions: [], moreActions: 0, pollAfterSeconds: L.pollAfterSeconds };
        let pending = 0;
        if (accept.includes('device-changes')) {
          const all = await store.pendingChanges(d.sub, at);
          pending = all.length;
          body.changes = all.slice(0, L.changesPerInbox).map(changeEntry);
          body.moreChanges = 0;
        }
        const fitted = fitInbox(body, pending);
        // The key order the protocol fixes: logins, actions, moreActions, [changes, moreChanges], pollAfterSeconds.
        return {
          logins: fitted.logins,
          actions: fitted.actions,
          moreActions: fitted.moreActions,
          ...(fitted.changes ? { changes: fitted.changes, moreChanges: fitted.moreChanges } : {}),
          pollAfterSeconds: L.pollAfterSeconds,
        };
      }
      case 'decide': {
        const r = await store.getLogin(c.requestId, true);
        if (!r || r.sub !== d.sub || !x.readable(r.expires_at)) throw err.notFound('the sign-in request');
        if (r.kind === 'terminal' && !x.optedIn(d, 'terminal-logins')) {
          throw new HearthError('not_opted_in', 'only a device whose latest inbox accepted terminal-logins can decide a terminal sign-in');
        }
        if (!x.sameText(c.challenge, r.challenge) || !x.sameText(c.comparison, r.comparison)) {
          throw new HearthError('request_changed', 'the challenge or comparison code does not match this sign-in request');
        }
        const state = x.loginState(r);
        if (state !== 'pending') throw new HearthError('request_not_pending', `this sign-in request is ${state}`);
        const next = c.decision === 'approve' ? 'approved' : 'denied';
        // One guarded UPDATE: of two replicas deciding it, one wins; the held /login/status wakes when this commits.
        if (!(await store.decideLogin(r.id, next, d.id, at))) throw new HearthError('request_not_pending', 'this sign-in request is no longer pending');
        await x.wake(r.id);
        return { state: next };
      }
      case 'change': {
        const ch = await store.getChange(c.changeId, true);
        if (!ch || ch.sub !== d.sub || !x.readable(ch.expires_at)) throw err.notFound('the device change');
        if (!x.optedIn(d, 'device-changes'))
          throw new HearthError('not_opted_in', 'only a device whose latest inbox accepted device-changes can decide a device change');
        if (ch.kind !== c.kind || ch.target_id !== c.targetId || (ch.end_sessions === 1) !== c.endSessions) {
          throw new HearthError('change_changed', 'the device change does not match the signed kind, target and endSessions');
        }
        const state = x.changeState(ch);
        if (state !== 'pending') throw new HearthError('change_not_pending', `this device change is ${state}`);
        // Seed rule 5: an absent change is not decided while moreChanges is positive. Only a change the device's inbox
        // can list (the five oldest pending changes of the account) may be decided.
        if (!(await store.pendingChanges(d.sub, at)).slice(0, L.changesPerInbox).some((p) => p.id === ch.id)) {
          throw new HearthError(
            'change_not_listed',
            `only the ${L.changesPerInbox} oldest pending device changes (those the inbox lists) can be decided: decide or let expire the older ones first`,
          );
        }
        const detail = { changeId: ch.id, kind: ch.kind, deviceId: ch.target_id, endSignIns: ch.end_sessions === 1, decidedBy: d.id };
        const a = await actor(d, requestId);
        if (c.decision === 'deny') {
          if (ch.kind === 'revoke' && ch.target_id === d.id) {
            throw new HearthError('self_deny', 'the device being removed cannot deny its own removal; the request stays pending for other devices');
          }
          if (!(await store.decideChange(ch.id, 'denied', at, d.id, null))) throw notPending();
          if (ch.pairing_id) await store.setPairingState(ch.pairing_id, 'cancelled');
          await x.record(a, 'auth.app.device_change.deny', ch.target_id, detail);
          return { state: 'denied' };
        }
        let ended = 0;
        if (ch.kind === 'pair') {
          const p = ch.pairing_id ? await store.getPairing(ch.pairing_id, true) : undefined;
          if (!p || x.pairingState(p) !== 'claimed') throw new HearthError('change_not_pending', 'the pairing of this device change is no longer waiting');
          if (!(await store.decideChange(ch.id, 'approved', at, d.id, null))) throw notPending();
          await x.enrol(p, a, { approvedBy: d.id, changeId: ch.id });
          // The enrolled device's notice goes to outgoing mail once this commits (the minute schedule retries).
          afterCommit.push(() => void x.deliverNotices().catch(() => {}));
        } else {
          // The requesting session family stays signed in (it asked); every other session of the account ends.
          // Decided first (one guarded UPDATE: of two replicas approving it, one goes on), then its effects.
          if (!(await store.decideChange(ch.id, 'approved', at, d.id, null))) throw notPending();
          if (ch.end_sessions === 1) {
            ended = await x.sessionStore.revokeAll(ch.sub, at, 'app-device-removed', ch.family_id);
            await store.setChangeEnded(ch.id, ended);
          }
          const target = await store.getDevice(ch.target_id);
          if (target && target.revoked_at === null) await x.revokeDevice(target, a, 'device-change', { changeId: ch.id, decidedBy: d.id });
        }
        await x.record(a, 'auth.app.device_change.approve', ch.target_id, { ...detail, endedSessions: ended });
        return { state: 'approved' };
      }
      case 'revoke':
        await x.revokeDevice(d, await actor(d, requestId), 'device');
        return { state: 'revoked' };
      case 'push':
        await store.setPushToken(d.id, c.token);
        return { state: 'updated' };
      case 'account': {
        const account = await x.accountStore.getAccount(d.sub);
        if (account?.kind !== 'person') throw new HearthError('device_revoked', 'the account of this device is gone');
        return {
          account: { uid: account.login, displayName: account.display_name, mail: account.email ?? null },
          device: { name: d.name, createdAt: iso(d.created_at) },
        };
      }
    }
  }

  return {
    /** Verifies a device body and runs its command. */
    async handle(body: { proof: unknown; signature: string }, ip: string, requestId: string): Promise<Record<string, unknown>> {
      const parsed = DeviceProof.safeParse(body.proof);
      if (!parsed.success) {
        const i = parsed.error.issues[0]!;
        throw new HearthError(
          'invalid_request',
          `proof${i.path.length ? `.${i.path.join('.')}` : ''}: ${i.code === 'unrecognized_keys' ? `unknown key ${i.keys.map((k) => JSON.stringify(k)).join(', ')}` : i.message}`,
        );
      }
      const proof = parsed.data;
      if (proof.issuer !== x.issuer()) throw new HearthError('wrong_issuer', 'the proof is for another instance (issuer)');
      const device = await store.getDevice(proof.deviceId);
      if (!device) throw new HearthError('device_unknown', 'no such device on this instance');
      const at = x.now();
      try {
        checkProofTimes(proof, Math.floor(at / 1000));
      } catch (e) {
        throw new HearthError('invalid_proof', (e as Error).message);
      }
      try {
        verifyProofSignature(appDeviceProofMessage(proof), body.signature, JSON.parse(device.public_key) as DevicePublicKey);
      } catch (e) {
        if (e instanceof ProofError && e.code === 'signature_format') throw new HearthError('invalid_signature', e.message);
        throw new HearthError('bad_signature', 'the signature does not verify with the device key');
      }
      if (device.revoked_at !== null) throw new HearthError('device_revoked', 'this device was revoked');
      const afterCommit: Array<() => void> = [];
      const answer = await store.transaction(async () => {
        if (!(await store.useNonce(device.id, proof.jti, proof.expiresAt * 1000)))
          throw new HearthError('proof_replayed', 'this proof (jti) was already used: inspect state instead of retrying');
        const fresh = (await store.getDevice(device.id))!;
        if (fresh.revoked_at !== null) throw new HearthError('device_revoked', 'this device was revoked');
        const answer = await run(fresh, proof.command, ip, requestId, afterCommit);
        // Only a command that succeeded counts as a use (refused, replayed and revoked-device commands do not).
        await store.touchDevice(device.id, at);
        return answer;
      });
      for (const fn of afterCommit) fn();
      return answer;
    },
  };
}

export type DeviceChannel = ReturnType<typeof createDeviceChannel>;
