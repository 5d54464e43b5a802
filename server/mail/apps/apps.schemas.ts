import { z } from 'zod';
import { DisplayName, ProfileKey } from '../profiles/profiles.schemas.ts';

export const APP_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;
export const CORE_APP = 'core';
export const MAIL_SEND = 'mail:send';

export const AppId = z
  .string()
  .regex(APP_ID_PATTERN, 'appId must be 1–63 lowercase letters, digits, ".", "_" or "-", beginning with a letter or digit')
  .meta({ description: 'Application id.', example: 'crm' });
export const AppParams = z.object({ appId: AppId });

const Permissions = z
  .array(z.string().min(1).max(100))
  .max(100)
  .refine((a) => new Set(a).size === a.length, 'platformPermissions must not repeat a permission')
  .meta({ description: "The application's declaration; `mail:send` is needed to send mail (a policy does not replace it)." });

/** The application's name: the sender's display name of its mail when the profile has no `fromName`. */
const AppName = DisplayName('name', 1).meta({
  description: 'Display name, 1–120 characters, one line without control characters: the sender name of its mail when the profile has no `fromName`.',
});

export const RegisterAppBody = z
  .object({
    appId: AppId.refine((a) => a !== CORE_APP, '"core" is Hearth\'s own application and cannot be registered'),
    name: AppName,
    platformPermissions: Permissions.default([]),
  })
  .strict()
  .meta({ id: 'MailRegisterApp' });
export type RegisterAppInput = z.input<typeof RegisterAppBody>;
export const UpdateAppBody = z
  .object({
    name: AppName.optional(),
    platformPermissions: Permissions.optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'at least one field is required')
  .meta({ id: 'MailUpdateApp' });
export type UpdateAppInput = z.input<typeof UpdateAppBody>;

export const Policy = z
  .discriminatedUnion(
    'mode',
    [
      z.object({ mode: z.literal('default') }).strict(),
      z
        .object({
          mode: z.literal('profiles'),
          profiles: z.array(ProfileKey).min(1, 'profiles must name at least one profile (use mode "none" to block sending)').max(1000),
        })
        .strict(),
      z.object({ mode: z.literal('none') }).strict(),
    ],
    { error: 'mode must be "default", "profiles" or "none"' },
  )
  .meta({
    id: 'MailAppPolicy',
    description:
      '`default`: follow the default profile (no stored policy). `profiles`: an explicit set of profile keys. `none`: an empty set, which blocks sending.',
  });
export type Policy = z.infer<typeof Policy>;

export const PolicyRead = z
  .object({
    mode: z.enum(['default', 'profiles', 'none']),
    profiles: z.array(z.string()).meta({ description: 'The profiles the application may use now (the default profile when following it).' }),
  })
  .meta({ id: 'MailAppPolicyState' });
export type PolicyRead = z.output<typeof PolicyRead>;

export const AppRead = z
  .object({
    appId: z.string(),
    name: z.string().nullable(),
    registered: z.boolean().meta({ description: 'False for a stored policy of an application that is not (or no longer) registered.' }),
    platformPermissions: z.array(z.string()).nullable(),
    declaresMailSend: z.boolean().nullable().meta({ description: 'Whether the registered application declares `mail:send`; null when not registered.' }),
    fixed: z.boolean().meta({ description: 'True for `core`, whose access always uses the default profile.' }),
    tokenPrefix: z.string().nullable(),
    policy: PolicyRead,
  })
  .meta({ id: 'MailApp' });
export type AppRead = z.output<typeof AppRead>;
export const AppList = z.object({ data: z.array(AppRead) }).meta({ id: 'MailAppList' });
export type AppList = z.output<typeof AppList>;
export const RegisteredApp = AppRead.extend({ token: z.string().meta({ description: "The application's bearer credential, shown once." }) }).meta({
  id: 'MailRegisteredApp',
});
export type RegisteredApp = z.output<typeof RegisteredApp>;
