import { APPLICATION_MIGRATIONS } from "./applications/application-migration.js";
import { BILLING_MIGRATIONS } from "./billing/billing-migration.js";
import { USAGE_CHARGE_MIGRATIONS } from "./billing/usage-charge-migration.js";
import { EVALUATION_MIGRATIONS } from "./evaluation/evaluation-migration.js";
import { INSTANCE_UPSTREAMS_MIGRATIONS } from "./instances/instance-upstreams-migration.js";
import { LOGIN_MIGRATIONS } from "./login/login-consent-migration.js";
import { OAUTH_MIGRATIONS } from "./oauth/oauth-migration.js";
import { OAUTH_UPKEEP_MIGRATIONS } from "./oauth/oauth-upkeep-migration.js";
import { ONLINE_EVALUATION_MIGRATIONS } from "./online-evaluation/online-evaluation-migration.js";
import { PAYMENT_RETENTION_MIGRATIONS } from "./payments/payment-retention-migration.js";
import { MODEL_ROUTES_MIGRATIONS } from "./personas/model-routes-migration.js";
import { PERSONA_CANARY_MIGRATIONS } from "./personas/persona-canary-migration.js";
import { PERSONA_RELEASE_NOTE_MIGRATIONS } from "./personas/persona-release-note-migration.js";
import { PERSONA_VERSIONS_MIGRATIONS } from "./personas/persona-versions-migration.js";
import { KEY_FLASH_MIGRATIONS } from "./playground/key-flash-migration.js";
import { PLAYGROUND_MIGRATIONS } from "./playground/playground-migration.js";
import { RATE_LIMIT_MIGRATIONS } from "./rate-limits/rate-limit-migration.js";
import { UNLOGGED_RATE_LIMITS_MIGRATIONS } from "./rate-limits/unlogged-buckets-migration.js";
import { CORE_MIGRATIONS } from "./storage/core-migration.js";
import { KEY_ORDER_MIGRATIONS } from "./storage/key-order-migration.js";
import type { SchemaMigrations } from "./storage/migrations.js";
import { REQUEST_PATH_MIGRATIONS } from "./storage/request-path-migration.js";
import { STORAGE_MIGRATIONS } from "./storage/storage-migration.js";
import { DAILY_CHARGES_MIGRATIONS } from "./usage/daily-charges-migration.js";
import { PARTITION_MIGRATIONS } from "./usage/partition-migration.js";
import { REQUEST_INDEX_MIGRATIONS } from "./usage/request-index-migration.js";
import { RETENTION_MIGRATIONS } from "./usage/retention-migration.js";
import { USAGE_MIGRATIONS } from "./usage/usage-migration.js";

/**
 * Every migration of the service, gathered from the features that own
 * them; storage applies them in the order of their names (`0001_…`).
 * The next free number is the highest here plus one.
 */
export const SCHEMA_MIGRATIONS: SchemaMigrations = {
  ...CORE_MIGRATIONS,
  ...BILLING_MIGRATIONS,
  ...PLAYGROUND_MIGRATIONS,
  ...RATE_LIMIT_MIGRATIONS,
  ...STORAGE_MIGRATIONS,
  ...MODEL_ROUTES_MIGRATIONS,
  ...KEY_FLASH_MIGRATIONS,
  ...USAGE_MIGRATIONS,
  ...LOGIN_MIGRATIONS,
  ...PERSONA_VERSIONS_MIGRATIONS,
  ...EVALUATION_MIGRATIONS,
  ...RETENTION_MIGRATIONS,
  ...PARTITION_MIGRATIONS,
  ...REQUEST_PATH_MIGRATIONS,
  ...USAGE_CHARGE_MIGRATIONS,
  ...REQUEST_INDEX_MIGRATIONS,
  ...DAILY_CHARGES_MIGRATIONS,
  ...UNLOGGED_RATE_LIMITS_MIGRATIONS,
  ...KEY_ORDER_MIGRATIONS,
  ...PERSONA_RELEASE_NOTE_MIGRATIONS,
  ...PAYMENT_RETENTION_MIGRATIONS,
  ...INSTANCE_UPSTREAMS_MIGRATIONS,
  ...PERSONA_CANARY_MIGRATIONS,
  ...ONLINE_EVALUATION_MIGRATIONS,
  ...OAUTH_MIGRATIONS,
  ...APPLICATION_MIGRATIONS,
  ...OAUTH_UPKEEP_MIGRATIONS,
};
