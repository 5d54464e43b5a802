/**
 * `/api/admin/backups…`: start a backup in the background and follow its job, list the backup folder, download and
 * delete a backup. Admin only; creating, downloading and deleting are audited (`backup.create`, `backup.download`,
 * `backup.delete`; the passphrase never is). docs/api/backups.md is the narrative reference.
 */
import fs from 'node:fs';
import { z } from 'zod';
import type { AuditLog } from '../audit/audit.ts';
import { actorFor } from '../auth/auth.ts';
import type { Api } from '../http/api.ts';
import { SMALL_BODY_LIMIT } from '../http/body.ts';
import { BackupJob, BackupJobParams, BackupList, BackupNameParams, CreateBackupBody } from './backup.schemas.ts';
import type { BackupService } from './backup.service.ts';

const tags = ['Backups'];
const NOT_FOUND = { description: 'No backup of that name in the backup folder (`backup_not_found`).' };
const BAD_NAME = 'A name that is not a backup file name (`invalid_request`): letters, digits, `.`, `_` and `-`, ending in `.hearth-backup`; never a path.';

export function registerBackupRoutes(api: Api, deps: { backups: BackupService; audit: AuditLog }): void {
  const { backups, audit } = deps;

  api.route({
    method: 'post',
    path: '/api/admin/backups',
    operationId: 'createBackup',
    tags,
    access: 'admin',
    summary: 'Start a backup',
    description:
      'Starts a backup of the whole instance in the background (platform.db, every namespace, the attachments of queued mail and — with a `passphrase` — the secrets, sealed under it) into the backup folder as `hearth-<UTC yyyymmdd-hhmmss>-manual.hearth-backup`. ' +
      'Poll `GET /api/admin/backups/jobs/{id}` for its progress. One backup runs at a time. The body may be left out (no passphrase: the secrets are left out and the backup says so). Audited as `backup.create`.',
    body: () => CreateBackupBody,
    bodyOptional: true,
    bodyLimit: { max: SMALL_BODY_LIMIT },
    responses: {
      202: { description: 'Started.', schema: () => z.object({ job: BackupJob }) },
      409: { description: 'A backup is already running (`backup_running`).' },
    },
    handler: (ctx, { body }) => {
      const job = backups.create({ passphrase: body.passphrase });
      const a = actorFor(ctx);
      audit.record({ actor: a.actor, action: 'backup.create', target: job.name, detail: { secrets: job.secrets }, requestId: a.requestId });
      ctx.status = 202;
      ctx.set('Cache-Control', 'no-store');
      return { job };
    },
  });

  api.route({
    method: 'get',
    path: '/api/admin/backups/jobs/:id',
    operationId: 'getBackupJob',
    tags,
    access: 'admin',
    summary: 'A backup job and its progress',
    description: 'The last 20 jobs since the server started are remembered (in memory).',
    params: () => BackupJobParams,
    responses: { 200: { description: 'The job.', schema: () => BackupJob }, 404: { description: 'No such job (`not_found`).' } },
    handler: (ctx, { params }) => {
      ctx.set('Cache-Control', 'no-store');
      return backups.job(params.id);
    },
  });

  api.route({
    method: 'get',
    path: '/api/admin/backups',
    operationId: 'listBackups',
    tags,
    access: 'admin',
    summary: 'List backups',
    description:
      "The backup folder's backups, newest first, from each file's manifest (the data is not read: `hearth backup verify` checks every byte), with partial files (`writing`, `stale`); the running job; the schedule.",
    responses: { 200: { description: 'Backups.', schema: () => BackupList } },
    handler: async (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      return await backups.list();
    },
  });

  api.route({
    method: 'get',
    path: '/api/admin/backups/:name',
    operationId: 'downloadBackup',
    tags,
    access: 'admin',
    summary: 'Download a backup',
    description: 'The `.hearth-backup` file, with `Content-Length` and `Content-Disposition: attachment`. Audited as `backup.download`.',
    params: () => BackupNameParams,
    responses: {
      200: { description: 'The backup file.', contentType: 'application/octet-stream', schema: z.string().meta({ format: 'binary' }) },
      400: { description: BAD_NAME },
      404: NOT_FOUND,
    },
    handler: (ctx, { params }) => {
      const { file, size } = backups.file(params.name);
      const a = actorFor(ctx);
      audit.record({ actor: a.actor, action: 'backup.download', target: params.name, detail: { size }, requestId: a.requestId });
      ctx.status = 200;
      ctx.type = 'application/octet-stream';
      ctx.length = size;
      ctx.set('Content-Disposition', `attachment; filename="${params.name}"`);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = fs.createReadStream(file, { start: 0, end: Math.max(0, size - 1) });
    },
  });

  api.route({
    method: 'delete',
    path: '/api/admin/backups/:name',
    operationId: 'deleteBackup',
    tags,
    access: 'admin',
    summary: 'Delete a backup',
    description: 'Deletes the file from the backup folder. Audited as `backup.delete`.',
    params: () => BackupNameParams,
    responses: {
      204: { description: 'Deleted.' },
      400: { description: BAD_NAME },
      404: NOT_FOUND,
      409: { description: 'The backup is being written (`backup_running`).' },
    },
    handler: async (ctx, { params }) => {
      await backups.remove(params.name);
      const a = actorFor(ctx);
      await audit.record({ actor: a.actor, action: 'backup.delete', target: params.name, detail: null, requestId: a.requestId });
      ctx.status = 204;
    },
  });
}
