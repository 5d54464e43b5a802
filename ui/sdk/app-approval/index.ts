/**
 * `<sdk>/browser/app-approval`: the browser SDK of `hearth-app-approval-v1` for authenticator apps, and the
 * app's local vault. See docs/sdk/app-approval.md.
 *
 *   import { appApproval, appPairingLink, APP_APPROVAL_ACCEPT } from '.../ui/sdk/app-approval/index.ts';
 *   const pairing = appApproval.parsePairingLink(location.href, location.origin);
 *   const client = await appApproval.connect({ issuer: pairing.issuer, authenticatorOrigin: location.origin });
 *   const key = await appApproval.createKey();   // persist it (IndexedDB) before claiming
 *   const { deviceId, comparison } = await client.claim(pairing, key, 'My phone');
 */
import { connect, createKey, parsePairingLink } from './client.ts';
import { vault } from './vault.ts';

export {
  type AcceptOption,
  AppAccountResult,
  AppApprovalClient,
  type AppApprovalDecision,
  AppApprovalInfo,
  AppClaimResult,
  AppDecisionResult,
  type AppDeviceBinding,
  AppDeviceChange,
  AppInboxResponse,
  AppLoginContext,
  AppLoginRequest,
  AppPairingResult,
  AppPendingResponse,
  AppTerminalLogin,
  type ConnectOptions,
  connect,
  createKey,
  parsePairingLink,
} from './client.ts';
export * from './contracts.ts';
export { APP_APPROVAL_ERROR_CODES, AppApprovalClientError, type AppApprovalErrorCode } from './errors.ts';
export {
  VAULT_PIN_KDF,
  VAULT_VERSION,
  VAULT_WRAP_INFO,
  type VaultCapability,
  type VaultConfig,
  type VaultLocalMethod,
  type VaultMethod,
  type VaultMethodType,
  type VaultPasskeyMethod,
  type VaultPinMethod,
  type VaultRecordBlob,
  type VaultSession,
  vault,
} from './vault.ts';

/** The SDK's entry object, under the name apps import (`appApproval`). */
export const appApproval = Object.freeze({ parsePairingLink, connect, createKey, vault });
