#!/usr/bin/env node
// The `persona-mcp` command: reads its command line, then serves the MCP
// server on stdio (default) or Streamable HTTP. Standard output belongs to
// the protocol on stdio, so everything else goes to standard error.
import path from "node:path";
import { httpClientConfiguration, type TokenOrigin } from "./cli/http-client-configuration.js";
import {
  HTTP_TOKEN_VARIABLE,
  parseArguments,
  type ServerArguments,
  USAGE,
  UsageError,
} from "./cli/parse-arguments.js";
import { createLogger } from "./logging/logger.js";
import { createPersonaServer } from "./server/create-persona-server.js";
import { SERVER_NAME, SERVER_VERSION } from "./server/server-info.js";
import {
  type ActiveSettings,
  createClientSource,
  withoutPlaceholders,
} from "./settings/client-source.js";
import { SERVICE_VARIABLES } from "./settings/read-env-file.js";
import { createBearerToken, MINIMUM_TOKEN_LENGTH } from "./transports/bearer-token.js";
import { serveHttp } from "./transports/http-transport.js";
import { serveStdio } from "./transports/stdio-transport.js";

/**
 * The HTTP transport's token: none with `--no-auth`, the one in
 * PERSONA_MCP_HTTP_TOKEN, or a new one.
 *
 * @throws {UsageError} for a short token, or a token together with --no-auth
 */
function chooseToken(options: ServerArguments, env: NodeJS.ProcessEnv): TokenOrigin {
  const given = env[HTTP_TOKEN_VARIABLE]?.trim();
  if (options.noAuth === true) {
    if (given !== undefined && given !== "") {
      throw new UsageError(`--no-auth and ${HTTP_TOKEN_VARIABLE} contradict each other; drop one`);
    }
    return { kind: "none" };
  }
  if (given === undefined || given === "") return { kind: "generated", token: createBearerToken() };
  if (given.length < MINIMUM_TOKEN_LENGTH || /\s/u.test(given)) {
    throw new UsageError(
      `${HTTP_TOKEN_VARIABLE} must be at least ${MINIMUM_TOKEN_LENGTH} characters without spaces (e.g. from \`openssl rand -base64 32\`), or unset to have one made at start`,
    );
  }
  return { kind: "environment" };
}

function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
}

async function main(): Promise<number> {
  let command: ReturnType<typeof parseArguments>;
  try {
    command = parseArguments(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`persona-mcp: ${error.message}\nSee persona-mcp --help.\n`);
    return 2;
  }
  if (command.action === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command.action === "version") {
    process.stdout.write(`${SERVER_VERSION}\n`);
    return 0;
  }
  const options = command.arguments;
  const envFile = path.resolve(options.envFile ?? ".env");
  // The key in use, masked in every log line; updated whenever a call resolves the settings.
  let secrets: readonly string[] = [];
  const logger = createLogger({ level: options.logLevel, secrets: () => secrets });
  const resolve = createClientSource({
    flags: { profile: options.profile, personaId: options.personaId, baseUrl: options.baseUrl },
    envFile,
    timeoutMs: options.timeoutMs,
  });
  const clientSource = (): ActiveSettings => {
    const settings = resolve();
    secrets = settings.secrets;
    return settings;
  };

  const cleaned = withoutPlaceholders(process.env);
  for (const name of SERVICE_VARIABLES) {
    if (process.env[name] !== undefined && cleaned[name] === undefined) {
      logger.warn(
        `${name} holds an unexpanded placeholder (the agent's configuration did not expand it, or the variable is unset there); ignoring it`,
      );
    }
  }
  try {
    const settings = clientSource();
    logger.info(
      `${SERVER_NAME} ${SERVER_VERSION}: persona ${settings.personaId} (${settings.origins.personaId}), key ${settings.maskedApiKey} (${settings.origins.apiKey}), service ${settings.client.baseUrl} (${settings.origins.baseUrl})`,
    );
  } catch (error) {
    // Not fatal: the tools are still listed and each call explains the setup.
    const reason = (error instanceof Error ? error.message : String(error)).split("\n", 1)[0];
    logger.warn(
      `${SERVER_NAME} ${SERVER_VERSION} is not set up yet: ${reason} Tool calls will say how to set it up.`,
    );
  }

  const createServer = () =>
    createPersonaServer({ clientSource, envFile, logger, maxRetries: options.maxRetries });

  if (options.transport === "http") {
    let token: TokenOrigin;
    try {
      token = chooseToken(options, process.env);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      process.stderr.write(`persona-mcp: ${error.message}\n`);
      return 2;
    }
    const endpoint = await serveHttp({
      createServer,
      host: options.host,
      port: options.port,
      logger,
      authorization:
        token.kind === "none"
          ? "none"
          : {
              bearerToken:
                token.kind === "generated"
                  ? token.token
                  : (process.env[HTTP_TOKEN_VARIABLE] ?? "").trim(),
            },
    });
    logger.info(`Streamable HTTP transport listening at ${endpoint.url}`);
    // Straight to standard error, not through the logger: the snippet is the one place the token is shown.
    process.stderr.write(httpClientConfiguration(endpoint.url, token));
    const signal = await waitForSignal();
    logger.info(`${signal}: shutting down`);
    await endpoint.close();
    return 0;
  }
  logger.info("serving on stdio");
  const outcome = await Promise.race([
    serveStdio(createServer(), process.stdin, process.stdout, logger),
    waitForSignal(),
  ]);
  // A transport failure (a message over the size limit) was answered and logged; it is not a clean end.
  return typeof outcome === "object" && outcome.status === "failed" ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `persona-mcp: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
