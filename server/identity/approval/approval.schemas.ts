/**
 * Request and response shapes of the authenticator-approval protocol (`hearth-app-approval-v1`). Bodies are
 * strict: unknown members (and private JWK members such as `d`) are refused.
 */
import { z } from 'zod';
import { ACCOUNT_CATEGORIES } from '../accounts/categories.ts';
import { APP_APPROVAL_LIMITS, APP_APPROVAL_PATH } from './contracts.ts';
import { DevicePublicKey } from './proof.ts';

export const APP_APPROVAL_BASE = APP_APPROVAL_PATH;

/** The version-1 budgets, announced in `/info.limits` (the contracts' limits, without the SDK's own call deadline). */
const { sdkCallTimeoutSeconds: _sdkOnly, ...serverLimits } = APP_APPROVAL_LIMITS;
export const APPROVAL_LIMITS = serverLimits;

const Iso = z.string().meta({ description: 'UTC date-time, ISO 8601.' });
const Uuid = z.string().min(1).max(100);
export const Feature = z.enum(['device-changes', 'login-context', 'terminal-logins']);

export const InfoResponse = z
  .object({
    protocol: z.literal('hearth-app-approval-v1'),
    issuer: z.string(),
    api: z.string(),
    appOrigin: z.string().nullable(),
    algorithm: z.literal('ES256'),
    limits: z.record(z.string(), z.number()),
    features: z.array(Feature),
    enabled: z.boolean().meta({
      description:
        'False when no authenticator origin is configured: every other endpoint then answers 503 `approval_disabled`, `appOrigin` is null and `features` empty.',
    }),
  })
  .meta({ id: 'AppApprovalInfo' });

export const PairingStartBody = z.object({ userId: z.uuid('userId must be a UUID').optional() }).strict();
export const PairingStartResponse = z
  .object({ protocol: z.string(), issuer: z.string(), pairingId: z.string(), secret: z.string(), expiresAt: Iso })
  .meta({ id: 'AppPairing' });

export const ClaimBody = z
  .object({ pairingId: Uuid, secret: z.string().min(1).max(200), publicKey: DevicePublicKey, name: z.string().max(400), signature: z.string().max(200) })
  .strict();
export const ClaimResponse = z.object({ deviceId: z.string(), comparison: z.string(), expiresAt: Iso });

export const PairingIdBody = z.object({ pairingId: Uuid }).strict();
export const ConfirmBody = z.object({ pairingId: Uuid, comparison: z.string().regex(/^\d{6}$/, 'comparison must be six digits') }).strict();
export const ResultBody = z.object({ pairingId: Uuid, secret: z.string().min(1).max(200), publicKey: DevicePublicKey }).strict();

export const ApprovalState = z.enum(['pending', 'approved', 'denied', 'cancelled', 'expired']);
export const Approval = z.object({ state: ApprovalState, expiresAt: Iso }).nullable();
export const PairingState = z.enum(['created', 'claimed', 'confirmed', 'cancelled', 'expired']);
export const PairingStatus = z
  .object({
    pairingId: z.string(),
    state: PairingState,
    expiresAt: Iso,
    deviceId: z.string().nullable(),
    name: z.string().nullable(),
    assisted: z.boolean(),
    approval: Approval,
  })
  .meta({ id: 'AppPairingStatus' });
export const ConfirmResponse = z.object({ deviceId: z.string(), approval: Approval });
export const ResultResponse = z.object({ state: PairingState, deviceId: z.string(), comparison: z.string().optional() });

export const Device = z
  .object({ id: z.string(), name: z.string(), createdAt: Iso, lastUsedAt: Iso.nullable(), revokedAt: Iso.nullable(), assisted: z.boolean() })
  .meta({ id: 'AppDevice' });
export const DevicePage = z.object({ items: z.array(Device), nextCursor: z.string().nullable() });
export const DevicesQuery = z.object({ after: z.uuid('after must be a device ID (UUID)').optional() });
export const DeviceUpdateBody = z.discriminatedUnion('operation', [
  z.object({ operation: z.literal('rename'), deviceId: Uuid, name: z.string().max(400) }).strict(),
  z.object({ operation: z.literal('revoke'), deviceId: Uuid }).strict(),
]);

export const ChangeStartBody = z.object({ deviceId: Uuid, endSessions: z.boolean() }).strict();
export const ChangeRefBody = z.union([z.object({ changeId: Uuid }).strict(), z.object({ deviceId: Uuid }).strict()]);
export const ChangeState = z.enum(['pending', 'approved', 'denied', 'cancelled', 'expired']);
export const ChangeStatus = z.object({ changeId: z.string(), state: ChangeState, expiresAt: Iso }).meta({ id: 'AppDeviceChangeStatus' });
export const ChangeStartResponse = z.union([
  ChangeStatus.extend({ kind: z.literal('revoke'), deviceId: z.string(), endSessions: z.boolean() }),
  z.object({ changeId: z.null(), state: z.literal('revoked'), deviceId: z.string() }),
]);

export const LoginStartBody = z.object({ identifier: z.string().min(1).max(320), category: z.enum(ACCOUNT_CATEGORIES) }).strict();
export const LoginStartResponse = z
  .object({ requestId: z.string(), browserSecret: z.string(), comparison: z.string(), expiresAt: Iso, pollAfterSeconds: z.number().int() })
  .meta({ id: 'AppLoginRequest' });
export const LoginRefBody = z.object({ requestId: Uuid, browserSecret: z.string().min(1).max(200) }).strict();
export const LoginState = z.enum(['pending', 'approved', 'denied', 'consumed', 'expired']);
export const LoginStatus = z.object({ state: LoginState, expiresAt: Iso, pollAfterSeconds: z.number().int() });

export const DeviceBody = z
  .object({
    proof: z.unknown().meta({ description: 'The signed proof `{issuer, deviceId, jti, issuedAt, expiresAt, command}`.' }),
    signature: z.string().max(400),
  })
  .strict();
export const DeviceResponse = z.record(z.string(), z.unknown()).meta({ description: 'Per command (see the description).' });
