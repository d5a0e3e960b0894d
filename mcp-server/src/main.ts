#!/usr/bin/env node
// The `persona-mcp` command: reads its command line, then serves the MCP
// server on stdio (default) or Streamable HTTP. Standard output belongs to
// the protocol on stdio, so everything else goes to standard error.
import path from "node:path";
import { parseArguments, USAGE, UsageError } from "./cli/parse-arguments.js";
import { createLogger } from "./logging/logger.js";
import { createPersonaServer } from "./server/create-persona-server.js";
import { SERVER_NAME, SERVER_VERSION } from "./server/server-info.js";
import {
  type ActiveSettings,
  createClientSource,
  withoutPlaceholders,
} from "./settings/client-source.js";
import { SERVICE_VARIABLES } from "./settings/read-env-file.js";
import { serveHttp } from "./transports/http-transport.js";
import { serveStdio } from "./transports/stdio-transport.js";

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
    const endpoint = await serveHttp({
      createServer,
      host: options.host,
      port: options.port,
      logger,
    });
    logger.info(`Streamable HTTP transport listening at ${endpoint.url}`);
    const signal = await waitForSignal();
    logger.info(`${signal}: shutting down`);
    await endpoint.close();
    return 0;
  }
  logger.info("serving on stdio");
  await Promise.race([serveStdio(createServer()), waitForSignal()]);
  return 0;
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
