/**
 * @persona-reply/shared/node — what every Node.js server of the project
 * shares beyond the wire contract. Every export of this file is public.
 * Node.js only (it reads IP addresses with `node:net`), hence not in the
 * package's main entry, which browsers import.
 */

export {
  createHostCheck,
  type HostCheck,
  isLoopbackAddress,
  isLoopbackHost,
  isLoopbackOrigin,
} from "./host-check.js";
export {
  type BodyMiddleware,
  type BodyTooLargeError,
  refuseOversizeBodies,
} from "./oversize-body.js";
export { discardUnreadBodies, type UnreadBodyLimits } from "./unread-body.js";
