// A real OpenID provider for the single sign-on tests: `node server.js PORT DIRECTORY.json REDIRECT_URIS`.
// panva's oidc-provider (OpenID certified) with its development sign-in and consent pages (any
// password is accepted: the login names the person). REDIRECT_URIS is comma-separated. DIRECTORY.json maps a login to its claims and
// is read again at every sign-in, so a test changes the "directory" (groups, attributes) between two
// sign-ins by rewriting the file. One confidential client: `workbench` / `workbench-test-secret`.
// oidc-provider 9 prints "Unsupported runtime" on Node 20 (it supports the current LTS lines only);
// everything these tests use (discovery, code flow with PKCE, JWKS, userinfo) works there.
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import Provider from "oidc-provider";

const [port, directoryPath, redirectUris] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;

function directory() {
  return JSON.parse(readFileSync(directoryPath, "utf8"));
}

const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: "jwk" }), kid: "test-key-1", use: "sig", alg: "RS256" };

const provider = new Provider(issuer, {
  clients: [{
    client_id: "workbench",
    client_secret: "workbench-test-secret",
    redirect_uris: redirectUris.split(","),
    grant_types: ["authorization_code"],
    response_types: ["code"],
  }],
  jwks: { keys: [signingKey] },
  // The directory's claims travel in the ID token (the workbench also reads userinfo).
  conformIdTokenClaims: false,
  claims: {
    openid: ["sub"],
    email: ["email", "email_verified"],
    profile: ["name"],
    groups: ["groups"],
    directory: ["region", "customer_id", "channel"],
  },
  scopes: ["openid", "email", "profile", "groups", "directory"],
  cookies: { keys: ["workbench-test-cookie-key"] },
  async findAccount(ctx, login) {
    const person = directory()[login];
    if (!person) return undefined;
    return { accountId: login, async claims() { return { sub: login, email_verified: true, ...person }; } };
  },
});

const server = provider.listen(Number(port), "127.0.0.1", () => console.log("listening"));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
