import { expect, it } from "vitest";
import { dumpSchema, SCHEMA_DUMP_COMMAND, schemaSnapshotPath } from "./support/schema-dump.js";
import { dialectsUnderTest, suiteTitle } from "./support/test-databases.js";

for (const { dialect, skipReason } of await dialectsUnderTest()) {
  it.skipIf(skipReason !== undefined)(
    suiteTitle(`docs/schema/${dialect}.sql is the schema the migrations make`, dialect, skipReason),
    async () => {
      const dump = await dumpSchema(dialect);
      await expect(
        dump,
        `docs/schema/${dialect}.sql is not what the migrations make: run \`${SCHEMA_DUMP_COMMAND}\` and commit docs/schema/`,
      ).toMatchFileSnapshot(schemaSnapshotPath(dialect));
    },
  );
}
