import { crc32, deflateSync } from "node:zlib";

/** Where the favicon is served; every page links it (pages/layout.ts). */
export const FAVICON_PATH = "/favicon.ico";

/** Size of the icon's square image, in pixels. */
const SIZE = 32;
/** Samples per pixel along each axis, for smooth edges. */
const SAMPLES = 4;
/** The brand colour (RGB) of the bubble. */
const BUBBLE = [79, 70, 229] as const;

/** Whether a point (in pixels) is inside the speech bubble: a rounded rectangle with a tail. */
function inBubble(x: number, y: number): boolean {
  const [left, top, right, bottom, radius] = [2, 4, 30, 23, 6];
  if (x >= left && x <= right && y >= top && y <= bottom) {
    // The nearest point of the rectangle shrunk by the radius: a corner's centre, or the point itself.
    const cornerX = Math.min(Math.max(x, left + radius), right - radius);
    const cornerY = Math.min(Math.max(y, top + radius), bottom - radius);
    if ((x - cornerX) ** 2 + (y - cornerY) ** 2 <= radius ** 2) return true;
  }
  // The tail: a triangle below the bubble's left part.
  return y > bottom - 1 && y <= 29 && x >= 8 && x <= 8 + (29 - y) * (7 / 6);
}

/** Whether a point is inside one of the three dots in the bubble ("typing…"). */
function inDot(x: number, y: number): boolean {
  return [9.5, 16, 22.5].some((centre) => (x - centre) ** 2 + (y - 13.5) ** 2 <= 2.4 ** 2);
}

/** The icon as straight RGBA rows, each prefixed with PNG filter byte 0. */
function pixels(): Buffer {
  const rows = Buffer.alloc(SIZE * (SIZE * 4 + 1));
  for (let row = 0; row < SIZE; row++) {
    const offset = row * (SIZE * 4 + 1);
    for (let column = 0; column < SIZE; column++) {
      let bubble = 0;
      let dot = 0;
      for (let sampleY = 0; sampleY < SAMPLES; sampleY++) {
        for (let sampleX = 0; sampleX < SAMPLES; sampleX++) {
          const x = column + (sampleX + 0.5) / SAMPLES;
          const y = row + (sampleY + 0.5) / SAMPLES;
          if (inBubble(x, y)) {
            bubble += 1;
            if (inDot(x, y)) dot += 1;
          }
        }
      }
      const coverage = bubble / SAMPLES ** 2;
      const white = bubble === 0 ? 0 : dot / bubble;
      const at = offset + 1 + column * 4;
      for (let channel = 0; channel < 3; channel++) {
        const base = BUBBLE[channel] ?? 0;
        rows[at + channel] = Math.round(base + (255 - base) * white);
      }
      rows[at + 3] = Math.round(255 * coverage);
    }
  }
  return rows;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, checksum]);
}

function png(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(6, 9); // colour type: RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(pixels())),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * Builds the site's favicon: a 32×32 speech bubble in the brand colour, as
 * an ICO file holding one PNG image (the form every browser reads at
 * `/favicon.ico`). Drawn in code so the repository holds no binary file.
 *
 * @returns the bytes of `image/x-icon`
 */
export function buildFavicon(): Buffer {
  const image = png();
  const directory = Buffer.alloc(6 + 16);
  directory.writeUInt16LE(0, 0); // reserved
  directory.writeUInt16LE(1, 2); // type: icon
  directory.writeUInt16LE(1, 4); // one image
  directory.writeUInt8(SIZE, 6);
  directory.writeUInt8(SIZE, 7);
  directory.writeUInt16LE(1, 10); // colour planes
  directory.writeUInt16LE(32, 12); // bits per pixel
  directory.writeUInt32LE(image.length, 14);
  directory.writeUInt32LE(directory.length, 18);
  return Buffer.concat([directory, image]);
}
