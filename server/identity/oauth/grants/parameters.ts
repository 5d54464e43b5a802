/**
 * The token endpoint's request parameters (RFC 6749 §3.2), as node-oidc-provider's `lib/actions/token.js` treats them:
 * - every grant declares, beside its handler, the parameters it reads (`Grant.parameters`); the common ones are
 *   `grant_type` and the parameters of client authentication (`CLIENT_AUTH_PARAMETERS`);
 * - a parameter the request's grant reads, or a common one, given more than once is 400 `invalid_request` naming it
 *   ("Request and response parameters MUST NOT be included more than once");
 * - a grant's handler is given only those parameters: any other is ignored, whether no grant knows it or another
 *   grant reads it ("The authorization server MUST ignore unrecognized request parameters"), repeated or not;
 * - an empty value is no value ("Parameters sent without a value MUST be treated as if they were omitted").
 * All of it before client authentication, so a request is refused for its shape before its credentials are checked.
 */
import { quoteInput } from '../../../core/http/errors.ts';
import { type Form, oauthError } from '../action-context.ts';
import { CLIENT_AUTH_PARAMETERS } from '../client-auth.ts';

/** The parameters of every token request, whatever its grant. */
export const COMMON_PARAMETERS: ReadonlySet<string> = new Set(['grant_type', ...CLIENT_AUTH_PARAMETERS]);

/** The value of parameter `name` (undefined when absent or empty); given more than once is `invalid_request`. */
export function tokenParameter(body: URLSearchParams, name: string): string | undefined {
  const values = body.getAll(name);
  if (values.length > 1) throw oauthError('invalid_request', `parameter ${quoteInput(name)} is given more than once`);
  return values[0] || undefined;
}

/** The common parameters and those `declared` (a grant's), each by `tokenParameter`; every other one left out. */
export function tokenParameters(body: URLSearchParams, declared: ReadonlySet<string>): Form {
  const form: Form = {};
  for (const names of [COMMON_PARAMETERS, declared]) {
    for (const name of names) {
      const value = tokenParameter(body, name);
      if (value !== undefined) form[name] = value;
    }
  }
  return form;
}
