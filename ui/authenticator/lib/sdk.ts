/**
 * The one place the app imports the browser SDK (`ui/sdk/app-approval`, seed "Client SDK surface") — from source.
 */
import { appApproval } from '../../sdk/app-approval/index.ts';

export const { parsePairingLink, connect, createKey, vault } = appApproval;
export {
  APP_APPROVAL_INBOX_ACCEPT,
  AppApprovalClient,
  AppApprovalClientError,
  type AppDeviceBinding,
  type AppLoginRequest,
  type AppDeviceChange,
  type AppLoginContext,
  type AppInboxResponse,
  type AppAccountResult,
  type AppPairingPayload,
  type VaultConfig,
  type VaultRecordBlob,
  type VaultSession,
} from '../../sdk/app-approval/index.ts';
