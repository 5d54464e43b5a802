/**
 * Contracts exports of the SDK (no credentials, no network). The single source of truth is the server's
 * `server/identity/approval/contracts.ts`; this module only re-exports it for the browser.
 */
export {
  APP_APPROVAL_ACCEPT,
  APP_APPROVAL_FEATURES,
  APP_APPROVAL_INBOX_ACCEPT,
  APP_APPROVAL_LIMITS,
  APP_APPROVAL_PATH,
  APP_APPROVAL_PENDING_ACCEPT,
  APP_APPROVAL_PROTOCOL,
  APP_PAIRING_LINK_MAX_LENGTH,
  type AppApprovalFeature,
  AppPairingLinkError,
  AppPairingPayload,
  appDeviceProofMessage,
  appPairingLink,
  appPairingProofMessage,
  DeviceCommand,
  DeviceProof,
  DevicePublicKey,
  isHttpOrigin,
  parseAppPairingLink,
} from '../../../server/identity/approval/contracts.ts';
