import { z } from 'zod';

/** The outcome of one bounce-collection pass (`CheckOutcome` in poller.ts), as "check now" answers it. */
export const BounceCheckResult = z
  .object({
    profile: z.string(),
    joined: z.boolean().meta({
      description: "True when the request joined a pass already in progress (the five-minute schedule's or another request's) instead of starting one.",
    }),
    checkedAt: z.string().meta({ description: "When the pass ended and the profile's `bounces` status was saved." }),
    error: z
      .enum(['open_failed', 'search_failed', 'apply_failed', 'save_failed', 'interrupted'])
      .nullable()
      .meta({ description: "The pass's error code (as `bounces.error` of the profile), null when it succeeded." }),
    detail: z.string().nullable().meta({ description: "What went wrong, in words (the IMAP server's or the TLS library's message); null without error." }),
    messages: z.number().int().meta({ description: 'Messages examined (above the cursor, at most 200 a pass).' }),
    reports: z.number().int().meta({ description: 'Standard delivery reports (RFC 3464) read among them.' }),
    matched: z.number().int().meta({ description: 'Reports whose original Message-ID is a message of the send log.' }),
    recorded: z.number().int().meta({ description: 'Failed recipients newly recorded on their message (`sent` becomes `bounced`).' }),
    skipped: z.number().int().meta({ description: 'Messages skipped: unreadable twice, or a report part above 64 KiB.' }),
    more: z.boolean().meta({ description: 'More messages wait above the per-pass limit of 200 (the next pass goes on).' }),
  })
  .meta({ id: 'MailBounceCheck' });
export type BounceCheckResult = z.infer<typeof BounceCheckResult>;
