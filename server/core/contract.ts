/** Core constants the admin UI shares with the server (browser-safe). See `.dependency-cruiser.cjs`. */
export { DATABASE_APP_ID, NAMESPACE_RESOURCE } from './auth/database-app.ts';
