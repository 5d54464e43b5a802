import { AppApprovalClientError } from './sdk.ts';

/** A sentence for a failed SDK call (the SDK's messages never carry remote text). */
export function explain(err: unknown, what: 'pair' | 'inbox' | 'decide' | 'account' | 'revoke'): string {
  if (err instanceof AppApprovalClientError) {
    switch (err.code) {
      case 'network':
      case 'timeout':
        return 'The server could not be reached. Check the connection; the app tries again.';
      case 'origin_mismatch':
        return 'This server does not accept this authenticator app (it names another app address).';
      case 'issuer_mismatch':
      case 'protocol_mismatch':
        return 'This server speaks another version of the protocol.';
      case 'invalid_pairing_link':
        return 'This is not a valid pairing link for this app.';
      case 'forbidden':
        return what === 'pair' ? 'The server refused this phone’s key.' : 'The server no longer accepts this phone: it was removed from the account.';
      case 'conflict':
        return what === 'decide' ? 'This request was already decided, changed or has expired.' : 'This was already done.';
      case 'not_found':
        return 'The request expired or no longer exists.';
      case 'rate_limited':
        return 'Too many requests. Wait a moment.';
      case 'unavailable':
        return 'The server has this feature turned off or is temporarily unavailable.';
      default:
        return err.message;
    }
  }
  return (err as Error)?.message ?? String(err);
}
