import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

/** Paths that must never reach a log line, whatever a caller passes. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'authorization',
  'token',
  'password',
  'secret',
  '*.token',
  '*.password',
  '*.secret',
  '*.appSecret',
  '*.adminToken',
];

export function createLogger(opts: { level: string; destination?: DestinationStream }): Logger {
  return pino(
    {
      level: opts.level,
      base: { service: 'hearth' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    opts.destination ?? pino.destination({ fd: 1, sync: false }),
  );
}
