import { AsyncResource } from "node:async_hooks";
import type { Socket } from "node:net";
import type { RequestHandler } from "express";
import { onSocketGone } from "./socket-gone.js";

/** Responses one connection may have under way at once; later pipelined requests wait. */
export const MAX_PIPELINED_RESPONSES = 8;

interface SocketQueue {
  active: number;
  waiting: Array<() => void>;
}

const queues = new WeakMap<Socket, SocketQueue>();

/**
 * Bounds HTTP pipelining per connection. Node parses every request a client
 * sends in one go and answers them all at once, holding each answer in
 * memory until the ones before it are written: a client that pipelines a
 * few hundred requests and never reads would make the server hold a few
 * hundred responses. Here at most {@link MAX_PIPELINED_RESPONSES} are under
 * way per connection; the next starts when one finishes, so memory stays
 * bounded, and the idle-socket timeout drops the connection with its
 * waiting requests. Ordinary clients (one request at a time) never wait.
 */
export function limitPipelining(maxActive = MAX_PIPELINED_RESPONSES): RequestHandler {
  return (request, response, next) => {
    const socket = request.socket;
    let queue = queues.get(socket);
    if (queue === undefined) {
      queue = { active: 0, waiting: [] };
      queues.set(socket, queue);
    }
    const own = queue;
    const start = () => {
      own.active += 1;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        cancel();
        own.active -= 1;
        own.waiting.shift()?.();
      };
      const cancel = onSocketGone(socket, release);
      response.once("close", release);
      next();
    };
    // A waiting request starts from another one's `close`: it keeps its own async context.
    if (own.active < maxActive) start();
    else own.waiting.push(AsyncResource.bind(start));
  };
}
