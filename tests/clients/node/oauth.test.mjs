// Sign in with GitLab, the whole chain, as an MCP client runs it: the official TypeScript
// SDK's OAuth client provider against `serve --http` with --oauth-apps, and the sandbox as
// GitLab's authorization server. The client is refused (401 with resource_metadata),
// discovers the protected resource and GitLab from the metadata, authorizes with PKCE
// (the sandbox's signed-in user approves at once: the browser step is the only thing left
// out), trades the code for a token and calls tools with it; GitLab then sees the token as
// a Bearer token of the allowed application.
//
// Run from this folder: `npm test`. GITLAB_MCP_BIN names the binary (default: the debug build).

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const binary = process.env.GITLAB_MCP_BIN ?? path.resolve(here, "../../../target/debug/gitlab-mcp");
const children = [];
after(() => children.forEach((child) => child.kill()));

/** The sandbox application's client id and one of its registered redirect URIs. */
const CLIENT_ID = "sandbox-oauth-app";
const REDIRECT = "http://127.0.0.1:33418/callback";
/** The server's public address as its clients know it; requests to it reach the real port. */
const PUBLIC = "http://localhost";

/** Starts the binary and resolves with the first URL it prints on `stream`. */
function start(args, env, stream) {
  const inherited = { ...process.env };
  delete inherited.GITLAB_TOKEN;
  delete inherited.GITLAB_MCP_SHARED_TOKEN;
  const child = spawn(binary, args, { env: { ...inherited, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child[stream] });
    lines.on("line", (line) => {
      const url = line.match(/http:\/\/\S+/);
      if (url) resolve(new URL(url[0]));
    });
    child.on("exit", (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
}

/** An OAuthClientProvider as a desktop client keeps one: in memory, pre-registered. */
class Provider {
  constructor() {
    this.saved = undefined;
    this.verifier = undefined;
    this.authorizationUrl = undefined;
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return { client_name: "gitlab-mcp sign-in test", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" };
  }
  clientInformation() {
    return { client_id: CLIENT_ID };
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

test("an MCP client signs in with GitLab (PKCE) and calls tools with its token", async () => {
  const gitlab = await start(["sandbox", "--listen", "127.0.0.1:0"], {}, "stdout");
  const mcp = await start(
    ["serve", "--http", "127.0.0.1:0"],
    { GITLAB_URL: gitlab.origin, GITLAB_MCP_OAUTH_APPS: CLIENT_ID, GITLAB_MCP_PUBLIC_URL: PUBLIC },
    "stderr",
  );
  // What a reverse proxy does: the public address leads to the port the server is on.
  const toServer = (url, init) => {
    const target = new URL(url instanceof Request ? url.url : url);
    if (target.origin === new URL(PUBLIC).origin) {
      target.protocol = mcp.protocol;
      target.host = mcp.host;
    }
    return fetch(target, init);
  };
  const provider = new Provider();
  const transport = () =>
    new StreamableHTTPClientTransport(new URL("/mcp", PUBLIC), { authProvider: provider, fetch: toServer });

  // 1. No token yet: refused, and the SDK goes to GitLab's authorization endpoint.
  const first = transport();
  await assert.rejects(
    new Client({ name: "sign-in", version: "1.0.0" }).connect(first),
    (error) => error instanceof UnauthorizedError,
  );
  const authorize = provider.authorizationUrl;
  assert.ok(authorize, "the SDK asked to open the authorization page");
  assert.equal(authorize.origin, gitlab.origin, "the authorization server is GitLab");
  assert.equal(authorize.pathname, "/oauth/authorize");
  assert.equal(authorize.searchParams.get("client_id"), CLIENT_ID);
  assert.equal(authorize.searchParams.get("code_challenge_method"), "S256");
  assert.equal(authorize.searchParams.get("scope"), "api", "the scope the challenge named");
  assert.equal(authorize.searchParams.get("resource"), `${PUBLIC}/mcp`);

  // 2. The browser: GitLab's user approves and is sent back to the client's callback.
  const approved = await fetch(authorize, { redirect: "manual" });
  assert.equal(approved.status, 302);
  const callback = new URL(approved.headers.get("location"));
  assert.equal(`${callback.origin}${callback.pathname}`, REDIRECT);
  const code = callback.searchParams.get("code");
  assert.ok(code, `a code in ${callback}`);

  // 3. The code and the PKCE verifier for a token.
  await first.finishAuth(code);
  const token = provider.tokens();
  assert.equal(token.token_type, "Bearer");
  assert.equal(token.scope, "api");

  // 4. Connected with it: the catalog and a call, as alice.
  const client = new Client({ name: "sign-in", version: "1.0.0" });
  await client.connect(transport());
  const tools = await client.listTools();
  assert.ok(tools.tools.some((tool) => tool.name === "gitlab_execute_action"));
  const me = await client.callTool({
    name: "gitlab_execute_action",
    arguments: { action: "user.current", params: {} },
  });
  assert.equal(me.isError ?? false, false, JSON.stringify(me.content));
  assert.equal(me.structuredContent.username, "alice");
  await client.close();

  // GitLab saw the new token as a Bearer token, described it, and served the API with it.
  const seen = await (await fetch(new URL("/-/sandbox/requests", gitlab))).json();
  const paths = seen.map((request) => request.path);
  assert.ok(paths.includes("/oauth/token"), paths.join(" "));
  assert.ok(paths.includes("/oauth/token/info"), paths.join(" "));
  assert.ok(paths.some((p) => p.startsWith("/api/v4/user")), paths.join(" "));

  // A verifier that is not the code's own gets no token.
  const again = new URL(authorize);
  const second = await fetch(again, { redirect: "manual" });
  const stolen = new URL(second.headers.get("location")).searchParams.get("code");
  const refused = await fetch(new URL("/oauth/token", gitlab), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: stolen,
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT,
      code_verifier: "not-the-verifier-of-this-code-not-the-verifier-of-this-code",
    }),
  });
  assert.equal(refused.status, 400);
  assert.equal((await refused.json()).error, "invalid_grant");
});
