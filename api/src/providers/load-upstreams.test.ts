import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config/config.js";

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-upstreams-unit-"));
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

let files = 0;
function writeFile(text: string, extension = "yaml"): string {
  files += 1;
  const file = path.join(directory, `upstreams-${files}.${extension}`);
  fs.writeFileSync(file, text);
  return file;
}

/** Loads the configuration with an upstream file of this text. */
function load(text: string, environment: Record<string, string> = {}, extension = "yaml") {
  return loadConfig({ PERSONA_UPSTREAMS_FILE: writeFile(text, extension), ...environment });
}

function configError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

const HOSTED = `
upstreams:
  openai:
    kind: openai-compatible
    baseUrl: https://api.openai.com/v1
    apiKeyEnv: OPENAI_API_KEY
    timeoutMs: 20000
    maxRetries: 2
    price: { inputMicrosPerMillionTokens: 150000, outputMicrosPerMillionTokens: 600000 }
    models:
      gpt-4o: { price: { inputMicrosPerMillionTokens: 2500000, outputMicrosPerMillionTokens: 10000000 }, maxOutputTokens: 4096 }
  local:
    kind: openai-compatible
    baseUrl: http://127.0.0.1:11434/v1
    price: { requestMicros: 0 }
  claude:
    kind: anthropic
    apiKeyEnv: ANTHROPIC_API_KEY
    price: { inputMicrosPerMillionTokens: 1000000, outputMicrosPerMillionTokens: 5000000 }
`;

describe("the upstream file (PERSONA_UPSTREAMS_FILE)", () => {
  it("reads upstreams from YAML with defaults, keys from the variables it names, and adds the offline engine", () => {
    const config = load(HOSTED, { OPENAI_API_KEY: "sk-test-openai", ANTHROPIC_API_KEY: "sk-ant" });
    expect([...config.upstreams.keys()]).toEqual(["openai", "local", "claude", "offline"]);
    const openai = config.upstreams.get("openai");
    expect(openai).toMatchObject({
      kind: "openai-compatible",
      baseUrl: "https://api.openai.com/v1",
      timeoutMs: 20_000,
      maxRetries: 2,
      maxOutputTokens: 2048,
      cooldownAfterFailures: 3,
      cooldownMs: 30_000,
    });
    expect(openai?.apiKey?.reveal()).toBe("sk-test-openai");
    expect(openai?.models["gpt-4o"]?.maxOutputTokens).toBe(4096);
    // The variables' defaults fill what an upstream leaves out.
    expect(config.upstreams.get("local")).toMatchObject({ timeoutMs: 30_000, maxRetries: 1 });
    expect(config.upstreams.get("local")?.apiKey).toBeUndefined();
    expect(config.upstreams.get("claude")?.baseUrl).toBe("https://api.anthropic.com");
    expect(config.upstreams.get("offline")?.price.requestMicros).toBe(100);
  });

  it("never shows a key when the configuration is printed", () => {
    const config = load(HOSTED, { OPENAI_API_KEY: "sk-test-openai", ANTHROPIC_API_KEY: "sk-ant" });
    const printed = JSON.stringify([...config.upstreams.values()]);
    expect(printed).not.toContain("sk-test-openai");
    expect(printed).toContain("[redacted]");
    expect(String(config.upstreams.get("claude")?.apiKey)).toBe("[redacted]");
  });

  it("reads JSON as well", () => {
    const config = load(
      JSON.stringify({
        upstreams: {
          vllm: { kind: "openai-compatible", baseUrl: "http://10.0.0.5:8000/v1", price: {} },
        },
      }),
      {},
      "json",
    );
    expect(config.upstreams.get("vllm")?.price).toEqual({
      requestMicros: 0,
      inputMicrosPerMillionTokens: 0,
      outputMicrosPerMillionTokens: 0,
    });
  });

  it("refuses an inline key, naming apiKeyEnv, without repeating it", () => {
    const message = configError(() =>
      load(`
upstreams:
  openai:
    kind: openai-compatible
    baseUrl: https://api.openai.com/v1
    apiKey: sk-inline-secret
    price: {}
`),
    );
    expect(message).toMatch(
      /^PERSONA_UPSTREAMS_FILE \(.+\): upstreams\.openai\.apiKey: secrets are never written in this file.+apiKeyEnv/u,
    );
    expect(message).not.toContain("sk-inline-secret");
  });

  it("refuses credentials in a base URL", () => {
    const message = configError(() =>
      load(`
upstreams:
  proxy:
    kind: openai-compatible
    baseUrl: https://user:hunter2@proxy.example/v1
    price: {}
`),
    );
    expect(message).toMatch(/upstreams\.proxy\.baseUrl: credentials in the URL are secrets/u);
    expect(message).not.toContain("hunter2");
  });

  it.each([
    [
      "a variable that is not set",
      "upstreams:\n  c: { kind: anthropic, apiKeyEnv: NOT_SET_ANYWHERE, price: {} }\n",
      /upstreams\.c\.apiKeyEnv: the environment variable NOT_SET_ANYWHERE is not set/u,
    ],
    [
      "a missing price",
      "upstreams:\n  c: { kind: openai-compatible, baseUrl: 'http://127.0.0.1:1/v1' }\n",
      /upstreams\.c\.price: required/u,
    ],
    [
      "a missing base URL",
      "upstreams:\n  c: { kind: openai-compatible, price: {} }\n",
      /upstreams\.c\.baseUrl: required for this kind/u,
    ],
    ["an unknown kind", "upstreams:\n  c: { kind: gemini, price: {} }\n", /upstreams\.c\.kind/u],
    [
      "an unknown setting",
      "upstreams:\n  c: { kind: offline, timeout: 5 }\n",
      /upstreams\.c\.timeout: unknown setting/u,
    ],
    ["a bad upstream name", "upstreams:\n  'a:b': { kind: offline }\n", /upstreams\.a:b/u],
    [
      "a negative price",
      "upstreams:\n  c: { kind: offline, price: { requestMicros: -1 } }\n",
      /upstreams\.c\.price\.requestMicros/u,
    ],
    ["text that is not YAML", "upstreams: [unclosed\n", /not valid YAML or JSON/u],
    ["an empty file", "", /\(root\)/u],
  ])("stops start-up on %s, naming the field", (_case, text, pattern) => {
    expect(configError(() => load(text))).toMatch(pattern);
  });

  it("names the file when it cannot be read", () => {
    expect(
      configError(() =>
        loadConfig({ PERSONA_UPSTREAMS_FILE: path.join(directory, "missing.yaml") }),
      ),
    ).toMatch(/^PERSONA_UPSTREAMS_FILE \(.+missing\.yaml\): cannot read it \(ENOENT\)$/u);
  });

  it("refuses the first format's variables beside the file, saying where their settings go", () => {
    const file = writeFile("upstreams: {}\n");
    expect(
      configError(() =>
        loadConfig({
          PERSONA_UPSTREAMS_FILE: file,
          PERSONA_OPENAI_BASE_URL: "http://127.0.0.1:1/v1",
        }),
      ),
    ).toMatch(/^PERSONA_OPENAI_BASE_URL: .+declare that upstream in the file/u);
    expect(
      configError(() => loadConfig({ PERSONA_UPSTREAMS_FILE: file, PERSONA_MODEL_PRICES: "{}" })),
    ).toMatch(/^PERSONA_MODEL_PRICES: .+price/u);
  });
});

describe("the upstreams of the variables (no upstream file)", () => {
  it("are offline alone, or with PERSONA_OPENAI_BASE_URL the openai-compatible upstream too", () => {
    expect([...loadConfig({}).upstreams.keys()]).toEqual(["offline"]);
    const config = loadConfig({
      PERSONA_OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
      PERSONA_OPENAI_API_KEY: "local-key",
      PERSONA_PROVIDER_TIMEOUT_MS: "1234",
      PERSONA_PROVIDER_MAX_RETRIES: "0",
    });
    expect(config.upstreams.get("openai-compatible")).toMatchObject({
      kind: "openai-compatible",
      baseUrl: "http://127.0.0.1:11434/v1",
      timeoutMs: 1234,
      maxRetries: 0,
      price: { inputMicrosPerMillionTokens: 1_000_000, outputMicrosPerMillionTokens: 4_000_000 },
    });
    expect(config.upstreams.get("openai-compatible")?.apiKey?.reveal()).toBe("local-key");
  });

  it("refuses PERSONA_MODEL_PRICES naming an upstream that is not configured", () => {
    expect(
      configError(() =>
        loadConfig({ PERSONA_MODEL_PRICES: '{"openai-compatible:*":{"requestMicros":5}}' }),
      ),
    ).toMatch(
      /^PERSONA_MODEL_PRICES: openai-compatible:\* names the upstream "openai-compatible", which is not configured/u,
    );
  });
});
