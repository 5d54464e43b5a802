import { z } from 'zod';

const Days = (name: string) =>
  z
    .number({ error: `${name} must be a whole number of days` })
    .int(`${name} must be a whole number of days`)
    .min(1, `${name} must be 1–36500`)
    .max(36500, `${name} must be 1–36500`);

export const RetentionBody = z
  .object({ contentDays: Days('contentDays'), recordDays: Days('recordDays') })
  .strict()
  .refine((b) => b.recordDays >= b.contentDays, { message: 'recordDays must be at least contentDays', path: ['recordDays'] })
  .meta({ id: 'MailRetention', description: 'Days of content (text, HTML, custom headers) and of whole send-log records; both saved together.' });
export type RetentionBody = z.input<typeof RetentionBody>;
export const RetentionRead = z.object({ contentDays: z.number().int(), recordDays: z.number().int() }).meta({ id: 'MailRetentionState' });
export type RetentionRead = z.output<typeof RetentionRead>;
