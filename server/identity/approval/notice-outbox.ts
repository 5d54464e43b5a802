/**
 * The enrolment notice outbox of the authenticator-approval protocol (email is a required, durable channel): every
 * enrolment writes an outbox row (pairing.ts), and this hands the rows to outgoing mail (application `core`) after each
 * enrolment and every minute until one is accepted. A mail failure never rolls an enrolment back; an account without
 * an email address settles its notice unsent. The idempotency key is derived from the device: one email per device,
 * whatever the retries.
 */
import type { HearthError } from '../../core/http/errors.ts';
import { type ApprovalCore, iso } from './approval.core.ts';

/** The outgoing-mail idempotency key of a device's enrolment notice (one email per device, whatever the retries). */
export const noticeIdempotencyKey = (deviceId: string) => `app-device-enrol:${deviceId}`;

export function createNoticeOutbox(core: ApprovalCore) {
  const { deps, store, accountStore, now } = core;
  /** Notices already logged as waiting (each is logged once, not on every pass). */
  const waitingLogged = new Set<string>();

  /**
   * One pass over the notices outgoing mail has not accepted yet (run after every enrolment and every minute). A
   * notice that cannot be queued stays in the outbox; the log says so once per notice, and once per pass why
   * (one line per reason, with how many notices wait for it) — not one line per notice every minute.
   */
  async function deliverNotices(): Promise<number> {
    const mailer = deps.mailer();
    let sent = 0;
    const reasons = new Map<string, { code: string | undefined; err: string; waiting: number }>();
    for (const n of await store.unsentNotices()) {
      const at = now();
      const row = await accountStore.getAccount(n.sub);
      if (!row?.email) {
        // Nowhere to deliver: the notice is settled (an account without an address gets no email notices at all).
        await store.noticeSent(n.device_id, at);
        deps.logger.warn({ deviceId: n.device_id }, 'a device enrolment notice has no email address to go to');
        continue;
      }
      if (!mailer) {
        await store.noticeAttempt(n.device_id, at);
        continue;
      }
      const name = row.display_name || row.login!;
      const text = n.assisted
        ? `An administrator paired the authenticator device "${n.device_name}" with your Hearth account "${row.login}". It can now approve sign-ins to your account.`
        : `The authenticator device "${n.device_name}" was paired with your Hearth account "${row.login}". It can now approve sign-ins to your account.`;
      try {
        await mailer.notify({
          to: [row.email],
          subject: 'A device was paired with your Hearth account',
          text: `Hello ${name},\n\n${text}\n\nPaired: ${iso(n.created_at)}\nAdministrator assisted: ${n.assisted ? 'yes' : 'no'}\n\nIf this was not you, remove the device in Hearth and tell your Hearth administrator at once.`,
          ref: `app-device:${n.device_id}`,
          // Derived from the device: a crash between acceptance and noticeSent() makes the retry a duplicate, not a second mail.
          idempotencyKey: noticeIdempotencyKey(n.device_id),
        });
        await store.noticeSent(n.device_id, at);
        waitingLogged.delete(n.device_id);
        sent++;
      } catch (e) {
        await store.noticeAttempt(n.device_id, at);
        const code = (e as HearthError).code as string | undefined;
        const err = (e as Error).message;
        const key = `${code ?? ''}\n${err}`;
        const reason = reasons.get(key) ?? { code, err, waiting: 0 };
        reason.waiting++;
        reasons.set(key, reason);
        if (!waitingLogged.has(n.device_id)) {
          waitingLogged.add(n.device_id);
          deps.logger.warn({ deviceId: n.device_id }, 'a device enrolment notice could not be queued; it waits in the outbox and is retried every minute');
        }
      }
    }
    for (const r of reasons.values()) {
      deps.logger.warn(
        { waiting: r.waiting, code: r.code, err: r.err },
        `${r.waiting} device enrolment ${r.waiting === 1 ? 'notice waits' : 'notices wait'}: ${r.err}; retrying every minute`,
      );
    }
    return sent;
  }

  return { deliverNotices };
}

export type NoticeOutbox = ReturnType<typeof createNoticeOutbox>;
