import type { Api } from '../../core/http/api.ts';
import type { NamespaceService } from '../namespaces/namespaces.service.ts';
import type { Telemetry } from './telemetry.ts';

/** `GET /v1/{ns}/overview`. (Being built: see the helper's task.) */
export function registerOverviewRoutes(_api: Api, _deps: { namespaces: NamespaceService; telemetry: Telemetry }): void {}
