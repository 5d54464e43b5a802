/**
 * Who the database service is, for the service accounts it accepts (browser-safe: the admin UI imports it too).
 *
 * OAuth scopes do not grant domain access: an application verifies `appId`, `resourceType` and `resourceId`
 * of the service account a token acts as. The database service's service accounts are `appId: hearth-db`,
 * `resourceType: namespace`, `resourceId: <namespace name>`; a service account of any other application never reaches
 * a namespace (`requireNamespaceAccess` in auth.ts).
 */
export const DATABASE_APP_ID = 'hearth-db';
/** The `resourceType` of the database service's service accounts. */
export const NAMESPACE_RESOURCE = 'namespace';
