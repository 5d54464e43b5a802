/**
 * The setup checklist of the home page: each step's live state from what the server answers. A step whose source
 * could not be read is `unknown` (never shown as done).
 */
import type { Health } from '../../lib/api/health.ts';
import { formatCount } from '../../lib/format.ts';

export type StepState = 'done' | 'todo' | 'unknown' | 'not_applicable';

export interface SetupStep {
  id: 'https' | 'mail' | 'namespace' | 'people' | 'phone';
  title: string;
  /** One sentence on the current state. */
  status: string;
  state: StepState;
  href: string;
  /** The link's words. */
  action: string;
}

/** What the checklist reads: null where the call failed. */
export interface SetupFacts {
  health: Health | null;
  /** Each mail profile's last test, read defensively (the field may be absent on older servers). */
  mailProfiles: { lastTest?: { ok?: unknown } | null }[] | null;
  people: number | null;
  /** Active authenticator devices of the signed-in account; `token` for an API-token session, `off` when the server has phone approval off. */
  phones: number | null | 'token' | 'off';
}

/** True for names that only this machine reaches (localhost, 127.0.0.0/8, ::1). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

export function setupSteps(f: SetupFacts): SetupStep[] {
  const steps: SetupStep[] = [];

  const tls = f.health?.tls;
  const host = tls ? hostOf(tls.public_url) : null;
  steps.push({
    id: 'https',
    title: 'Share Hearth on your network with HTTPS',
    href: '/network',
    action: 'Open the network settings',
    ...(f.health === null
      ? { state: 'unknown', status: 'The server could not be asked.' }
      : !tls || tls.mode === 'off'
        ? { state: 'todo', status: 'HTTPS is off: only this computer can use Hearth safely.' }
        : host === null || isLoopbackHost(host)
          ? { state: 'todo', status: 'HTTPS is on, but Hearth answers only on this computer.' }
          : { state: 'done', status: `Done: other devices reach Hearth at ${tls.public_url}.` }),
  });

  const profiles = f.mailProfiles;
  const tested = profiles?.filter((p) => p.lastTest?.ok === true).length ?? 0;
  steps.push({
    id: 'mail',
    title: 'Add a mail profile and send a test',
    href: '/mail/profiles',
    action: 'Open mail profiles',
    ...(profiles === null
      ? { state: 'unknown', status: 'The mail profiles could not be read.' }
      : profiles.length === 0
        ? { state: 'todo', status: 'No mail profile yet: Hearth cannot send mail.' }
        : tested === 0 && profiles.some((p) => p.lastTest?.ok === false)
          ? { state: 'todo', status: 'The last test send failed: open the profile to see what to check.' }
          : tested === 0
            ? { state: 'todo', status: 'A profile exists, but no test mail has gone through yet.' }
            : { state: 'done', status: 'Done: a test mail went through.' }),
  });

  const namespaces = f.health?.namespaces.count;
  steps.push({
    id: 'namespace',
    title: 'Create a namespace',
    href: '/namespaces',
    action: 'Open namespaces',
    ...(namespaces === undefined
      ? { state: 'unknown', status: 'The namespaces could not be counted.' }
      : namespaces === 0
        ? { state: 'todo', status: 'No namespace yet: apps keep their data in one.' }
        : { state: 'done', status: `Done: ${formatCount(namespaces, ['namespace', 'namespaces'])}.` }),
  });

  steps.push({
    id: 'people',
    title: 'Add people',
    href: '/accounts',
    action: 'Open accounts',
    ...(f.people === null
      ? { state: 'unknown', status: 'The accounts could not be counted.' }
      : f.people === 0
        ? { state: 'todo', status: 'No accounts yet: add the people of your office.' }
        : f.people === 1
          ? { state: 'todo', status: 'Only the first administrator has an account.' }
          : { state: 'done', status: `Done: ${formatCount(f.people, ['account', 'accounts'])}.` }),
  });

  steps.push({
    id: 'phone',
    title: 'Pair your phone',
    href: '/me',
    action: 'Open your account',
    ...(f.phones === 'token'
      ? { state: 'not_applicable', status: 'Signed in with an API token: sign in with your account to pair a phone.' }
      : f.phones === 'off'
        ? { state: 'not_applicable', status: 'Phone approval is off on this server.' }
        : f.phones === null
          ? { state: 'unknown', status: 'Your paired devices could not be read.' }
          : f.phones === 0
            ? { state: 'todo', status: 'No phone paired: pair one to approve sign-ins from it.' }
            : { state: 'done', status: `Done: ${formatCount(f.phones, ['phone', 'phones'])} paired.` }),
  });
  return steps;
}
