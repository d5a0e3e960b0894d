import { MODELS_PATH } from "@persona-reply/shared";
import type { OperationObject, PathItemObject } from "openapi3-ts/oas31";
import type { ErrorCode } from "../http/service-error.js";
import { EXAMPLE_PERSONA_ID, REQUEST_ID_PARAMETER } from "./api-operations.js";
import { errorResponses, HEADER_REFERENCES } from "./error-responses.js";

/** The models routes take an API key only (no x402: nothing is bought). */
const KEY_SECURITY = [{ ApiKeyHeader: [] }, { BearerAuth: [] }];

const AUTH_CODES: ErrorCode[] = [
  "missing_api_key",
  "invalid_api_key",
  "account_inactive",
  "internal_error",
];

const EXAMPLE_MODEL = {
  id: EXAMPLE_PERSONA_ID,
  object: "model",
  created: 1_767_225_600,
  owned_by: "9b2f6c1d-3e4a-4b5c-8d7e-0f1a2b3c4d5e",
};

const RULES =
  "Not in the spec: completions-style clients list models before anything else, so the personas the key's account may use are listed in the completions dialect's format, the persona ID as the model ID. Same authentication and error object as /completions. Not billed, and not counted against the key's rate-limit windows.";

const ok = (schema: string, example: unknown, description: string) => ({
  description,
  headers: { "x-request-id": HEADER_REFERENCES.requestId },
  content: {
    "application/json": { schema: { $ref: `#/components/schemas/${schema}` }, example },
  },
});

const listModels: OperationObject = {
  operationId: "listModels",
  tags: ["API"],
  summary: "List the personas a key may use, as models",
  description: `The personas of the key's account, oldest first, as \`{ object: "list", data: [{ id, object: "model", created, owned_by }] }\` — what the official openai client's models.list() reads. ${RULES}`,
  parameters: [REQUEST_ID_PARAMETER],
  security: KEY_SECURITY,
  responses: {
    "200": ok("ModelList", { object: "list", data: [EXAMPLE_MODEL] }, "The account's personas."),
    ...errorResponses("completions", AUTH_CODES),
  },
};

const retrieveModel: OperationObject = {
  operationId: "retrieveModel",
  tags: ["API"],
  summary: "One persona a key may use, as a model",
  description: `The model object of one persona of the key's account — what models.retrieve(id) reads. A persona of another account answers 404 like a missing one. ${RULES}`,
  parameters: [
    {
      name: "id",
      in: "path",
      required: true,
      description: "The persona ID.",
      schema: { type: "string" },
    },
    REQUEST_ID_PARAMETER,
  ],
  security: KEY_SECURITY,
  responses: {
    "200": ok("Model", EXAMPLE_MODEL, "The persona as a model."),
    ...errorResponses("completions", [...AUTH_CODES, "unknown_persona"]),
  },
};

/** `GET /api/v1/models` and `GET /api/v1/models/{id}`, by path. */
export function modelsPaths(): Record<string, PathItemObject> {
  return {
    [MODELS_PATH]: { get: listModels },
    [`${MODELS_PATH}/{id}`]: { get: retrieveModel },
  };
}
