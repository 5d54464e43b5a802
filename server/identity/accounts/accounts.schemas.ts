import { z } from 'zod';
import { plainTextRule } from '../../core/http/text.ts';
import { ACCOUNT_CATEGORIES } from './categories.ts';

export const LOGIN_PATTERN = /^[a-z_][a-z0-9_-]{0,31}$/;
const LOGIN_RULE = '1–32 characters of lowercase ASCII letters, digits, "_" or "-", starting with a letter or "_"';
const GROUP_RULE = '1–64 characters of lowercase ASCII letters, digits, "_" or "-", starting with a letter or "_"';

export const Login = z
  .string()
  .regex(LOGIN_PATTERN, `login must be ${LOGIN_RULE}`)
  .meta({ description: `Login name: ${LOGIN_RULE}. Unique; renaming keeps \`sub\`.`, example: 'alice' });
const Email = z.email('email must be a valid address').max(254, 'email must be at most 254 characters');
const DisplayName = z.string().trim().max(200, 'displayName must be at most 200 characters').superRefine(plainTextRule('displayName'));
const Profile = z.enum(['user', 'guest']).meta({ description: 'Account profile.' });
const ExpiresAt = z.iso.datetime({ offset: true, message: 'expiresAt must be an ISO 8601 date-time (e.g. 2030-01-01T00:00:00Z)' });
const GroupName = z
  .string()
  .regex(/^[a-z_][a-z0-9_-]{0,63}$/, `name must be ${GROUP_RULE}`)
  .meta({ description: `Group name: ${GROUP_RULE}. Unique.`, example: 'staff' });
const Description = z
  .string()
  .trim()
  .max(1000, 'description must be at most 1000 characters')
  .superRefine(plainTextRule('description', { multiline: true }));
const Id = (what: string) => z.uuid(`${what} must be a UUID`);

export const Account = z
  .object({
    sub: z.string().meta({ description: 'Immutable UUID.' }),
    kind: z.literal('person'),
    login: z.string(),
    email: z.string().nullable(),
    displayName: z.string(),
    profile: Profile,
    admin: z.boolean().meta({ description: 'Administrator role.' }),
    disabled: z.boolean(),
    expiresAt: z.string().nullable().meta({ description: 'Expiry (ISO 8601); the account is unusable from then on. Null: never.' }),
    epoch: z.number().int().meta({ description: 'Session epoch; bumped to revoke every session of the account.' }),
    category: z.enum(ACCOUNT_CATEGORIES).meta({ description: '`login` (local full account), `guest`, `freeipa` (directory; reserved).' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Account' });

export const Membership = z
  .object({ id: z.string(), name: z.string(), direct: z.boolean().meta({ description: 'False when the membership is only through nested groups.' }) })
  .meta({ id: 'GroupMembership' });

export const AccountDetail = Account.extend({
  groups: z.array(Membership).meta({ description: 'Direct and transitive (nested) group memberships.' }),
}).meta({ id: 'AccountDetail' });

const paging = {
  page: z.coerce.number().int('page must be an integer').min(1, 'page must be at least 1').default(1),
  per_page: z.coerce.number().int('per_page must be an integer').min(1, 'per_page must be at least 1').max(100, 'per_page must be at most 100').default(50),
  search: z.string().max(200, 'search must be at most 200 characters').optional(),
};
export const PageQuery = z.object(paging).strict();
export const AccountListQuery = PageQuery.meta({ description: '`search` matches login, email and display name (case-insensitive substring).' });

const pageOf = <T extends z.ZodType>(item: T, id: string) =>
  z.object({ data: z.array(item), page: z.number().int(), per_page: z.number().int(), total: z.number().int() }).meta({ id });

export const AccountList = pageOf(Account, 'AccountList');

export const CreateAccountBody = z
  .object({
    login: Login,
    email: Email.nullable().optional(),
    displayName: DisplayName.optional(),
    profile: Profile.default('user'),
    admin: z.boolean().default(false),
    disabled: z.boolean().default(false),
    expiresAt: ExpiresAt.nullable().optional(),
  })
  .strict()
  .meta({ id: 'CreateAccount' });

export const UpdateAccountBody = z
  .object({
    login: Login.optional(),
    email: Email.nullable().optional(),
    displayName: DisplayName.optional(),
    profile: Profile.optional(),
    admin: z.boolean().optional(),
    disabled: z.boolean().optional(),
    expiresAt: ExpiresAt.nullable().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'at least one field is required')
  .meta({
    id: 'UpdateAccount',
    description: 'Only the given fields change; `null` clears `email` or `expiresAt`. Disabling revokes sessions (bumps `epoch`).',
  });

export const SubParams = z.object({ sub: Id('sub') });
export const GroupParams = z.object({ id: Id('id') });

export const Group = z
  .object({ id: z.string(), name: z.string(), description: z.string(), createdAt: z.string(), updatedAt: z.string() })
  .meta({ id: 'Group' });
export const GroupDetail = Group.extend({
  members: z
    .object({
      accounts: z.array(z.object({ sub: z.string(), login: z.string().nullable(), displayName: z.string(), kind: z.enum(['person', 'service']) })),
      groups: z.array(z.object({ id: z.string(), name: z.string() })),
    })
    .meta({ description: 'Direct members only.' }),
}).meta({ id: 'GroupDetail' });
export const GroupList = pageOf(Group, 'GroupList');

export const CreateGroupBody = z
  .object({ name: GroupName, description: Description.default('') })
  .strict()
  .meta({ id: 'CreateGroup' });
export const UpdateGroupBody = z
  .object({ name: GroupName.optional(), description: Description.optional() })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'at least one field is required')
  .meta({ id: 'UpdateGroup' });

export const MemberBody = z
  .object({ account: Id('account').optional(), group: Id('group').optional() })
  .strict()
  .refine((b) => (b.account === undefined) !== (b.group === undefined), 'exactly one of "account" (a sub) or "group" (a group id) is required')
  .meta({ id: 'GroupMember', description: 'An account (`account`: its sub) or a nested group (`group`: its id).' });
export const MemberQuery = z
  .object({ account: Id('account').optional(), group: Id('group').optional() })
  .strict()
  .refine((b) => (b.account === undefined) !== (b.group === undefined), 'exactly one of "account" (a sub) or "group" (a group id) is required');

const ResourcePart = (name: string) =>
  z.string().min(1, `${name} must not be empty`).max(200, `${name} must be at most 200 characters`).superRefine(plainTextRule(name));
export const ServiceAccount = z
  .object({
    sub: z.string(),
    kind: z.literal('service'),
    appId: z.string(),
    resourceType: z.string(),
    resourceId: z.string(),
    displayName: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({
    id: 'ServiceAccount',
    description: 'A resource-bound account an application acts as (OAuth client credentials). It has no login and never signs in.',
  });
export const ServiceAccountList = pageOf(ServiceAccount, 'ServiceAccountList');
export const CreateServiceAccountBody = z
  .object({
    appId: ResourcePart('appId'),
    resourceType: ResourcePart('resourceType'),
    resourceId: ResourcePart('resourceId'),
    displayName: DisplayName.optional(),
  })
  .strict()
  .meta({ id: 'CreateServiceAccount', description: 'The triple `appId`, `resourceType`, `resourceId` is unique.' });

export const AccountCategoryPolicy = z
  .object({
    allowedCategories: z
      .array(z.enum(ACCOUNT_CATEGORIES))
      .max(ACCOUNT_CATEGORIES.length)
      .refine((a) => new Set(a).size === a.length, 'allowedCategories must not repeat a category')
      .meta({ description: 'Categories whose accounts may use platform credential flows.' }),
  })
  .strict()
  .meta({
    id: 'AccountCategoryPolicy',
    description:
      'Which account categories may use credential flows. Default `{"allowedCategories": ["login", "guest"]}`; a stored policy that does not validate allows nothing.',
  });
export type AccountCategoryPolicy = z.infer<typeof AccountCategoryPolicy>;
export const AccountCategoryPolicyState = AccountCategoryPolicy.extend({
  valid: z.boolean().meta({ description: 'False when the stored policy is invalid: then nothing is allowed until it is replaced.' }),
}).meta({ id: 'AccountCategoryPolicyState' });

// The shapes as the API sends and takes them: the admin UI imports these as types (ui/src/lib/api/identity.ts), so a
// change here that breaks the UI fails its typecheck.
export type Account = z.output<typeof Account>;
export type AccountDetail = z.output<typeof AccountDetail>;
export type GroupMembership = z.output<typeof Membership>;
export type AccountList = z.output<typeof AccountList>;
export type CreateAccountBody = z.input<typeof CreateAccountBody>;
export type UpdateAccountBody = z.input<typeof UpdateAccountBody>;
export type Group = z.output<typeof Group>;
export type GroupDetail = z.output<typeof GroupDetail>;
export type GroupList = z.output<typeof GroupList>;
export type CreateGroupBody = z.input<typeof CreateGroupBody>;
export type UpdateGroupBody = z.input<typeof UpdateGroupBody>;
export type MemberBody = z.input<typeof MemberBody>;
export type ServiceAccount = z.output<typeof ServiceAccount>;
export type ServiceAccountList = z.output<typeof ServiceAccountList>;
export type CreateServiceAccountBody = z.input<typeof CreateServiceAccountBody>;
export type AccountCategoryPolicyState = z.output<typeof AccountCategoryPolicyState>;
