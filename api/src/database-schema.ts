import type { AccountTables } from "./accounts/account-tables.js";
import type { ApplicationTables } from "./applications/application-tables.js";
import type { BillingTables } from "./billing/billing-tables.js";
import type { EvaluationTables } from "./evaluation/evaluation-tables.js";
import type { InstanceTables } from "./instances/instance-tables.js";
import type { KeyTables } from "./keys/key-tables.js";
import type { LoginTables } from "./login/login-tables.js";
import type { OAuthTables } from "./oauth/oauth-tables.js";
import type { OnlineEvaluationTables } from "./online-evaluation/online-evaluation-tables.js";
import type { PersonaTables } from "./personas/persona-tables.js";
import type { PlaygroundTables } from "./playground/playground-tables.js";
import type { UsageTables } from "./usage/usage-tables.js";

/**
 * The store's tables, gathered from the features that own them (each
 * keeps its tables' types beside its migrations), as `schema-migrations.ts`
 * gathers their migrations. Declared into storage's `DatabaseSchema`
 * (storage/schema.ts), so `Database` queries are checked against every
 * table while storage itself names none.
 */
declare module "./storage/schema.js" {
  interface DatabaseSchema
    extends AccountTables,
      PersonaTables,
      KeyTables,
      PlaygroundTables,
      BillingTables,
      UsageTables,
      EvaluationTables,
      LoginTables,
      InstanceTables,
      ApplicationTables,
      OAuthTables,
      OnlineEvaluationTables {}
}
