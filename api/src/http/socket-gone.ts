import type { Socket } from "node:net";

const watchers = new WeakMap<Socket, Set<() => void>>();

/**
 * Calls `callback` once when the connection closes, and returns a function
 * that cancels it. One listener per socket serves every request on it, so a
 * keep-alive or pipelining connection never piles up listeners.
 *
 * Needed because Node never emits `close` on a response that was still
 * queued behind others on a pipelining connection when that connection was
 * destroyed (e.g. a client that never reads, dropped by the idle timeout).
 */
export function onSocketGone(socket: Socket, callback: () => void): () => void {
  let callbacks = watchers.get(socket);
  if (callbacks === undefined) {
    const registered = new Set<() => void>();
    callbacks = registered;
    watchers.set(socket, registered);
    socket.once("close", () => {
      watchers.delete(socket);
      for (const registeredCallback of registered) registeredCallback();
      registered.clear();
    });
  }
  const own = callbacks;
  own.add(callback);
  return () => {
    own.delete(callback);
  };
}
