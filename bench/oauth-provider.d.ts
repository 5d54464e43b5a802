/**
 * oidc-provider ships no type declarations (and @types/oidc-provider is not installed): the part the OAuth
 * benchmark's baseline child (bench/oauth-provider-child.ts) uses.
 */
declare module 'oidc-provider' {
  import type { RequestListener } from 'node:http';

  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    callback(): RequestListener;
    on(event: string, listener: (...args: any[]) => void): this;
  }
}
