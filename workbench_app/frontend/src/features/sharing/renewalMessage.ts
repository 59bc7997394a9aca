// The renewal message a host page sends to the embed's frame to hand in a new token without a
// reload: `frame.contentWindow.postMessage({type: "analytics-embed-token", token}, workbenchOrigin)`.
// Pure: the embed page accepts it only from an origin its embedding secret allows.
export const RENEWAL_TYPE = "analytics-embed-token";
export const ACCEPTED_TYPE = "analytics-embed-token-accepted";

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** The new token a message carries, or null when it is not a renewal from an allowed host. */
export function renewedToken(origin: string, message: unknown, allowedOrigins: readonly string[]): string | null {
  if (!allowedOrigins.includes(origin)) return null;
  if (typeof message !== "object" || message === null) return null;
  const { type, token } = message as { type?: unknown; token?: unknown };
  if (type !== RENEWAL_TYPE || typeof token !== "string" || token.length > 8000 || !JWT_SHAPE.test(token)) return null;
  return token;
}
