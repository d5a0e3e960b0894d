import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { buildFavicon } from "./favicon.js";

describe("buildFavicon (an ICO holding one 32×32 PNG)", () => {
  const icon = buildFavicon();

  it("is an ICO directory with one 32×32 entry pointing at a PNG", () => {
    expect(icon.readUInt16LE(0)).toBe(0);
    expect(icon.readUInt16LE(2)).toBe(1);
    expect(icon.readUInt16LE(4)).toBe(1);
    expect([icon[6], icon[7]]).toEqual([32, 32]);
    const size = icon.readUInt32LE(14);
    const offset = icon.readUInt32LE(18);
    expect(offset + size).toBe(icon.length);
    expect(icon.subarray(offset, offset + 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
  });

  it("draws a bubble: transparent corners, the brand colour, white dots", () => {
    const image = icon.subarray(icon.readUInt32LE(18));
    // IHDR then IDAT: read the (single) IDAT chunk's data.
    const idatAt = image.indexOf("IDAT", 0, "latin1");
    const rows = inflateSync(
      image.subarray(idatAt + 4, idatAt + 4 + image.readUInt32BE(idatAt - 4)),
    );
    const pixel = (x: number, y: number) => {
      const at = y * (32 * 4 + 1) + 1 + x * 4;
      return [...rows.subarray(at, at + 4)];
    };
    expect(rows.length).toBe(32 * (32 * 4 + 1));
    expect(pixel(0, 0)[3]).toBe(0);
    expect(pixel(31, 31)[3]).toBe(0);
    expect(pixel(5, 20)).toEqual([79, 70, 229, 255]);
    expect(pixel(16, 13)).toEqual([255, 255, 255, 255]);
  });
});
