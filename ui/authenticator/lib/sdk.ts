/**
 * The one place the app imports the browser SDK (`ui/sdk/app-approval`, seed "Client SDK surface") — from source.
 */
import { appApproval } from '../../sdk/app-approval/index.ts';

export const { parsePairingLink, connect, createKey, vault } = appApproval;
export {
  APP_APPROVAL_INBOX_ACCEPT,
  type AppAccountResult,
  AppApprovalClient,
  AppApprovalClientError,
  type AppDeviceBinding,
  type AppDeviceChange,
  type AppInboxResponse,
  type AppLoginContext,
  type AppLoginRequest,
  type AppPairingPayload,
  type VaultConfig,
  type VaultRecordBlob,
  type VaultSession,
} from '../../sdk/app-approval/index.ts';
