import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import express from "express";
import { describe, expect, it } from "vitest";
import { limitPipelining } from "./pipelining-limit.js";

describe("limitPipelining (bounded work per pipelining connection)", () => {
  it("keeps at most the limit under way on one connection and still answers every request in order", async () => {
    let active = 0;
    let mostActive = 0;
    const app = express();
    app.use(limitPipelining(3));
    app.get("/item/:index", async (request, response) => {
      active += 1;
      mostActive = Math.max(mostActive, active);
      await new Promise((resolve) => setTimeout(resolve, 5));
      active -= 1;
      response.type("text/plain").send(`item ${request.params.index}`);
    });
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const received = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, "127.0.0.1", () => {
          const requests = Array.from(
            { length: 20 },
            (_, index) =>
              `GET /item/${index} HTTP/1.1\r\nHost: 127.0.0.1\r\n${index === 19 ? "Connection: close\r\n" : ""}\r\n`,
          );
          socket.write(requests.join(""));
        });
        let text = "";
        socket.setEncoding("utf8");
        socket.on("data", (chunk: string) => {
          text += chunk;
        });
        socket.on("close", () => resolve(text));
        socket.on("error", reject);
      });
      const bodies = [...received.matchAll(/item (\d+)/gu)].map((match) => Number(match[1]));
      expect(bodies).toEqual(Array.from({ length: 20 }, (_, index) => index));
      expect(mostActive).toBe(3);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
