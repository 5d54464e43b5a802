import type { Api } from '../../core/http/api.ts';
import type { NamespaceService } from '../namespaces/namespaces.service.ts';
import type { EventBus } from './bus.ts';

/** Live change events: `GET /v1/{ns}/subscribe`. (Being built: see the helper's task.) */
export function registerEventRoutes(_api: Api, _deps: { namespaces: NamespaceService; events: EventBus }): { close(): void } {
  return { close() {} };
}
