/**
 * The CSV branch of `POST /v1/namespaces/{ns}/import?table=…` (the route itself, its OpenAPI description and the
 * database-file branch are server/db/namespaces/namespaces.routes.ts's, which calls this handler when `table` is
 * given): it opens the namespace for writing, receives the single `file` part (memory, then a temporary file, at
 * most the smaller of HEARTH_UPLOAD_LIMIT and the CSV limit) and inserts its rows with importCsv (csv.ts): in a
 * worker thread, while the namespace's other writes wait in `gate` (nodes/forwarding.ts).
 */

import { HearthError } from '../../core/http/errors.ts';
import { discardUpload, receiveSingleFile } from '../../core/http/multipart.ts';
import type { ImportTableHandler } from '../namespaces/namespaces.routes.ts';
import type { NamespaceService } from '../namespaces/namespaces.service.ts';
import type { WriteGate } from '../nodes/forwarding.ts';
import { openTenant } from '../plane.ts';
import { CSV_IMPORT_LIMIT, importCsv } from './csv.ts';
import type { RowsService } from './rows.service.ts';

export function csvImportHandler(deps: {
  namespaces: NamespaceService;
  rows: RowsService;
  gate: WriteGate;
  uploadLimit: number;
  uploadMemoryLimit: number;
}): ImportTableHandler {
  const maxBytes = Math.min(deps.uploadLimit, CSV_IMPORT_LIMIT);
  return async (ctx, ns, table) => {
    const t = openTenant(ctx, deps.namespaces, ns, 'write');
    const upload = await receiveSingleFile(ctx, {
      field: 'file',
      memoryLimit: deps.uploadMemoryLimit,
      maxBytes,
      tooLarge: () => new HearthError('payload_too_large', `a CSV import is at most ${maxBytes} bytes`),
      tmpDir: deps.namespaces.tmpDir,
    });
    try {
      const result = await importCsv({ ns, table, upload, namespaces: deps.namespaces, gate: deps.gate, rows: deps.rows, meta: { actor: t.actor } });
      ctx.state.rowsWritten = result.inserted;
      return result;
    } finally {
      discardUpload(upload);
    }
  };
}
