import type { Services } from "../services.js";

/** Services that are opened only when first needed; see {@link deferServices}. */
export interface DeferredServices {
  /**
   * Stands for the services while the program is built: reading any member
   * before {@link DeferredServices.open} has resolved throws, so a command
   * that reads its services at registration instead of in its action is
   * caught at once.
   */
  services: Services;
  /** Opens the services (once; later calls return the same promise). */
  open(): Promise<Services>;
  /** The services when they were opened, else undefined (nothing to close). */
  opened(): Services | undefined;
}

/**
 * Defers opening the store and the services until a command of
 * `persona-admin` actually runs: `--help`, `--version` and an
 * argument error then touch nothing on disk, and need no valid configuration.
 *
 * @param openServices - loads the configuration and opens the services
 * @example
 * const deferred = deferServices(() => createServices(loadConfig(), logger));
 * const program = createAdminProgram(deferred.services, output);
 * program.hook("preAction", async () => { await deferred.open(); });
 */
export function deferServices(openServices: () => Promise<Services>): DeferredServices {
  let opening: Promise<Services> | undefined;
  let value: Services | undefined;
  const services = new Proxy({} as Services, {
    get(_target, member) {
      if (value === undefined) {
        throw new Error(`persona-admin read services.${String(member)} before a command ran`);
      }
      return Reflect.get(value, member);
    },
  });
  return {
    services,
    open() {
      opening ??= openServices().then((opened) => {
        value = opened;
        return opened;
      });
      return opening;
    },
    opened: () => value,
  };
}
